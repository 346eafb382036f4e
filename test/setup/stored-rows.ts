// Every row a write of the domain can touch, as one string: equal before and after a request
// proves the request changed nothing.
import type { Database } from '../../src/db/client.js';

export async function storedRows(db: Database): Promise<string> {
  const p = db.prisma;
  const order = { orderBy: { id: 'asc' as const } };
  return JSON.stringify(
    await Promise.all([
      p.event.findMany(order),
      p.venue.findMany(order),
      p.organizer.findMany(order),
      p.term.findMany(order),
      p.eventTerm.findMany({ orderBy: [{ eventId: 'asc' }, { termId: 'asc' }] }),
      p.eventVenue.findMany({ orderBy: [{ eventId: 'asc' }, { venueId: 'asc' }] }),
      p.eventOrganizer.findMany({ orderBy: [{ eventId: 'asc' }, { organizerId: 'asc' }] }),
      p.rsvp.findMany(order),
    ]),
    // An RSVP's place in the waiting list is a bigint, which JSON has no form of.
    (_, value) => (typeof value === 'bigint' ? String(value) : value),
  );
}
