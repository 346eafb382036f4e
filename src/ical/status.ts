// An event's statuses in iCalendar (RFC 5545 3.8.1.11 STATUS, 3.8.1.3 CLASS), both ways: what the
// export writes for its post status and its event status (write-calendar.ts), and what each reader
// takes a VEVENT's STATUS, CLASS and our X- properties back as. There are two readers, and they
// read different texts:
//
// - `import`: another program's calendar (import/commands.ts). A tentative event is still on that
//   calendar, so TENTATIVE is published; a private one stays private.
// - `caldav`: a client's edit of what this service served (caldav/items.ts), the inverse of the
//   export: a draft was served as TENTATIVE, so TENTATIVE is a draft, and a client that confirms it
//   publishes it; CLASS PRIVATE (or CONFIDENTIAL) is private whatever the STATUS.
//
// Both read CANCELLED as the event status `canceled` of an event published (or private, as its CLASS
// says), as calendar apps show it: called off, still on the calendar. The export writes CANCELLED for
// a cancelled event whatever its post status, so a cancelled draft is served as CANCELLED too; read
// back it says "published", but CalDAV writes only what a client changed of what it was served
// (caldav/items.ts changedOnly), so the draft stays a draft unless the client makes it TENTATIVE.
//
// RFC 5545 has no STATUS for a postponed event: it keeps the STATUS of its post status (it is still
// on the calendar, its date not yet known) and says POSTPONED in X-CALENDAR-EVENTS-STATUS, which a
// CalDAV client keeps as it keeps any X- property, so that a round trip keeps it. The reason for
// either is X-CALENDAR-EVENTS-STATUS-REASON, not a line of DESCRIPTION or SUMMARY: CalDAV compares
// those with what it served, and a client that edits a text around such a line would write it into
// the event's own description or title.
import { ICalEventClass, ICalEventStatus } from 'ical-generator';
import type { PostStatus } from '../domain/posts.js';

/** Whose text a reader reads: another program's calendar, or a CalDAV client's edit of ours. */
export type StatusReading = 'import' | 'caldav';

/** The statuses a reader gives an event. */
export type ReadStatus = Extract<PostStatus, 'publish' | 'private' | 'draft'>;

/** Whether an event happens as announced (openapi/components/schemas/EventStatus.yaml). */
export type EventStatus = 'scheduled' | 'canceled' | 'postponed';

/** The event status the export writes beside STATUS, where STATUS cannot say it (a postponed event). */
export const EVENT_STATUS_PROPERTY = 'X-CALENDAR-EVENTS-STATUS';
/** The reason a cancelled or postponed event gives. */
export const STATUS_REASON_PROPERTY = 'X-CALENDAR-EVENTS-STATUS-REASON';

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

/** How each reader takes STATUS and CLASS back as a post status, in order; an event no rule matches is published. */
const READ: Record<StatusReading, readonly Rule[]> = {
  import: [
    { class: ICalEventClass.PRIVATE, as: 'private' },
    { class: ICalEventClass.CONFIDENTIAL, as: 'private' },
  ],
  caldav: [
    { class: ICalEventClass.PRIVATE, as: 'private' },
    { class: ICalEventClass.CONFIDENTIAL, as: 'private' },
    { status: ICalEventStatus.TENTATIVE, as: 'draft' },
  ],
};

/** What the export writes of an event's statuses: STATUS, CLASS, and X- properties. */
export interface WrittenStatus {
  status?: ICalEventStatus;
  class?: ICalEventClass;
  x: { key: string; value: string }[];
}

/**
 * The STATUS and CLASS the export writes for a post status (none for a status it does not know),
 * and for the event status: CANCELLED for a cancelled event, the post status' STATUS and the X-
 * property for a postponed one, with the reason of either.
 */
export function writtenStatus(post: string, event: EventStatus = 'scheduled', reason = ''): WrittenStatus {
  const written = (WRITTEN as Partial<Record<string, (typeof WRITTEN)[PostStatus]>>)[post] ?? {};
  const x = [
    ...(event === 'postponed' ? [{ key: EVENT_STATUS_PROPERTY, value: 'POSTPONED' }] : []),
    ...(event !== 'scheduled' && reason ? [{ key: STATUS_REASON_PROPERTY, value: reason }] : []),
  ];
  return { ...written, ...(event === 'canceled' ? { status: ICalEventStatus.CANCELLED } : {}), x };
}

/** A VEVENT's STATUS, CLASS and X-CALENDAR-EVENTS-STATUS as written (any case, '' when absent). */
export interface GivenStatus {
  status: string;
  class: string;
  eventStatus?: string;
}

/** The post status and event status a VEVENT's lines give, as `reading` reads them. */
export function readStatus(
  given: GivenStatus,
  reading: StatusReading,
): { status: ReadStatus; eventStatus: EventStatus } {
  const status = given.status.toUpperCase();
  const privacy = given.class.toUpperCase();
  const rule = READ[reading].find((r) => ('status' in r ? r.status === status : r.class === privacy));
  return { status: rule?.as ?? 'publish', eventStatus: eventStatusOf(status, given.eventStatus ?? '') };
}

/** Cancelled is what STATUS says; postponed, what our X- property says of an event not cancelled. */
function eventStatusOf(status: string, written: string): EventStatus {
  if (status === 'CANCELLED') return 'canceled';
  return written.trim().toUpperCase() === 'POSTPONED' ? 'postponed' : 'scheduled';
}
