// Events: reads, and writes that run in one transaction with everything they link to (new venues,
// organizers and terms included), so that a failed write leaves nothing behind. Writes are true
// partial updates: a field that is not sent keeps its value (docs/decisions.md, "Writes are partial
// updates").
import type { components } from '../../generated/api.js';
import { Prisma as PrismaNS } from '../../generated/prisma/client.js';
import { effectiveAuthor, effectiveStatus } from '../auth/permissions.js';
import type { Prisma, Tx } from '../db/client.js';
import { InvalidInput, NotFound } from '../domain/errors.js';
import { describeKey, type Key } from '../domain/posts.js';
import { CATEGORY, type EventRecord, ORGANIZER, TAG, VENUE, type VenueOrOrganizerKind } from '../domain/records.js';
import { eventTimes, eventZone, fromWallClock } from '../lib/event-times.js';
import { startingWith } from '../lib/like.js';
import { selectEvents } from '../queries/event-rows.js';
import type { ServiceContext } from './context.js';
import { type LinksWrite, termIdsForWrite, venueOrOrganizerIdsForWrite } from './event-links.js';
import { lockForWrite, type PostTable, slugForUpdate, trashOrDelete } from './post-writes.js';
import { assertReadable, freeSlug, imageValue, type PostHead, publicationDate, userExists } from './posts.js';
import { inTransaction } from './retry.js';

/** A write of an event, as the document defines it: every field optional (an update). */
export type EventInput = components['schemas']['EventFields'];

/** The event an ID or slug names, with everything its representation shows, or undefined. */
async function findEvent(db: Prisma | Tx, key: Key): Promise<EventRecord | undefined> {
  const where = 'id' in key ? PrismaNS.sql`e.id = ${key.id}::int` : PrismaNS.sql`e.slug = ${key.slug}::text`;
  return (await selectEvents(db, { where }))[0];
}

export async function getEvent(ctx: ServiceContext, key: Key): Promise<EventRecord> {
  const row = await findEvent(ctx.db, key);
  if (!row) throw new NotFound('event', describeKey(key));
  assertReadable('event', ctx.caller, row);
  return row;
}

export async function createEvent(
  ctx: ServiceContext,
  input: components['schemas']['EventInput'],
): Promise<EventRecord> {
  const { caller, siteZone } = ctx;
  const id = await inTransaction(ctx, async (tx) => {
    const title = input.title.trim();
    const publishedAt = publicationDate(input, siteZone);
    const { id } = await tx.event.create({
      data: {
        ...columns(input),
        ...times(input, undefined, siteZone),
        title,
        slug: await freeSlug(input.slug, title, 'event', (base) => takenSlugs(tx, base, undefined)),
        status: effectiveStatus(caller, input.status),
        authorId: await effectiveAuthor(caller, input.author, undefined, (user) => userExists(tx, user)),
        ...(publishedAt ? { publishedAt } : {}),
      },
      select: { id: true },
    });
    await writeLinks(tx, ctx, id, input);
    return id;
  });
  return readBack(ctx.db, id);
}

export async function updateEvent(ctx: ServiceContext, key: Key, input: EventInput): Promise<EventRecord> {
  const { caller, siteZone } = ctx;
  const id = await inTransaction(ctx, async (tx) => {
    const current = await lockForWrite(
      tx,
      ctx,
      eventTable(tx, (id) => tx.event.findUnique({ where: { id } })),
      key,
    );
    const title = input.title?.trim() ?? current.title;
    const publishedAt = publicationDate(input, siteZone);
    await tx.event.update({
      where: { id: current.id },
      data: {
        ...columns(input),
        ...times(input, current, siteZone),
        title,
        slug: await slugForUpdate(input.slug, current, title, 'event', (base) => takenSlugs(tx, base, current.id)),
        status: effectiveStatus(caller, input.status, current.status),
        authorId: await effectiveAuthor(caller, input.author, current.authorId, (user) => userExists(tx, user)),
        modifiedAt: new Date(),
        ...(publishedAt ? { publishedAt } : {}),
      },
    });
    await writeLinks(tx, ctx, current.id, input);
    return current.id;
  });
  return readBack(ctx.db, id);
}

/** The event as stored, read after the write's transaction has committed. */
async function readBack(db: Prisma, id: number): Promise<EventRecord> {
  const row = await findEvent(db, { id });
  if (!row) throw new NotFound('event', id); // deleted by another request in between
  return row;
}

/** To the trash, or for good with `force`; answers the event as it is after the trash, or as it was. */
export async function deleteEvent(ctx: ServiceContext, key: Key, force: boolean): Promise<EventRecord> {
  const before = await inTransaction(ctx, async (tx) => {
    // Read under the row's lock, so that the answer to a delete for good is the event as it was deleted.
    const current = await lockForWrite(
      tx,
      ctx,
      eventTable(tx, (id) => findEvent(tx, { id })),
      key,
    );
    await trashOrDelete(ctx, 'event', current, force, {
      trash: () => tx.event.update({ where: { id: current.id }, data: { status: 'trash', modifiedAt: new Date() } }),
      remove: () => tx.event.delete({ where: { id: current.id } }),
    });
    return current;
  });
  return force ? before : readBack(ctx.db, before.id);
}

function eventTable<Row extends PostHead>(tx: Tx, read: PostTable<Row>['read']): PostTable<Row> {
  return { type: 'event', name: 'events', read, delegate: tx.event };
}

type EventColumns = Omit<
  PrismaNS.EventUncheckedCreateInput,
  'title' | 'slug' | 'startLocal' | 'endLocal' | 'startUtc' | 'endUtc' | 'timezone'
>;

/** The columns a write sets as sent: text, flags, cost, website and image. */
function columns(input: EventInput): EventColumns {
  const text = (value: string | undefined) => (value === undefined ? undefined : value.trim());
  // Null, though the schema has none, clears the cost as an empty one does.
  const cost = input.cost as EventInput['cost'] | null;
  const emptyCost = cost === '' || (Array.isArray(cost) && cost.length === 0);
  // The Url schema is a string ('' clears it); openapi-typescript reads its anyOf as unknown.
  const website = input.website as string | undefined;
  return {
    description: text(input.description),
    excerpt: text(input.excerpt),
    // The cost is kept as given; `cost` and `cost_details` are derived from it when it is shown.
    cost: cost === undefined ? undefined : cost === null || emptyCost ? PrismaNS.DbNull : cost,
    website: website === undefined ? undefined : website.trim() || null,
    image: imageValue(input.image),
    showMap: input.show_map,
    showMapLink: input.show_map_link,
    hideFromListings: input.hide_from_listings,
    sticky: input.sticky,
    featured: input.featured,
  };
}

interface StoredTimes {
  timezone: string;
  allDay: boolean;
  startLocal: Date;
  endLocal: Date;
}

/**
 * Zone, all-day flag and times after a write. What is not sent keeps its value: a new zone keeps
 * the wall-clock times (the event still starts at 19:30, now in the new zone), and turning
 * `all_day` on widens the stored times to whole days.
 */
function times(input: EventInput, current: StoredTimes | undefined, siteZone: string) {
  const zoneName = input.timezone === undefined ? (current?.timezone ?? siteZone) : input.timezone.trim() || siteZone;
  const zone = eventZone(zoneName);
  if (!zone)
    throw new InvalidInput({
      timezone: 'timezone must be an IANA time zone such as Europe/Paris, or an offset such as UTC+2.',
    });
  const allDay = input.all_day ?? current?.allDay ?? false;
  const stored = (time: (t: StoredTimes) => Date) => {
    // A create has both (the document requires them), so only an update falls back on the stored times.
    if (!current) throw new Error('start_date and end_date are required to create an event');
    return fromWallClock(time(current), zone);
  };
  const start = input.start_date ?? stored((t) => t.startLocal);
  const end = input.end_date ?? stored((t) => t.endLocal);
  const result = eventTimes(start, end, zone, allDay);
  if ('field' in result) throw new InvalidInput({ [result.field]: result.message });
  return { ...result, timezone: zone.name, allDay };
}

/** Replaces the links a write sends; links it does not send stay as they are. */
async function writeLinks(tx: Tx, ctx: ServiceContext, eventId: number, input: EventInput) {
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

async function takenSlugs(tx: Tx, base: string, self: number | undefined): Promise<string[]> {
  const rows = await tx.event.findMany({
    where: { slug: startingWith(base), ...(self ? { id: { not: self } } : {}) },
    select: { slug: true },
  });
  return rows.map((r) => r.slug);
}
