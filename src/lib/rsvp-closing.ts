// When RSVP to an event closes. Stored as seconds before the start (migration rsvps), so that each
// date of a series closes as long before its own start as the series does; shown as an instant.

/** The start less the stored seconds; at the start when none are stored. */
export const closesAt = (startUtc: Date, closesBeforeSeconds: number | null): Date =>
  new Date(startUtc.getTime() - (closesBeforeSeconds ?? 0) * 1000);
