// What the importer and the export share: the source an import records its mappings under
// (prisma/schema.prisma, ImportedItem.source; an exported event keeps its imported UID), and the
// property the iCalendar export writes an all-day event's zone in, which the importer reads back.

/** iCalendar files and feeds: an event's external ID is its UID (with `#RECURRENCE-ID` for an override). */
export const ICS_SOURCE = 'ics';

/** The IANA zone of an all-day event, beside its dates, which RFC 5545's dates cannot carry. */
export const DATES_ZONE = 'X-CALENDAR-EVENTS-TZID';
