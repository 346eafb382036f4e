// Every domain error is answered with the status and code its meaning calls for, and never as a
// 500: http/errors.ts is the one place that maps them (docs/architecture.md).
import { describe, expect, it } from 'vitest';
import * as domain from '../../src/domain/errors.js';
import { toApiError } from '../../src/http/errors.js';

const examples: [domain.DomainError, number, string][] = [
  [new domain.NotFound('venue', 7), 404, 'rest-venue-not-found'],
  [new domain.NotFound('event', 'jazz-night'), 404, 'rest-event-not-found'],
  [new domain.InvalidInput({ timezone: 'timezone is not a zone.' }), 400, 'rest_invalid_param'],
  [new domain.Forbidden(false), 401, 'rest_forbidden'],
  [new domain.Forbidden(true), 403, 'rest_forbidden'],
  [new domain.TermCreationForbidden('tags', 'editor', 'tag'), 403, 'rest_cannot_create_term'],
  [new domain.NotReadable('organizer'), 403, 'organizer-not-accessible'],
  [new domain.AlreadyTrashed('event', 3), 410, 'event-is-in-trash'],
  [new domain.PreconditionFailed(), 412, 'rest_precondition_failed'],
  [new domain.DuplicateTermName('category', 'Jazz', 4), 400, 'term_exists'],
  [new domain.InvalidTermSlug('tag', 'jazz'), 400, 'duplicate_term_slug'],
  [new domain.InvalidCredentials(), 401, 'rest_invalid_credentials'],
  [new domain.Throttled(30), 429, 'rest_too_many_failed_logins'],
  [new domain.Conflict(), 409, 'rest_conflict'],
  [new domain.ObjectRefused('uid-conflict', 'Taken.'), 409, 'rest_calendar_object_refused'],
  [new domain.ObjectRefused('missing', 'None.'), 404, 'rest_calendar_object_refused'],
  [new domain.QuotaExceeded('creates', 100, 60), 429, 'rest_quota_exceeded'],
  [new domain.QuotaExceeded('series', 20), 403, 'rest_quota_exceeded'],
  [new domain.CursorExpired(), 410, 'rest_changes_cursor_expired'],
  [new domain.WebhookDisabled(3), 409, 'rest_webhook_disabled'],
  [new domain.MediaRefused('no-file', 'No file.'), 400, 'rest_upload_no_data'],
  [new domain.MediaRefused('bytes', 'Too many bytes.'), 413, 'rest_upload_file_too_big'],
  [new domain.MediaRefused('pixels', 'Too many pixels.'), 413, 'rest_upload_too_many_pixels'],
  [new domain.MediaRefused('type', 'Not an image.'), 415, 'rest_upload_invalid_type'],
  [new domain.MediaRefused('corrupt', 'Truncated.'), 400, 'rest_upload_invalid_image'],
  [new domain.MediaInUse(41, [{ type: 'event', id: 12 }]), 409, 'rest_media_in_use'],
  [new domain.RsvpRefused('series', 'A series.'), 400, 'rest_rsvp_series'],
  [new domain.RsvpRefused('capacity', 'Seats taken.', { seats_taken: 3 }), 409, 'rest_rsvp_capacity_below_seats'],
  [new domain.RsvpRefused('needs-confirmation', 'Sign in.'), 403, 'rest_rsvp_needs_confirmation'],
  [new domain.RsvpRefused('busy', 'Too many at once.'), 503, 'rest_rsvp_busy'],
  [new domain.SubmissionRefused('closed', 'Closed.'), 403, 'rest_submissions_closed'],
  [new domain.SubmissionRefused('challenge', 'No proof.'), 400, 'rest_submission_challenge'],
  [new domain.SubmissionRefused('duplicate', 'Twice.'), 409, 'rest_submission_duplicate'],
  [new domain.SubmissionRefused('decided', 'Decided.'), 409, 'rest_submission_decided'],
  [new domain.SubmissionRefused('busy', 'Too many at once.'), 503, 'rest_submissions_busy'],
  [new domain.NotFound('follower', 3), 404, 'rest-follower-not-found'],
  [new domain.FollowerRefused('accepted', 'Accepted.'), 409, 'rest_follower_accepted'],
  [new domain.FollowerRefused('off', 'Off.'), 409, 'rest_federation_off'],
  [new domain.FederationRefused('off', 'Off.'), 409, 'rest_federation_off'],
  [new domain.FederationRefused('lookup', 'No actor.'), 400, 'rest_federation_actor_unreadable'],
  [new domain.FederationRefused('blocked', 'Blocked.'), 403, 'rest_federation_blocked'],
  [new domain.FederationRefused('self', 'Itself.'), 400, 'rest_federation_self'],
  [new domain.FederationRefused('exists', 'Twice.'), 409, 'rest_federation_source_exists'],
];

describe('domain errors', () => {
  it.each(examples.map(([error, status, code]) => [error.constructor.name, status, code, error] as const))(
    '%s is %i %s',
    (_name, status, code, error) => {
      const api = toApiError(error);
      expect(api.status).toBe(status);
      expect(api.code).toBe(code);
      expect(api.message).toBe(error.message);
    },
  );

  it('has an example above for every error the domain names', () => {
    const classes: { name: string; prototype: unknown }[] = Object.values(domain).filter(
      (value) => typeof value === 'function' && value.prototype instanceof domain.DomainError,
    );
    const covered = new Set<unknown>(examples.map(([error]) => error.constructor));
    expect(classes.filter((c) => !covered.has(c)).map((c) => c.name)).toEqual([]);
  });

  it('carries what the client needs: the fields, the existing term, when to retry', () => {
    expect(toApiError(new domain.InvalidInput({ slug: 'taken' })).toBody().data).toMatchObject({
      params: { slug: 'taken' },
    });
    expect(toApiError(new domain.DuplicateTermName('tag', 'Jazz', 9)).toBody().data).toMatchObject({ term_id: 9 });
    expect(toApiError(new domain.Throttled(12)).headers).toEqual({ 'Retry-After': '12' });
    expect(toApiError(new domain.Conflict()).headers).toEqual({ 'Retry-After': '1' });
    expect(toApiError(new domain.RsvpRefused('busy', 'Too many at once.')).headers).toEqual({ 'Retry-After': '1' });
    expect(toApiError(new domain.SubmissionRefused('busy', 'Too many at once.')).headers).toEqual({
      'Retry-After': '1',
    });
    expect(
      toApiError(new domain.RsvpRefused('capacity', 'Seats taken.', { seats_taken: 3 })).toBody().data,
    ).toMatchObject({ seats_taken: 3 });
  });
});
