// The submission form's fields as the API takes them, and the API's answer as the form's errors.
// The form posts to the API (pages/submit.ts): its fields become a SubmissionInput as a script
// would write it, the document validates it, and what the API refuses comes back named by the
// SubmissionInput's fields (`data.params`), each put back next to the form field that holds it.
import type { ErrorBody } from '../http/errors.js';

/** The form's fields (HTML names), and `form` for what belongs to none. */
export const FORM_FIELDS = [
  'title',
  'start_date',
  'end_date',
  'all_day',
  'timezone',
  'description',
  'cost',
  'website',
  'image',
  'image_alt_text',
  'is_virtual',
  'virtual_url',
  'categories',
  'suggested_categories',
  'venue',
  'venue_name',
  'venue_address',
  'venue_city',
  'venue_country',
  'organizer',
  'organizer_name',
  'organizer_website',
  'organizer_email',
  'submitter_name',
  'submitter_email',
  'altcha',
  'form',
] as const;

export type FormField = (typeof FORM_FIELDS)[number];

/** What the browser sent, by field name (a repeated field, the categories' checkboxes, as a list). */
export type FormValues = Partial<Record<string, string | string[]>>;

/** The form's fields read from a parsed body: only strings and lists of strings, anything else left out. */
export function formValues(body: unknown): FormValues {
  const values: FormValues = {};
  if (!body || typeof body !== 'object') return values;
  for (const [name, value] of Object.entries(body as Record<string, unknown>)) {
    if (typeof value === 'string') values[name] = value;
    else if (Array.isArray(value)) values[name] = value.filter((item): item is string => typeof item === 'string');
  }
  return values;
}

/** One field's text (the last of a repeated one), trimmed; empty when absent. */
export const one = (form: FormValues, name: string): string => {
  const value = form[name];
  return (Array.isArray(value) ? (value.at(-1) ?? '') : (value ?? '')).trim();
};

/** A field's values as a list. */
export const all = (form: FormValues, name: string): string[] => {
  const value = form[name];
  if (value === undefined) return [];
  return (Array.isArray(value) ? value : [value]).map((item) => item.trim()).filter(Boolean);
};

const checked = (form: FormValues, name: string) => one(form, name) !== '';

/** An ID as a number where it is written as one; else as written, for the document to refuse. */
const idOrText = (value: string): number | string => (/^[0-9]{1,10}$/.test(value) ? Number(value) : value);

/** Entries whose value is not empty. */
const filled = (entries: Record<string, string>) =>
  Object.fromEntries(Object.entries(entries).filter(([, value]) => value !== ''));

/** A date and its time as DateInput reads them (`2043-05-16 14:00`), or the date alone. */
const dateTime = (date: string, time: string) => (time ? `${date} ${time}` : date);

/** The start and end as the API reads them: an end without a date is on the start's day; all day, no times. */
function datesOf(form: FormValues): Record<string, unknown> {
  const startDate = one(form, 'start_date');
  const endDate = one(form, 'end_date') || startDate;
  const allDay = checked(form, 'all_day');
  return {
    ...(startDate ? { start_date: dateTime(startDate, allDay ? '' : one(form, 'start_time')) } : {}),
    ...(endDate ? { end_date: dateTime(endDate, allDay ? '' : one(form, 'end_time')) } : {}),
    ...(allDay ? { all_day: true } : {}),
  };
}

/** The venue or organizer: one chosen in its list (by ID), else a new one's fields, else none. */
function placeOf(form: FormValues, kind: 'venue' | 'organizer'): Record<string, unknown> {
  const chosen = one(form, kind);
  if (chosen) return { [kind]: idOrText(chosen) };
  const fields =
    kind === 'venue'
      ? filled({
          venue: one(form, 'venue_name'),
          address: one(form, 'venue_address'),
          city: one(form, 'venue_city'),
          country: one(form, 'venue_country'),
        })
      : filled({
          organizer: one(form, 'organizer_name'),
          website: one(form, 'organizer_website'),
          email: one(form, 'organizer_email'),
        });
  return Object.keys(fields).length ? { [kind]: fields } : {};
}

/** The categories chosen (by ID) and the names suggested (comma-separated). */
function categoriesOf(form: FormValues): Record<string, unknown> {
  const chosen = all(form, 'categories');
  const suggested = one(form, 'suggested_categories')
    .split(',')
    .map((name) => name.trim())
    .filter(Boolean);
  return {
    ...(chosen.length ? { categories: chosen.map(idOrText) } : {}),
    ...(suggested.length ? { suggested_categories: suggested } : {}),
  };
}

/**
 * The SubmissionInput the form's fields say. An empty field is left out, so that the API names a
 * missing one as missing; an existing venue or organizer chosen in its list wins over a new one's
 * fields.
 */
export function submissionOf(form: FormValues): Record<string, unknown> {
  const text = (name: string) => (one(form, name) ? { [name]: one(form, name) } : {});
  return {
    ...text('title'),
    ...datesOf(form),
    ...text('timezone'),
    ...text('description'),
    ...text('cost'),
    ...text('website'),
    ...text('image_alt_text'),
    ...(checked(form, 'is_virtual') ? { is_virtual: true } : {}),
    ...text('virtual_url'),
    ...categoriesOf(form),
    ...placeOf(form, 'venue'),
    ...placeOf(form, 'organizer'),
    submitter: filled({ name: one(form, 'submitter_name'), email: one(form, 'submitter_email') }),
    ...text('altcha'),
    // The hidden field as sent, untrimmed: a program that fills it with spaces filled it.
    ...(typeof form.nickname === 'string' && form.nickname !== '' ? { nickname: form.nickname } : {}),
  };
}

/** SubmissionInput's fields that are one form field each. */
const FLAT: Partial<Record<string, FormField>> = {
  title: 'title',
  start_date: 'start_date',
  end_date: 'end_date',
  all_day: 'all_day',
  timezone: 'timezone',
  description: 'description',
  cost: 'cost',
  website: 'website',
  image: 'image',
  image_alt_text: 'image_alt_text',
  is_virtual: 'is_virtual',
  virtual_url: 'virtual_url',
  categories: 'categories',
  suggested_categories: 'suggested_categories',
  altcha: 'altcha',
};

/** The objects' fields, by the object's name (SubmittedVenue, SubmittedOrganizer, Submitter). */
const NESTED: Partial<Record<string, Partial<Record<string, FormField>>>> = {
  venue: { venue: 'venue_name', address: 'venue_address', city: 'venue_city', country: 'venue_country' },
  organizer: { organizer: 'organizer_name', website: 'organizer_website', email: 'organizer_email' },
  submitter: { name: 'submitter_name', email: 'submitter_email' },
};

/**
 * The field inside an object that a message of the document's validation names: `venue/city must
 * ...` (http/validation.ts writes the path first) or `... required property 'name'` (Ajv's words).
 * Each is one anchored match of a bounded word: linear in the message.
 */
function innerField(parameter: string, message: string): string | undefined {
  const path = message.startsWith(`${parameter}/`) ? /^[a-z_]+/.exec(message.slice(parameter.length + 1)) : null;
  return path?.[0] ?? /required property '([a-z_]+)'/.exec(message)?.[1];
}

/**
 * The form field that holds a SubmissionInput's field, the one named inside an object where the
 * message names one. An object whose own field cannot be told (the document's `oneOf` of an ID or
 * a new one) is the list's choice when one was made, else the new one's name.
 */
export function formFieldOf(parameter: string, message: string, form: FormValues): FormField {
  const flat = FLAT[parameter];
  if (flat) return flat;
  const nested = NESTED[parameter];
  if (!nested) return 'form';
  const inner = innerField(parameter, message);
  const field = inner === undefined ? undefined : nested[inner];
  if (field) return field;
  if (parameter === 'submitter') return 'submitter_email';
  const kind = parameter as 'venue' | 'organizer';
  return one(form, kind) ? kind : `${kind}_name`;
}

export type Refusal = 'closed' | 'signIn' | 'duplicate' | 'tooMany' | 'busy' | 'other';

export interface Refused {
  /** The fields the API found wrong, in the form's order. */
  fields: FormField[];
  /** A refusal that is no one field's, said at the top. */
  refusal?: Refusal;
}

/** What the form says of the API's refusal (an answer that is not 202). */
export function refusalOf(status: number, body: Partial<ErrorBody> | undefined, form: FormValues): Refused {
  const fields = new Set(fieldsRefused(status, body, form));
  if (fields.size) return { fields: FORM_FIELDS.filter((field) => fields.has(field)) };
  return { fields: [], refusal: refusalByStatus(status, body?.code ?? '') };
}

/** The field whose refusal a code is: the proof of work's, or the image's (the media library's codes, http/errors.ts, but busy). */
function fieldOfCode(code: string): FormField | undefined {
  if (code === 'rest_submission_challenge') return 'altcha';
  if (code.startsWith('rest_upload_') && code !== 'rest_upload_busy') return 'image';
  return undefined;
}

/** The fields a refusal names: the proof of work's, those `data.params` names, or the whole form's. */
function fieldsRefused(status: number, body: Partial<ErrorBody> | undefined, form: FormValues): FormField[] {
  const code = body?.code ?? '';
  const params = body?.data?.params;
  const own = fieldOfCode(code);
  if (own) return [own];
  if (code === 'rest_missing_callback_param' && Array.isArray(params)) {
    return params.map((name) => formFieldOf(String(name), '', form));
  }
  if (status === 400 && params && typeof params === 'object') {
    return Object.entries(params as Record<string, unknown>).map(([name, message]) =>
      formFieldOf(name, String(message), form),
    );
  }
  return status === 400 || status === 413 || status === 415 ? ['form'] : [];
}

function refusalByStatus(status: number, code: string): Refusal {
  if (code === 'rest_submissions_closed') return 'closed';
  if (status === 401 || code === 'rest_forbidden') return 'signIn';
  if (code === 'rest_submission_duplicate') return 'duplicate';
  if (code === 'rest_quota_exceeded') return 'tooMany';
  if (status === 409 || status === 429 || status === 503) return 'busy';
  return 'other';
}
