// The event list (specification 4.2.1, decisions.md "Lists"): a date window on the start, filters
// AND-ed together with values OR-ed within one filter, hidden events never listed, ordered by start
// and then ID. One count and one page query, written in SQL (the page through selectEvents).
import { DateTime } from 'luxon';
import { Prisma as PrismaNS } from '../../generated/prisma/client.js';
import { type ListScope, listScope, type PostStatus } from '../auth/permissions.js';
import type { Caller } from '../auth/roles.js';
import type { Prisma } from '../db/client.js';
import { selectRows } from '../db/reads.js';
import { invalidParams } from '../http/errors.js';
import { DAY_MS, formatDateTime, parseDateInput } from '../lib/dates.js';
import { containingPattern } from '../lib/like.js';
import type { Page, QueryArgs } from '../lib/pagination.js';
import { assertLinkedExist, termIdsForFilter } from './event-links.js';
import { selectEventPage, selectEvents } from './event-rows.js';
import { readableEvent } from './posts.js';
import { inScope, isPublic, scopeWhere } from './list-scope.js';
import type { EventRow } from './events.js';
import { ORGANIZER, VENUE } from './linked-posts.js';
import { CATEGORY, TAG } from './terms.js';

const sql = PrismaNS.sql;

export interface EventListQuery {
  start_date?: string | number;
  end_date?: string | number;
  search?: string;
  categories?: (string | number)[];
  tags?: (string | number)[];
  venue?: number[];
  organizer?: number[];
  featured?: boolean;
  status?: PostStatus[];
  geoloc?: boolean;
  geoloc_lat?: number;
  geoloc_lng?: number;
  include?: number[];
  post_parent?: number;
}

/** How far from `geoloc_lat`/`geoloc_lng` a venue may be: 25 miles, the usual calendar geofence. */
export const GEOFENCE_KM = 40.2336;
/** The window a list covers when it names no dates: from now until two years ahead. */
export function defaultWindow(now: Date | DateTime) {
  const start = (now instanceof Date ? DateTime.fromJSDate(now) : now).set({ millisecond: 0 });
  return { start, end: start.plus({ years: 2 }) };
}

export interface EventListResult {
  total: number;
  items: EventRow[];
  /** The filters as applied, for the page links: dates normalized, everything else as given. */
  args: QueryArgs;
}

export async function listEvents(
  prisma: Prisma,
  caller: Caller,
  q: EventListQuery,
  page: Page,
  siteZone: string,
  now = DateTime.now(),
): Promise<EventListResult> {
  const scope = listScope(caller, q.status);
  const and = [inScope(scope, 'e'), sql`NOT e.hide_from_listings`];
  const window = q.include ? undefined : dateWindow(q, siteZone, now);
  const between =
    window && sql`BETWEEN ${window.start.toJSDate()}::timestamptz AND ${window.end.toJSDate()}::timestamptz`;
  if (between) and.push(sql`e.start_utc ${between}`);
  // Links to the events of a public list carry their start (migration link_listed_start), so each
  // venue, organizer or term filter of such a list is a set of events read off one index, and the
  // sets are intersected before any event row is read. Other lists test each event's links.
  const publicWindow = between && isPublic(scope) ? between : undefined;
  const linkSets: PrismaNS.Sql[] = [];
  const linked = (table: 'event_venues' | 'event_organizers' | 'event_terms', column: string, ids: number[]) => {
    const [from, key] = [PrismaNS.raw(table), PrismaNS.raw(column)];
    if (publicWindow)
      linkSets.push(
        sql`SELECT l.event_id FROM ${from} l WHERE l.${key} = ANY(${ids}::int[]) AND l.listed_start_utc ${publicWindow}`,
      );
    else and.push(sql`EXISTS (SELECT 1 FROM ${from} l WHERE l.event_id = e.id AND l.${key} = ANY(${ids}::int[]))`);
  };
  // Everything below narrows the public window; without it the total can be read off the day counts.
  const narrowing = and.length;
  if (q.include) and.push(sql`e.id = ANY(${q.include}::int[])`);
  if (q.search) {
    const pattern = containingPattern(q.search);
    and.push(sql`(e.title ILIKE ${pattern} OR e.description ILIKE ${pattern})`);
  }
  if (q.categories?.length)
    linked('event_terms', 'term_id', await termIdsForFilter(prisma, CATEGORY, 'categories', q.categories));
  if (q.tags?.length) linked('event_terms', 'term_id', await termIdsForFilter(prisma, TAG, 'tags', q.tags));
  if (q.venue?.length) {
    await assertLinkedExist(prisma, VENUE, caller, q.venue);
    linked('event_venues', 'venue_id', q.venue);
  }
  if (q.organizer?.length) {
    await assertLinkedExist(prisma, ORGANIZER, caller, q.organizer);
    linked('event_organizers', 'organizer_id', q.organizer);
  }
  if (q.featured !== undefined) and.push(sql`e.featured = ${q.featured}::boolean`);
  if (q.post_parent !== undefined) {
    if (!(await readableEvent(prisma, caller, q.post_parent))) {
      throw invalidParams({ post_parent: 'post_parent is not the ID of an event.' });
    }
    and.push(sql`e.parent_id = ${q.post_parent}::int`);
  }
  // Only venues the caller may read place an event, as only they are shown with it (serializers/
  // events.ts readableLinks: what canRead allows, the trash aside, which is listScope without a
  // status): else probing the geofence would find where a draft or private venue is.
  const readableVenues = listScope(caller, undefined);
  const located = sql`EXISTS (SELECT 1 FROM event_venues l JOIN venues v ON v.id = l.venue_id
    WHERE l.event_id = e.id AND v.geo_lat IS NOT NULL AND v.geo_lng IS NOT NULL AND ${inScope(readableVenues, 'v')})`;
  if (q.geoloc === true) and.push(located);
  if (q.geoloc === false) and.push(sql`NOT ${located}`);
  if ((q.geoloc_lat === undefined) !== (q.geoloc_lng === undefined)) {
    const missing = q.geoloc_lat === undefined ? 'geoloc_lat' : 'geoloc_lng';
    throw invalidParams({ [missing]: 'geoloc_lat and geoloc_lng must be given together.' });
  }
  if (q.geoloc_lat !== undefined && q.geoloc_lng !== undefined)
    linked('event_venues', 'venue_id', await venuesNear(prisma, readableVenues, q.geoloc_lat, q.geoloc_lng));

  if (linkSets.length) and.push(sql`e.id IN (${PrismaNS.join(linkSets, ' INTERSECT ')})`);
  const where = PrismaNS.join(and, ' AND ');
  const selection = { where, orderBy: sql`ORDER BY e.start_utc, e.id`, take: page.perPage, skip: page.offset };
  let total: number;
  let items: EventRow[];
  if (window && and.length === narrowing && isPublic(scope)) {
    // The public list as it is: its page straight off the start index, its total off the day counts.
    [total, items] = await Promise.all([
      countListed(prisma, window.start.toJSDate(), window.end.toJSDate()),
      selectEvents(prisma, selection),
    ]);
  } else {
    const found = await selectEventPage(prisma, selection);
    items = found.items;
    total = found.total ?? (await count(prisma, where)); // a page past the end still tells the total
  }
  const args: QueryArgs = [
    ['start_date', window && formatDateTime(window.start, siteZone)],
    ['end_date', window && formatDateTime(window.end, siteZone)],
    ['search', q.search],
    ['categories', q.categories],
    ['tags', q.tags],
    ['venue', q.venue],
    ['organizer', q.organizer],
    ['featured', q.featured],
    ['status', q.status],
    ['geoloc', q.geoloc],
    ['geoloc_lat', q.geoloc_lat],
    ['geoloc_lng', q.geoloc_lng],
    ['include', q.include],
    ['post_parent', q.post_parent],
  ];
  return { total, items, args };
}

async function count(prisma: Prisma, where: PrismaNS.Sql): Promise<number> {
  const [row] = await selectRows<{ total: number }>(
    prisma,
    sql`SELECT count(*)::int AS total FROM events e WHERE ${where}`,
  );
  return row.total;
}

/**
 * How many events the public list has between two instants: whole UTC days from the day counts the
 * triggers keep (migration listed_events_per_day), the events of the first and last day counted one
 * by one on the partial index. The cost grows with the days in the window, not with the events.
 */
async function countListed(prisma: Prisma, start: Date, end: Date): Promise<number> {
  if (end < start) return 0;
  const firstDay = Math.floor(start.getTime() / DAY_MS) * DAY_MS;
  const lastDay = Math.floor(end.getTime() / DAY_MS) * DAY_MS;
  const date = (ms: number) => new Date(ms).toISOString().slice(0, 10);
  const [row] = await selectRows<{ total: number }>(
    prisma,
    sql`
    SELECT (SELECT coalesce(sum(events), 0) FROM listed_events_per_day
            WHERE day > ${date(firstDay)}::date AND day < ${date(lastDay)}::date)::int
         + (SELECT count(*) FROM events e WHERE e.status = 'publish' AND NOT e.hide_from_listings AND e.start_utc >= ${start}::timestamptz
            AND e.start_utc < ${new Date(Math.min(firstDay + DAY_MS, end.getTime() + 1))}::timestamptz)::int
         + (SELECT count(*) FROM events e WHERE e.status = 'publish' AND NOT e.hide_from_listings AND e.start_utc <= ${end}::timestamptz
            AND e.start_utc >= ${new Date(Math.max(lastDay, firstDay + DAY_MS))}::timestamptz)::int AS total`,
  );
  return row.total;
}

/**
 * The start window, read in the site's zone: by default from now to two years ahead. An end given
 * as a bare date (`2027-12-31`) means the end of that day, so the day itself is in the window.
 */
function dateWindow(q: EventListQuery, siteZone: string, now: DateTime) {
  const read = (field: 'start_date' | 'end_date', fallback: DateTime) => {
    const value = q[field];
    if (value === undefined) return fallback;
    const parsed = parseDateInput(value, siteZone, now);
    if (!parsed) throw invalidParams({ [field]: `${field} is not a date this service understands.` });
    const bareDate = typeof value === 'string' && /^\s*\d{4}-\d{2}-\d{2}\s*$/.test(value);
    return field === 'end_date' && bareDate ? parsed.endOf('day') : parsed;
  };
  const defaults = defaultWindow(now);
  return {
    start: read('start_date', defaults.start).set({ millisecond: 0 }),
    end: read('end_date', defaults.end).set({ millisecond: 0 }),
  };
}

/**
 * IDs of the venues in `scope` within the geofence of a point: a box on the indexed columns, then
 * the true distance.
 */
async function venuesNear(prisma: Prisma, scope: ListScope, lat: number, lng: number): Promise<number[]> {
  const dLat = (GEOFENCE_KM / 6371) * (180 / Math.PI);
  const dLng = dLat / Math.max(Math.cos((lat * Math.PI) / 180), 1e-6);
  const wraps = lng - dLng < -180 || lng + dLng > 180;
  const candidates = await prisma.venue.findMany({
    where: {
      geoLat: { gte: lat - dLat, lte: lat + dLat },
      geoLng: wraps ? { not: null } : { gte: lng - dLng, lte: lng + dLng },
      ...scopeWhere(scope),
    },
    select: { id: true, geoLat: true, geoLng: true },
  });
  return candidates.filter((v) => distanceKm(lat, lng, v.geoLat!, v.geoLng!) <= GEOFENCE_KM).map((v) => v.id);
}

/** Great-circle distance (haversine) on a sphere of the Earth's mean radius. */
export function distanceKm(lat1: number, lng1: number, lat2: number, lng2: number): number {
  const rad = (deg: number) => (deg * Math.PI) / 180;
  const a =
    Math.sin(rad(lat2 - lat1) / 2) ** 2 +
    Math.cos(rad(lat1)) * Math.cos(rad(lat2)) * Math.sin(rad(lng2 - lng1) / 2) ** 2;
  return 2 * 6371 * Math.asin(Math.min(1, Math.sqrt(a)));
}
