// Shared by the programs in this folder, each of which is copied next to the client one generator
// wrote from the service's document (test/tools/generators.test.ts), type-checked with it under
// --strict and run against a live service.

/** True when T is `unknown` or `any`: what a generator writes for a schema it could not type. */
export type IsUnknown<T> = unknown extends T ? true : false;

/** True when T, without null and undefined, is a string type (and neither unknown nor any). */
export type IsString<T> = IsUnknown<T> extends true ? false : [NonNullable<T>] extends [string] ? true : false;

/**
 * An answer without the reshaped forms the document also allows where an operation takes `_fields`
 * (a part: every field optional) or `_envelope` (an envelope with a numeric status): these programs
 * send neither, so each narrows an answer once, as examples/plain.ts shows docs/api.md's readers.
 */
export type Plain<T> = T extends unknown
  ? object extends T
    ? never
    : T extends { status: number; headers: object }
      ? never
      : T
  : never;

export const plain = <T>(data: T): Plain<T> => data as Plain<T>;

/**
 * What every program prints (one JSON line), for the test to check. A status is null where the client
 * does not tell it for an answer that succeeded.
 */
export interface Outcome {
  /** The organizer created first, as the service answered. */
  organizer: { status: number | null; id: number; email: string };
  /** The event created with it. */
  created: { status: number | null; id: number; website: string; url: string; organizerEmails: string[] };
  /** The list of the event's month. */
  listed: { status: number | null; ids: number[]; total: number };
  /** The event read back by ID. */
  read: { status: number | null; title: string; website: string };
  /** An ID that does not exist. */
  notFound: { status: number; code: string };
  /** `per_page=0`. */
  badParam: { status: number; code: string; params: string[] };
}

/** The service and the account the program talks to, from the environment. */
export function target() {
  const get = (name: string): string => {
    const value = process.env[name];
    if (!value) throw new Error(`${name} is not set`);
    return value;
  };
  return { baseUrl: get('CALENDAR_URL'), login: get('CALENDAR_LOGIN'), appPassword: get('CALENDAR_APP_PASSWORD') };
}

/** What the programs create: an organizer with an e-mail address, and an event with a website. */
export const ORGANIZER = { organizer: 'Harbor Arts', email: 'hello@harborarts.example.com' };
export const EVENT = {
  title: 'Harbor folk night',
  start_date: '2041-06-05 19:00',
  end_date: '2041-06-05 22:00',
  timezone: 'America/New_York',
  website: 'https://harborarts.example.com/folk',
};
/** The month the event is in, as list filters. */
export const MONTH = { start_date: '2041-06-01', end_date: '2041-06-30' };
/** An event ID that does not exist. */
export const MISSING_ID = 987654321;

export function report(outcome: Outcome) {
  console.log(JSON.stringify(outcome));
}
