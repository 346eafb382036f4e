// The event list (specification 4.2.1, decisions.md "Lists"): a date window on the start, filters
// AND-ed together with values OR-ed within one filter, hidden events never listed, ordered by start
// and then ID. One count and one page query, whatever the filters.
import { DateTime } from 'luxon';
import type { Prisma as PrismaNS } from '../../generated/prisma/client.js';
import { listVisibility, type PostStatus } from '../auth/permissions.js';
import type { Caller } from '../auth/roles.js';
import type { Prisma } from '../db/client.js';
import { invalidParams } from '../http/errors.js';
import { formatDateTime, parseDateInput } from '../lib/dates.js';
import { containing } from '../lib/like.js';
import type { Page, QueryArgs } from '../lib/pagination.js';
import { assertLinkedExist, termIdsForFilter } from './event-links.js';
import { eventInclude, type EventRow } from './events.js';
import { ORGANIZER, VENUE } from './linked-posts.js';
import { CATEGORY, TAG } from './terms.js';

export interface EventListQuery {
  start_date?: string | number;
  end_date?: string | number;
  search?: string;
  categories?: Array<string | number>;
  tags?: Array<string | number>;
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
  const and: PrismaNS.EventWhereInput[] = [listVisibility(caller, q.status), { hideFromListings: false }];
  const window = q.include ? undefined : dateWindow(q, siteZone, now);
  if (window) and.push({ startUtc: { gte: window.start.toJSDate(), lte: window.end.toJSDate() } });
  if (q.include) and.push({ id: { in: q.include } });
  if (q.search) {
    and.push({ OR: [{ title: containing(q.search) }, { description: containing(q.search) }] });
  }
  if (q.categories?.length) {
    const ids = await termIdsForFilter(prisma, CATEGORY, 'categories', q.categories);
    and.push({ terms: { some: { termId: { in: ids } } } });
  }
  if (q.tags?.length) {
    const ids = await termIdsForFilter(prisma, TAG, 'tags', q.tags);
    and.push({ terms: { some: { termId: { in: ids } } } });
  }
  if (q.venue?.length) {
    await assertLinkedExist(prisma, VENUE, q.venue);
    and.push({ venues: { some: { venueId: { in: q.venue } } } });
  }
  if (q.organizer?.length) {
    await assertLinkedExist(prisma, ORGANIZER, q.organizer);
    and.push({ organizers: { some: { organizerId: { in: q.organizer } } } });
  }
  if (q.featured !== undefined) and.push({ featured: q.featured });
  if (q.post_parent !== undefined) {
    if (!(await prisma.event.findUnique({ where: { id: q.post_parent }, select: { id: true } }))) {
      throw invalidParams({ post_parent: 'post_parent is not the ID of an event.' });
    }
    and.push({ parentId: q.post_parent });
  }
  const located = { geoLat: { not: null }, geoLng: { not: null } } satisfies PrismaNS.VenueWhereInput;
  if (q.geoloc === true) and.push({ venues: { some: { venue: located } } });
  if (q.geoloc === false) and.push({ venues: { none: { venue: located } } });
  if ((q.geoloc_lat === undefined) !== (q.geoloc_lng === undefined)) {
    const missing = q.geoloc_lat === undefined ? 'geoloc_lat' : 'geoloc_lng';
    throw invalidParams({ [missing]: 'geoloc_lat and geoloc_lng must be given together.' });
  }
  if (q.geoloc_lat !== undefined && q.geoloc_lng !== undefined) {
    const venues = await venuesNear(prisma, q.geoloc_lat, q.geoloc_lng);
    and.push({ venues: { some: { venueId: { in: venues } } } });
  }

  const where = { AND: and };
  const [total, items] = await Promise.all([
    prisma.event.count({ where }),
    prisma.event.findMany({
      where,
      include: eventInclude,
      orderBy: [{ startUtc: 'asc' }, { id: 'asc' }],
      skip: page.offset,
      take: page.perPage,
    }),
  ]);
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
  return { start: read('start_date', defaults.start).set({ millisecond: 0 }), end: read('end_date', defaults.end).set({ millisecond: 0 }) };
}

/** IDs of venues within the geofence of a point: a box on the indexed columns, then the true distance. */
async function venuesNear(prisma: Prisma, lat: number, lng: number): Promise<number[]> {
  const dLat = (GEOFENCE_KM / 6371) * (180 / Math.PI);
  const dLng = dLat / Math.max(Math.cos((lat * Math.PI) / 180), 1e-6);
  const wraps = lng - dLng < -180 || lng + dLng > 180;
  const candidates = await prisma.venue.findMany({
    where: {
      geoLat: { gte: lat - dLat, lte: lat + dLat },
      geoLng: wraps ? { not: null } : { gte: lng - dLng, lte: lng + dLng },
    },
    select: { id: true, geoLat: true, geoLng: true },
  });
  return candidates.filter((v) => distanceKm(lat, lng, v.geoLat!, v.geoLng!) <= GEOFENCE_KM).map((v) => v.id);
}

/** Great-circle distance (haversine) on a sphere of the Earth's mean radius. */
export function distanceKm(lat1: number, lng1: number, lat2: number, lng2: number): number {
  const rad = (deg: number) => (deg * Math.PI) / 180;
  const a = Math.sin(rad(lat2 - lat1) / 2) ** 2 + Math.cos(rad(lat1)) * Math.cos(rad(lat2)) * Math.sin(rad(lng2 - lng1) / 2) ** 2;
  return 2 * 6371 * Math.asin(Math.min(1, Math.sqrt(a)));
}
