// The event list (docs/decisions.md, "Event list filters"): a date window on the start, filters
// AND-ed together with values OR-ed within one filter, hidden events never listed, ordered by start
// and then ID. Here the filters are checked and resolved (names to IDs, dates to instants, what the
// caller may read); queries/event-list.ts turns them into SQL.
import { DateTime } from 'luxon';
import type { operations } from '../../generated/api.js';
import { type ListScope, listScope } from '../auth/permissions.js';
import { Prisma } from '../../generated/prisma/client.js';
import type { PrismaClient } from '../db/client.js';
import { InvalidInput } from '../domain/errors.js';
import type { DecodedQuery } from '../domain/query-flags.js';
import { type AppliedFilters, appliedFilters, type Page } from '../domain/paging.js';
import { CATEGORY, type EventRecord, ORGANIZER, TAG, VENUE } from '../domain/records.js';
import { formatDateTime, parseDateInput } from '../lib/dates.js';
import { type EventBound, type EventListFilters, selectEventList, selectFeedIndex } from '../queries/event-list.js';
import { selectEvents } from '../queries/event-rows.js';
import { inScope, scopeWhere } from '../queries/list-scope.js';
import type { ServiceContext } from './context.js';
import { assertVenuesOrOrganizersExist, termIdsForFilter } from './event-links.js';
import { modifiedAfter, readableEvent } from './posts.js';

/** The filters of the list, as the document defines them. */
export type EventListQuery = Omit<
  DecodedQuery<NonNullable<operations['listEvents']['parameters']['query']>>,
  'page' | 'per_page'
>;

/** The filters page links repeat as they were given, after the normalized dates. */
const sql = Prisma.sql;

const LINKED_FILTERS = [
  'search',
  'categories',
  'tags',
  'venue',
  'organizer',
  'featured',
  'event_status',
  'is_virtual',
  'status',
  'geoloc',
  'geoloc_lat',
  'geoloc_lng',
  'include',
  'post_parent',
  'single_events',
  'ticketed',
] as const;

/** How far from `geoloc_lat`/`geoloc_lng` a venue may be: 25 miles, the usual calendar geofence. */
export const GEOFENCE_KM = 40.2336;

/** The window a list covers when it names no dates: from now until two years ahead. */
export function defaultWindow(now: Date | DateTime) {
  const start = (now instanceof Date ? DateTime.fromJSDate(now) : now).set({ millisecond: 0 });
  return { start, end: start.plus({ years: 2 }) };
}

export interface EventListResult {
  total: number;
  items: EventRecord[];
  /** The filters as applied, for the page links: dates normalized, everything else as given. */
  applied: AppliedFilters;
}

/**
 * A calendar feed, which an application subscribes to and replaces whole on each refresh, is not
 * paged: it holds up to this many events, the nearest first.
 */
export const FEED_MAX_EVENTS = 1000;
/** How long a feed keeps an event after it ended, so that a subscribed calendar keeps the recent past. */
export const FEED_PAST_DAYS = 30;

export async function listEvents(ctx: ServiceContext, q: EventListQuery, page: Page): Promise<EventListResult> {
  const { filters, applied } = await resolveFilters(ctx, q, false);
  const { total, items } = await selectEventList(ctx.db, filters, { take: page.perPage, skip: page.offset });
  return { total, items, applied };
}

/** A feed's text stops short of this many bytes, leaving out its farthest events (FEED_MAX_EVENTS). */
export const FEED_MAX_BYTES = 10 * 1024 * 1024;
/**
 * A feed's events are read this many at a time: the embedded database runs each statement on the
 * event loop's thread, and a hundred events with their links and long descriptions held it for
 * 40 ms (test/http/event-loop.test.ts); a quarter of that stays within a slice (lib/slices.ts).
 */
const FEED_READ = 25;

export interface FeedIndex {
  /** The feed's events, nearest first, at most FEED_MAX_EVENTS. */
  ids: number[];
  /** How many events match in all. */
  total: number;
  /** Changes whenever what the feed shows of its events changes (queries/event-list.ts selectFeedIndex). */
  digest: string;
  /** What the caller may read, checked again as the events are read. */
  scope: ListScope;
}

/** What a calendar feed holds, without reading its events yet. */
export async function feedIndex(ctx: ServiceContext, q: EventListQuery): Promise<FeedIndex> {
  const { filters } = await resolveFilters(ctx, q, true);
  return { ...(await selectFeedIndex(ctx.db, filters, FEED_MAX_EVENTS)), scope: filters.scope };
}

/**
 * The feed's events, in its order, read a slice at a time. One deleted since the index was read is
 * left out, and so is one the caller may no longer read (its status changed meanwhile).
 */
export async function feedEvents(ctx: ServiceContext, index: FeedIndex): Promise<EventRecord[]> {
  const rows: EventRecord[] = [];
  for (let from = 0; from < index.ids.length; from += FEED_READ) {
    const ids = index.ids.slice(from, from + FEED_READ);
    const where = sql`e.id = ANY(${ids}::int[]) AND ${inScope(index.scope, 'e')}`;
    const found = new Map((await selectEvents(ctx.db, { where })).map((row) => [row.id, row]));
    for (const id of ids) {
      const row = found.get(id);
      if (row) rows.push(row);
    }
  }
  return rows;
}

/** The list's filters checked and resolved (names to IDs, dates to instants, what the caller may read). */
async function resolveFilters(
  ctx: ServiceContext,
  q: EventListQuery,
  feed: boolean,
): Promise<{ filters: EventListFilters; applied: AppliedFilters }> {
  const { db, caller, siteZone } = ctx;
  const scope = listScope(caller, q.status);
  const dates = dateFilters(q, siteZone, DateTime.fromJSDate(ctx.now), feed);
  const changedSince = modifiedAfter(q.modified_after, ctx);
  const termSets = await resolveTermFilters(ctx, q);
  await checkLinkFilters(ctx, q);
  // Only venues the caller may read place an event, as only they are shown with it (serializers/
  // events.ts readableLinks: what canRead allows, the trash aside, which is listScope without a
  // status): else probing the geofence would find where a draft or private venue is.
  const readableVenues = listScope(caller, undefined);
  const filters: EventListFilters = {
    scope,
    window: dates.window && { start: dates.window.start.toJSDate(), end: dates.window.end.toJSDate() },
    bounds: changedSince ? [...dates.bounds, { column: 'modified_at', operator: '>', at: changedSince }] : dates.bounds,
    ticketed: q.ticketed === undefined ? undefined : { open: q.ticketed, now: ctx.now },
    include: q.include,
    search: q.search,
    order: { by: q.orderby ?? 'start_date', direction: q.order ?? 'asc' },
    termSets,
    venues: nonEmpty(q.venue),
    organizers: nonEmpty(q.organizer),
    featured: q.featured,
    eventStatuses: nonEmpty(q.event_status),
    virtual: q.is_virtual,
    parent: q.post_parent,
    singleEvents: q.single_events ?? true,
    located: q.geoloc,
    readableVenues,
    nearVenues:
      q.geoloc_lat !== undefined && q.geoloc_lng !== undefined
        ? await venuesNear(db, readableVenues, q.geoloc_lat, q.geoloc_lng)
        : undefined,
  };
  const applied: AppliedFilters = [
    ...dates.applied,
    ...appliedFilters(q, LINKED_FILTERS),
    ...appliedFilters(q, ['modified_after']),
    // The order travels in the page links when it is not the default.
    ['orderby', q.orderby === 'start_date' ? undefined : q.orderby],
    ['order', q.order === 'asc' ? undefined : q.order],
  ];
  return { filters, applied };
}

const nonEmpty = <T>(list: T[] | undefined) => (list?.length ? list : undefined);

/** The term IDs of the `categories` and `tags` filters, a set for each filter given. */
async function resolveTermFilters(ctx: ServiceContext, q: EventListQuery): Promise<number[][]> {
  const termSets: number[][] = [];
  if (q.categories?.length) termSets.push(await termIdsForFilter(ctx.db, CATEGORY, 'categories', q.categories));
  if (q.tags?.length) termSets.push(await termIdsForFilter(ctx.db, TAG, 'tags', q.tags));
  return termSets;
}

/** Checks that the venues, organizers and parent event the filters name exist, and that a point is whole. */
async function checkLinkFilters(ctx: ServiceContext, q: EventListQuery): Promise<void> {
  if (q.venue?.length) await assertVenuesOrOrganizersExist(ctx, VENUE, q.venue);
  if (q.organizer?.length) await assertVenuesOrOrganizersExist(ctx, ORGANIZER, q.organizer);
  if (q.post_parent !== undefined && !(await readableEvent(ctx.db, ctx.caller, q.post_parent))) {
    throw new InvalidInput({ post_parent: 'post_parent is not the ID of an event.' });
  }
  if ((q.geoloc_lat === undefined) !== (q.geoloc_lng === undefined)) {
    const missing = q.geoloc_lat === undefined ? 'geoloc_lat' : 'geoloc_lng';
    throw new InvalidInput({ [missing]: 'geoloc_lat and geoloc_lng must be given together.' });
  }
}

/** The relative date filters, each a strict bound on the start or the end of an event. */
const RELATIVE_FILTERS = {
  starts_before: { column: 'start_utc', operator: '<' },
  starts_after: { column: 'start_utc', operator: '>' },
  ends_before: { column: 'end_utc', operator: '<' },
  ends_after: { column: 'end_utc', operator: '>' },
} as const;
type RelativeFilter = keyof typeof RELATIVE_FILTERS;

export interface DateFilters {
  window?: { start: DateTime; end: DateTime };
  bounds: EventBound[];
  /** The date filters as applied, for the page links. */
  applied: AppliedFilters;
}

/**
 * The date filters, read in the site's zone (docs/decisions.md, "Event list filters"). Without a
 * relative filter the list is the window of `start_date` and `end_date`, by default from now to two
 * years ahead; an end given as a bare date (`2027-12-31`) means the end of that day. Any relative
 * filter (`starts_before`, ...) drops the default window; `start_date` and `end_date` apply only when
 * given. `include` drops every date filter.
 */
export function dateFilters(q: EventListQuery, siteZone: string, now: DateTime, feed: boolean): DateFilters {
  if (q.include) return { bounds: [], applied: [] };
  const read = (field: 'start_date' | 'end_date' | RelativeFilter) => {
    const value = q[field];
    if (value === undefined) return undefined;
    const parsed = parseDateInput(value, siteZone, now);
    if (!parsed) throw new InvalidInput({ [field]: `${field} is not a date this service understands.` });
    const bareDate = typeof value === 'string' && /^\s*\d{4}-\d{2}-\d{2}\s*$/.test(value);
    // A bare end date covers its whole day, unless the dates are strict (reference part 2.3).
    return inRange(
      field,
      (field === 'end_date' && bareDate && !q.strict_dates ? parsed.endOf('day') : parsed).set({ millisecond: 0 }),
    );
  };
  const [start, end] = [read('start_date'), read('end_date')];
  const format = (instant: DateTime | undefined) => instant && formatDateTime(instant, siteZone);
  const relative = (Object.keys(RELATIVE_FILTERS) as RelativeFilter[]).filter((f) => q[f] !== undefined);
  // Polling for changes (`modified_after`) wants every changed event, not those of the coming years.
  const ownWindow = relative.length > 0 || q.modified_after !== undefined;
  if (!ownWindow && feed && !start && !end) return feedDefaultDates(now);
  if (!ownWindow) {
    const defaults = defaultWindow(now);
    const window = { start: start ?? defaults.start, end: end ?? defaults.end };
    return {
      window,
      bounds: [],
      applied: [
        ['start_date', format(window.start)],
        ['end_date', format(window.end)],
      ],
    };
  }
  const bounds: EventBound[] = [];
  if (start) bounds.push({ column: 'start_utc', operator: '>=', at: start.toJSDate() });
  if (end) bounds.push({ column: 'start_utc', operator: '<=', at: end.toJSDate() });
  bounds.push(...relativeBounds(q, relative, read));
  return {
    bounds,
    applied: [
      ['start_date', format(start)],
      ['end_date', format(end)],
      ...appliedFilters(q, relative),
      ['strict_dates', q.strict_dates ? true : undefined],
    ],
  };
}

/**
 * A feed that names no dates: the events under way or to come in the default window, and those that
 * ended in the last FEED_PAST_DAYS (a subscription must not drop an event the moment it starts).
 */
function feedDefaultDates(now: DateTime): DateFilters {
  const defaults = defaultWindow(now);
  const ended = defaults.start.minus({ days: FEED_PAST_DAYS });
  return {
    bounds: [
      { column: 'end_utc', operator: '>=', at: ended.toJSDate() },
      { column: 'start_utc', operator: '<=', at: defaults.end.toJSDate() },
    ],
    applied: [],
  };
}

/** The bounds of the relative date filters given, each as `read` reads it. */
function relativeBounds(
  q: EventListQuery,
  relative: RelativeFilter[],
  read: (field: RelativeFilter) => DateTime | undefined,
): EventBound[] {
  const bounds: EventBound[] = [];
  for (const filter of relative) {
    const given = read(filter);
    if (!given) continue;
    // Unless the dates are strict, only the day counts, up to its last second (as the modelled service).
    const at = q.strict_dates ? given : inRange(filter, given.endOf('day').set({ millisecond: 0 }));
    bounds.push({ ...RELATIVE_FILTERS[filter], at: at.toJSDate() });
  }
  return bounds;
}

/**
 * The instant, if PostgreSQL can hold it: the end of 9999-12-31 in a zone west of UTC is in the year
 * 10000, which the database refuses (a 500 before this check).
 */
function inRange(field: string, instant: DateTime): DateTime {
  const year = instant.toUTC().year;
  if (year < 1 || year > 9999) throw new InvalidInput({ [field]: `${field} must fall within the years 1 to 9999.` });
  return instant;
}

/**
 * IDs of the venues in `scope` within the geofence of a point: a box on the indexed columns, then
 * the true distance.
 */
async function venuesNear(db: PrismaClient, scope: ListScope, lat: number, lng: number): Promise<number[]> {
  const dLat = (GEOFENCE_KM / 6371) * (180 / Math.PI);
  const dLng = dLat / Math.max(Math.cos((lat * Math.PI) / 180), 1e-6);
  const wraps = lng - dLng < -180 || lng + dLng > 180;
  const candidates = await db.venue.findMany({
    where: {
      geoLat: { gte: lat - dLat, lte: lat + dLat },
      geoLng: wraps ? { not: null } : { gte: lng - dLng, lte: lng + dLng },
      ...scopeWhere(scope),
    },
    select: { id: true, geoLat: true, geoLng: true },
  });
  return candidates
    .filter((v) => v.geoLat !== null && v.geoLng !== null && distanceKm(lat, lng, v.geoLat, v.geoLng) <= GEOFENCE_KM)
    .map((v) => v.id);
}

/** Great-circle distance (haversine) on a sphere of the Earth's mean radius. */
export function distanceKm(lat1: number, lng1: number, lat2: number, lng2: number): number {
  const rad = (deg: number) => (deg * Math.PI) / 180;
  const a =
    Math.sin(rad(lat2 - lat1) / 2) ** 2 +
    Math.cos(rad(lat1)) * Math.cos(rad(lat2)) * Math.sin(rad(lng2 - lng1) / 2) ** 2;
  return 2 * 6371 * Math.asin(Math.min(1, Math.sqrt(a)));
}
