// A post's status in iCalendar (RFC 5545 3.8.1.11 STATUS, 3.8.1.3 CLASS), both ways, in one table:
// what the export writes for each post status (write-calendar.ts), and what each reader takes a
// VEVENT's STATUS and CLASS back as. There are two readers, and they read different texts:
//
// - `import`: another program's calendar (import/commands.ts). A tentative event is still on that
//   calendar, so TENTATIVE is published; a cancelled one leaves the lists (a draft) but keeps its
//   mapping, whatever its CLASS; a private one stays private.
// - `caldav`: a client's edit of what this service served (caldav/items.ts), the inverse of the
//   export: a draft was served as TENTATIVE, so TENTATIVE (and CANCELLED) is a draft, and a client
//   that confirms it publishes it; CLASS PRIVATE (or CONFIDENTIAL) is private whatever the STATUS.
//
// A status added to the posts (a cancelled event) is a row of WRITTEN and a rule of each reading.
import { ICalEventClass, ICalEventStatus } from 'ical-generator';
import type { PostStatus } from '../domain/posts.js';

/** Whose text a reader reads: another program's calendar, or a CalDAV client's edit of ours. */
export type StatusReading = 'import' | 'caldav';

/** The statuses a reader gives an event. */
export type ReadStatus = Extract<PostStatus, 'publish' | 'private' | 'draft'>;

/** What the export writes for each post status. */
const WRITTEN: Record<PostStatus, { status: ICalEventStatus; class?: ICalEventClass }> = {
  publish: { status: ICalEventStatus.CONFIRMED },
  future: { status: ICalEventStatus.CONFIRMED },
  // A private event says so, as an event a calendar app keeps private does (RFC 5545 3.8.1.3).
  private: { status: ICalEventStatus.CONFIRMED, class: ICalEventClass.PRIVATE },
  draft: { status: ICalEventStatus.TENTATIVE },
  pending: { status: ICalEventStatus.TENTATIVE },
  trash: { status: ICalEventStatus.CANCELLED },
};

/** A rule of a reading: a STATUS or CLASS value, and the status it gives. The first that matches counts. */
type Rule = { status: string; as: ReadStatus } | { class: string; as: ReadStatus };

/** How each reader takes STATUS and CLASS back, in order; an event no rule matches is published. */
const READ: Record<StatusReading, readonly Rule[]> = {
  import: [
    { status: ICalEventStatus.CANCELLED, as: 'draft' },
    { class: ICalEventClass.PRIVATE, as: 'private' },
    { class: ICalEventClass.CONFIDENTIAL, as: 'private' },
  ],
  caldav: [
    { class: ICalEventClass.PRIVATE, as: 'private' },
    { class: ICalEventClass.CONFIDENTIAL, as: 'private' },
    { status: ICalEventStatus.TENTATIVE, as: 'draft' },
    { status: ICalEventStatus.CANCELLED, as: 'draft' },
  ],
};

/** The STATUS and CLASS the export writes for a post status (none for a status it does not know). */
export function writtenStatus(status: string): { status?: ICalEventStatus; class?: ICalEventClass } {
  return (WRITTEN as Partial<Record<string, (typeof WRITTEN)[PostStatus]>>)[status] ?? {};
}

/** The status a VEVENT's STATUS and CLASS (as written, any case, '' when absent) give, as `reading` reads them. */
export function readStatus(given: { status: string; class: string }, reading: StatusReading): ReadStatus {
  const status = given.status.toUpperCase();
  const privacy = given.class.toUpperCase();
  const rule = READ[reading].find((r) => ('status' in r ? r.status === status : r.class === privacy));
  return rule?.as ?? 'publish';
}
