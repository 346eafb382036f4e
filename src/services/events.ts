// Events: reads, and writes that run in one transaction with everything they link to (new venues,
// organizers and terms included), so that a failed write leaves nothing behind. Writes are true
// partial updates: a field that is not sent keeps its value (decisions.md, deviations).
import { Prisma as PrismaNS } from '../../generated/prisma/client.js';
import { effectiveAuthor, effectiveStatus, type PostStatus } from '../auth/permissions.js';
import type { Caller } from '../auth/roles.js';
import type { Prisma, Tx } from '../db/client.js';
import type { Precondition } from '../http/conditional.js';
import { invalidParams, notFound } from '../http/errors.js';
import { type CostInput } from '../lib/cost.js';
import { eventTimes, eventZone, fromWallClock } from '../lib/event-times.js';
import { startingWith } from '../lib/like.js';
import { linkedIdsForWrite, type LinksWrite, termIdsForWrite, type TermsWrite } from './event-links.js';
import { type LinkedKind, ORGANIZER, VENUE } from './linked-posts.js';
import {
  assertEditable,
  assertReadable,
  claimVersion,
  freeSlug,
  imageValue,
  lockPost,
  publicationDate,
  trashOrDelete,
  userExists,
  describeKey,
  type Key,
} from './posts.js';
import { selectEvents } from './event-rows.js';
import { retryOnConflict } from './retry.js';
import { CATEGORY, TAG } from './terms.js';

/** Everything the representation shows: what selectEvents loads, in the shape Prisma would give it. */
export const eventInclude = {
  venues: { include: { venue: true }, orderBy: [{ position: 'asc' }, { venueId: 'asc' }] },
  organizers: { include: { organizer: true }, orderBy: [{ position: 'asc' }, { organizerId: 'asc' }] },
  terms: { include: { term: true } },
} satisfies PrismaNS.EventInclude;

export type EventRow = PrismaNS.EventGetPayload<{ include: typeof eventInclude }>;

export interface EventInput {
  title?: string;
  start_date?: string | number;
  end_date?: string | number;
  author?: number;
  date?: string | number;
  date_utc?: string | number;
  description?: string;
  slug?: string;
  excerpt?: string;
  status?: PostStatus;
  timezone?: string;
  all_day?: boolean;
  image?: string | number;
  cost?: CostInput;
  website?: string;
  show_map?: boolean;
  show_map_link?: boolean;
  hide_from_listings?: boolean;
  sticky?: boolean;
  featured?: boolean;
  categories?: TermsWrite;
  tags?: TermsWrite;
  venue?: LinksWrite;
  organizer?: LinksWrite;
}

export type { Key } from './posts.js';

/** The event an ID or slug names, with everything its representation shows, or undefined. */
async function findEvent(prisma: Prisma | Tx, key: Key): Promise<EventRow | undefined> {
  const where = 'id' in key ? PrismaNS.sql`e.id = ${key.id}::int` : PrismaNS.sql`e.slug = ${key.slug}::text`;
  return (await selectEvents(prisma, { where }))[0];
}

export async function getEvent(prisma: Prisma, caller: Caller, key: Key): Promise<EventRow> {
  const row = await findEvent(prisma, key);
  if (!row) throw notFound('event', describeKey(key));
  assertReadable('event', caller, row);
  return row;
}

export async function createEvent(
  prisma: Prisma,
  caller: Caller,
  input: EventInput,
  siteZone: string,
): Promise<EventRow> {
  return retryOnConflict(() =>
    prisma.$transaction(async (tx) => {
      const title = input.title!.trim();
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
      await writeLinks(tx, caller, id, input, siteZone);
      return id;
    }),
  ).then((id) => readBack(prisma, id));
}

export async function updateEvent(
  prisma: Prisma,
  caller: Caller,
  key: Key,
  input: EventInput,
  siteZone: string,
  precondition?: Precondition,
): Promise<EventRow> {
  return retryOnConflict(() =>
    prisma.$transaction(async (tx) => {
      const id = await lockPost(tx, 'events', key);
      const current = id === undefined ? null : await tx.event.findUnique({ where: { id } });
      if (!current) throw notFound('event', describeKey(key));
      assertEditable(caller, current);
      await claimVersion(tx.event, current.id, precondition);
      const title = input.title?.trim() ?? current.title;
      const publishedAt = publicationDate(input, siteZone);
      await tx.event.update({
        where: { id: current.id },
        data: {
          ...columns(input),
          ...times(input, current, siteZone),
          title,
          slug:
            input.slug !== undefined && input.slug !== current.slug
              ? await freeSlug(input.slug, title, 'event', (base) => takenSlugs(tx, base, current.id))
              : current.slug,
          status: effectiveStatus(caller, input.status, current.status),
          authorId: await effectiveAuthor(caller, input.author, current.authorId, (user) => userExists(tx, user)),
          modifiedAt: new Date(),
          ...(publishedAt ? { publishedAt } : {}),
        },
      });
      await writeLinks(tx, caller, current.id, input, siteZone);
      return current.id;
    }),
  ).then((id) => readBack(prisma, id));
}

/** The event as stored, read after the write's transaction has committed. */
async function readBack(prisma: Prisma, id: number): Promise<EventRow> {
  const row = await findEvent(prisma, { id });
  if (!row) throw notFound('event', id); // deleted by another request in between
  return row;
}

/** To the trash, or for good with `force`; answers the event as it is after the trash, or as it was. */
export async function deleteEvent(
  prisma: Prisma,
  caller: Caller,
  key: Key,
  force: boolean,
  precondition?: Precondition,
): Promise<EventRow> {
  const before = await retryOnConflict(() =>
    prisma.$transaction(async (tx) => {
      // Read under the row's lock, so that the answer to a delete for good is the event as it was deleted.
      const id = await lockPost(tx, 'events', key);
      const current = id === undefined ? undefined : await findEvent(tx, { id });
      if (!current) throw notFound('event', describeKey(key));
      assertEditable(caller, current);
      await claimVersion(tx.event, current.id, precondition);
      await trashOrDelete('event', caller, current, force, {
        trash: () => tx.event.update({ where: { id: current.id }, data: { status: 'trash', modifiedAt: new Date() } }),
        remove: () => tx.event.delete({ where: { id: current.id } }),
      });
      return current;
    }),
  );
  return force ? before : readBack(prisma, before.id);
}

type EventColumns = Omit<
  PrismaNS.EventUncheckedCreateInput,
  'title' | 'slug' | 'startLocal' | 'endLocal' | 'startUtc' | 'endUtc' | 'timezone'
>;

/** The columns a write sets as sent: text, flags, cost, website and image. */
function columns(input: EventInput): EventColumns {
  const text = (value: string | undefined) => (value === undefined ? undefined : value.trim());
  const emptyCost = input.cost === '' || (Array.isArray(input.cost) && input.cost.length === 0);
  return {
    description: text(input.description),
    excerpt: text(input.excerpt),
    // The cost is kept as given; `cost` and `cost_details` are derived from it when it is shown.
    cost: input.cost === undefined ? undefined : input.cost === null || emptyCost ? PrismaNS.DbNull : input.cost,
    website: input.website === undefined ? undefined : input.website.trim() || null,
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
    throw invalidParams({
      timezone: 'timezone must be an IANA time zone such as Europe/Paris, or an offset such as UTC+2.',
    });
  const allDay = input.all_day ?? current?.allDay ?? false;
  const start = input.start_date ?? fromWallClock(current!.startLocal, zone);
  const end = input.end_date ?? fromWallClock(current!.endLocal, zone);
  const result = eventTimes(start, end, zone, allDay);
  if ('field' in result) throw invalidParams({ [result.field]: result.message });
  return { ...result, timezone: zone.name, allDay };
}

/** Replaces the links a write sends; links it does not send stay as they are. */
async function writeLinks(tx: Tx, caller: Caller, eventId: number, input: EventInput, siteZone: string) {
  const linked = async (kind: LinkedKind, value: LinksWrite | undefined) =>
    value === undefined ? undefined : linkedIdsForWrite(tx, kind, caller, value, siteZone);
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
    const ids = await termIdsForWrite(tx, caller, taxonomy, field, value);
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
