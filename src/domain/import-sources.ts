// The source an import records its mappings under (prisma/schema.prisma, ImportedItem.source), for
// the importer and for what reads the mappings back (an exported event keeps its imported UID).

/** iCalendar files and feeds: an event's external ID is its UID (with `#RECURRENCE-ID` for an override). */
export const ICS_SOURCE = 'ics';
