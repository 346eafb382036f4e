// How CalDAV refuses: an HTTP status and, where RFC 4918 or RFC 4791 names one, the precondition
// that failed, as a DAV:error body (http/dav-router.ts writes it) with a sentence for people.
import { CALDAV, DAV } from './xml.js';

export interface Precondition {
  ns: string;
  name: string;
}

export class DavError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly precondition?: Precondition,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }
}

export const caldavCondition = (name: string): Precondition => ({ ns: CALDAV, name });
export const davCondition = (name: string): Precondition => ({ ns: DAV, name });

/** The data is no calendar object resource this service can hold without losing part of it. */
export const invalidData = (message: string) => new DavError(403, message, caldavCondition('valid-calendar-data'));
export const invalidResource = (message: string) =>
  new DavError(403, message, caldavCondition('valid-calendar-object-resource'));
