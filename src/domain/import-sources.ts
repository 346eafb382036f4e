// What the importer and the export share: the source an import records its mappings under
// (prisma/schema.prisma, ImportedItem.source; an exported event keeps its imported UID), and the
// property the iCalendar export writes an all-day event's zone in, which the importer reads back.

/** iCalendar files and feeds: an event's external ID is its UID (with `#RECURRENCE-ID` for an override). */
export const ICS_SOURCE = 'ics';

/**
 * CalDAV clients' PUTs, keyed as iCalendar files are, but a source of their own: a UID a client
 * writes is never the item an import of the same UID made, nor the reverse (docs/decisions.md, "CalDAV").
 */
export const CALDAV_SOURCE = 'caldav';

/** The sources whose events' external IDs are UIDs, which an event may be exported with (ledger.ts exportUid). */
export const UID_SOURCES: ReadonlySet<string> = new Set([ICS_SOURCE, CALDAV_SOURCE]);

/** The IANA zone of an all-day event, beside its dates, which RFC 5545's dates cannot carry. */
export const DATES_ZONE = 'X-CALENDAR-EVENTS-TZID';
