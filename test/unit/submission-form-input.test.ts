// The submission form's fields as the API's SubmissionInput, and the API's refusals as the form's
// fields (src/pages/submit-input.ts).
import { describe, expect, it } from 'vitest';
import { formFieldOf, refusalOf, submissionOf } from '../../src/pages/submit-input.js';

describe('submissionOf', () => {
  const base = { title: ' Lantern walk ', submitter_name: 'Ana', submitter_email: 'ana@example.org' };

  it.each([
    [
      'a start with its time, an end on the same day',
      { start_date: '2043-05-16', start_time: '19:00', end_time: '21:00' },
      { start_date: '2043-05-16 19:00', end_date: '2043-05-16 21:00' },
    ],
    [
      'all day: dates without times',
      { start_date: '2043-05-16', start_time: '19:00', end_date: '2043-05-17', all_day: '1' },
      { start_date: '2043-05-16', end_date: '2043-05-17', all_day: true },
    ],
    ['a venue chosen in the list wins over a new one', { venue: '12', venue_name: 'Barn' }, { venue: 12 }],
    [
      'a new venue of its filled fields',
      { venue: '', venue_name: 'Barn', venue_city: 'Lyon', venue_country: '' },
      { venue: { venue: 'Barn', city: 'Lyon' } },
    ],
    ['an ID that is none is sent as written', { organizer: '12abc' }, { organizer: '12abc' }],
    [
      'categories by ID, names suggested by commas',
      { categories: ['3', '5'], suggested_categories: 'River walks, , Night ' },
      { categories: [3, 5], suggested_categories: ['River walks', 'Night'] },
    ],
    ['the hidden field as sent', { nickname: ' ' }, { nickname: ' ' }],
  ])('%s', (_, fields, expected) => {
    const input = submissionOf({ ...base, ...fields });
    expect(input).toMatchObject({ title: 'Lantern walk', submitter: { name: 'Ana', email: 'ana@example.org' } });
    expect(input).toMatchObject(expected);
  });

  it('leaves out what is empty, so that the API names it missing', () => {
    expect(submissionOf({ title: '  ', submitter_email: 'a@b.example' })).toEqual({
      submitter: { email: 'a@b.example' },
    });
  });
});

describe('formFieldOf', () => {
  it.each([
    ['title', 'title must NOT have more than 200 characters', {}, 'title'],
    ['venue', 'venue/city must NOT have more than 500 characters', {}, 'venue_city'],
    ['venue', 'venue must be integer', {}, 'venue_name'],
    ['venue', 'venue must be integer', { venue: '7' }, 'venue'],
    ['organizer', "organizer must have required property 'organizer'", {}, 'organizer_name'],
    ['submitter', "submitter must have required property 'name'", {}, 'submitter_name'],
    ['submitter', 'submitter/email must match format "email"', {}, 'submitter_email'],
    ['nickname', 'nickname must NOT have more than 500 characters', {}, 'form'],
    ['body', 'The body is not valid JSON.', {}, 'form'],
  ])('%s: %s', (parameter, message, form, field) => {
    expect(formFieldOf(parameter, message, form)).toBe(field);
  });
});

describe('refusalOf', () => {
  it.each([
    [
      400,
      { code: 'rest_missing_callback_param', data: { status: 400, params: ['title', 'end_date'] } },
      ['title', 'end_date'],
    ],
    [400, { code: 'rest_submission_challenge', data: { status: 400 } }, ['altcha']],
    [
      400,
      { code: 'rest_invalid_param', data: { status: 400, params: { website: 'x', description: 'y' } } },
      ['description', 'website'],
    ],
    [413, { code: 'rest_payload_too_large', data: { status: 413 } }, ['form']],
  ])('%i %j names its fields in the form’s order', (status, body, fields) => {
    expect(refusalOf(status, body, {})).toEqual({ fields });
  });

  it.each([
    [403, 'rest_submissions_closed', 'closed'],
    [401, 'rest_forbidden', 'signIn'],
    [409, 'rest_submission_duplicate', 'duplicate'],
    [429, 'rest_quota_exceeded', 'tooMany'],
    [429, 'rest_rate_limited', 'busy'],
    [409, 'rest_conflict', 'busy'],
    [500, 'rest_internal_error', 'other'],
  ])('%i %s is said at the top: %s', (status, code, refusal) => {
    expect(refusalOf(status, { code, data: { status } }, {})).toEqual({ fields: [], refusal });
  });
});
