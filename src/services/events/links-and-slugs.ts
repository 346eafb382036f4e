// An update's links replaced, and the slugs taken that a new slug must avoid.
import type { Tx } from '../../db/client.js';
import { CATEGORY, ORGANIZER, TAG, VENUE, type VenueOrOrganizerKind } from '../../domain/records.js';
import { startingWith } from '../../lib/like.js';
import type { ServiceContext } from '../context.js';
import { type LinksWrite, termIdsForWrite, venueOrOrganizerIdsForWrite } from '../event-links.js';
import type { EventInput } from './input.js';

/** Replaces the links an update sends; links it does not send stay as they are. */
export async function writeLinks(tx: Tx, ctx: ServiceContext, eventId: number, input: EventInput) {
  const linked = async (kind: VenueOrOrganizerKind, value: LinksWrite | undefined) =>
    value === undefined ? undefined : venueOrOrganizerIdsForWrite(tx, ctx, kind, value);
  const venues = await linked(VENUE, input.venue);
  const organizers = await linked(ORGANIZER, input.organizer);
  if (venues) {
    await tx.eventVenue.deleteMany({ where: { eventId } });
    await tx.eventVenue.createMany({ data: venues.map((venueId, position) => ({ eventId, venueId, position })) });
  }
  if (organizers) {
    await tx.eventOrganizer.deleteMany({ where: { eventId } });
    await tx.eventOrganizer.createMany({
      data: organizers.map((organizerId, position) => ({ eventId, organizerId, position })),
    });
  }
  for (const [taxonomy, field, value] of [
    [CATEGORY, 'categories', input.categories],
    [TAG, 'tags', input.tags],
  ] as const) {
    if (value === undefined) continue;
    const ids = await termIdsForWrite(tx, ctx, taxonomy, field, value);
    await tx.eventTerm.deleteMany({ where: { eventId, term: { taxonomy } } });
    await tx.eventTerm.createMany({ data: ids.map((termId) => ({ eventId, termId })) });
  }
}

export async function takenSlugs(tx: Tx, base: string, self: number | undefined): Promise<string[]> {
  const rows = await tx.event.findMany({
    where: { slug: startingWith(base), ...(self ? { id: { not: self } } : {}) },
    select: { slug: true },
  });
  return rows.map((r) => r.slug);
}
