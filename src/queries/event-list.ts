// The statements of the event list: one page of the events that match resolved filters, and how
// many match in all. What the filters mean and whether the caller may use them is decided before
// (services/event-list.ts); here they only become SQL.
import { Prisma } from '../../generated/prisma/client.js';
import type { ListScope } from '../auth/permissions.js';
import type { PrismaClient } from '../db/client.js';
import type { EventRecord } from '../domain/records.js';
import { DAY_MS } from '../lib/dates.js';
import { selectEventPage, selectEvents } from './event-rows.js';
import { inScope, isPublic } from './list-scope.js';
import { selectRows } from '../db/driver.js';
import { EVENT_TITLE, eventHoldsEveryWord, holdsEveryWord, searchWords } from './word-search.js';

const sql = Prisma.sql;

/** The filters of one list, resolved: IDs that exist and that the caller may name, instants. */
export interface EventListFilters {
  scope: ListScope;
  /** Start instants, both inclusive: the default window, or `start_date` and `end_date`. */
  window?: { start: Date; end: Date };
  /** Further bounds on start or end (`start_date` or `end_date` alone, `starts_before`, ...). */
  bounds: EventBound[];
  /** `ticketed`: only events open to RSVP at `now` (an RSVP is this service's ticket), or only the others. */
  ticketed?: { open: boolean; now: Date };
  include?: number[];
  search?: string;
  /** Each is one filter: an event matches it when it links to any of the IDs. */
  termSets: number[][];
  venues?: number[];
  organizers?: number[];
  featured?: boolean;
  /** `event_status`: only events with one of these statuses. */
  eventStatuses?: string[];
  /** `is_virtual`: only events online (hybrid ones included), or only the others. */
  virtual?: boolean;
  parent?: number;
  /**
   * Occurrences of series as events, the series not (true); or the series, with the occurrences
   * changed on their own, instead of their occurrences (false). docs/decisions.md, "Recurring events".
   */
  singleEvents: boolean;
  /** Whether an event has a venue with coordinates that `readableVenues` lets the caller see. */
  located?: boolean;
  readableVenues: ListScope;
  /** Venues near the point of `geoloc_lat`/`geoloc_lng`. */
  nearVenues?: number[];
  /** By start (then ID) unless said otherwise. */
  order?: EventOrder;
}

export interface EventOrder {
  by: 'start_date' | 'end_date' | 'title' | 'modified' | 'id' | 'relevance';
  direction: 'asc' | 'desc';
}

const ORDER_COLUMNS = { start_date: 'e.start_utc', end_date: 'e.end_utc', title: 'e.title', modified: 'e.modified_at' };

/**
 * The ORDER BY of a list: the column asked for, ties by start and then ID, so that pages never
 * overlap. `relevance` puts the events whose title holds every word first (then by start).
 */
function orderBy(order: EventOrder = { by: 'start_date', direction: 'asc' }, words: string[]): Prisma.Sql {
  const direction = Prisma.raw(order.direction === 'desc' ? 'DESC' : 'ASC');
  if (order.by === 'id') return sql`ORDER BY e.id ${direction}`;
  if (order.by === 'relevance' && words.length) {
    const inTitle = holdsEveryWord(EVENT_TITLE, words);
    return sql`ORDER BY (${inTitle}) DESC, e.start_utc ${direction}, e.id ${direction}`;
  }
  // Without a search, relevance is the start order.
  const by = order.by === 'relevance' ? 'start_date' : order.by;
  const column = Prisma.raw(ORDER_COLUMNS[by]);
  return by === 'start_date'
    ? sql`ORDER BY e.start_utc ${direction}, e.id ${direction}`
    : sql`ORDER BY ${column} ${direction}, e.start_utc ${direction}, e.id ${direction}`;
}

/** One comparison of an event's start, end or modification time with an instant. */
export interface EventBound {
  column: 'start_utc' | 'end_utc' | 'modified_at';
  operator: '<' | '<=' | '>' | '>=';
  at: Date;
}

/** A page of the list, ordered by start and then ID, and the total. */
export async function selectEventList(
  db: PrismaClient,
  f: EventListFilters,
  page: { take: number; skip: number },
): Promise<{ total: number; items: EventRecord[] }> {
  const { where, words, narrowed } = listWhere(f);
  // Prepared (db/driver.ts): a list's text is one of a few per combination of filters, and
  // planning the page with its links' JSON cost PostgreSQL as much as running it. Not a search:
  // a plan made for any words cannot know how many events they match, and the one PostgreSQL
  // settled on took two and a half times the CPU (docs/performance.md, "Built answers: the levers").
  const selection = { where, orderBy: orderBy(f.order, words), ...page, prepare: !words.length };
  if (f.window && !narrowed && isPublic(f.scope)) {
    // The public list as it is: its page straight off the start index, its total off the day counts.
    const [total, items] = await Promise.all([
      countListed(db, f.window.start, f.window.end),
      selectEvents(db, selection),
    ]);
    return { total, items };
  }
  const found = await selectEventPage(db, selection);
  // A page past the end still tells the total.
  return { items: found.items, total: found.total ?? (await count(db, where)) };
}

/**
 * What a feed of the list's first `take` events shows, without reading them: their IDs in order,
 * how many match in all, and a digest of everything their iCalendar text is made of (each event's
 * version, and the version of every venue, organizer and term it links to). Equal digests, equal
 * text for the same caller and options: an unchanged feed is answered from its ETag.
 */
export async function selectFeedIndex(
  db: PrismaClient,
  f: EventListFilters,
  take: number,
): Promise<{ ids: number[]; total: number; digest: string }> {
  const { where, words } = listWhere(f);
  // Two statements, the page and then its links: on the embedded database each one holds the
  // event loop while it runs.
  const version = (table: string) => sql`(extract(epoch FROM ${Prisma.raw(table)}.modified_at) * 1000)::bigint`;
  const [page] = await selectRows<{ ids: number[] | null; total: number | null; versions: string | null }>(
    db,
    sql`
    WITH page AS (
      SELECT p.*, row_number() OVER () AS n FROM (
        SELECT e.id, e.modified_at, count(*) OVER () AS total FROM events e WHERE ${where} ${orderBy(f.order, words)}
        LIMIT ${take}::int) p)
    SELECT array_agg(id ORDER BY n) AS ids, max(total)::int AS total,
      string_agg(page.id || '@' || ${version('page')}, ',' ORDER BY n) AS versions
    FROM page`,
  );
  const ids = page.ids ?? [];
  const [links] = await selectRows<{ digest: string }>(
    db,
    sql`
    SELECT md5(concat_ws('|', ${page.versions ?? ''}::text,
      (SELECT string_agg(l.event_id || 'v' || v.id || '@' || ${version('v')}, ',' ORDER BY l.event_id, l.position, v.id)
         FROM event_venues l JOIN venues v ON v.id = l.venue_id WHERE l.event_id = ANY(${ids}::int[])),
      (SELECT string_agg(l.event_id || 'o' || o.id || '@' || ${version('o')}, ',' ORDER BY l.event_id, l.position, o.id)
         FROM event_organizers l JOIN organizers o ON o.id = l.organizer_id WHERE l.event_id = ANY(${ids}::int[])),
      (SELECT string_agg(l.event_id || 't' || t.id || '@' || ${version('t')}, ',' ORDER BY l.event_id, t.id)
         FROM event_terms l JOIN terms t ON t.id = l.term_id WHERE l.event_id = ANY(${ids}::int[])))) AS digest`,
  );
  return { ids, total: page.total ?? 0, digest: links.digest };
}

/**
 * The list's condition on `e`, the words of its search, and whether anything but the window narrows
 * it (else a public list's total can be read off the day counts).
 */
function listWhere(f: EventListFilters): { where: Prisma.Sql; words: string[]; narrowed: boolean } {
  const between = f.window && sql`BETWEEN ${f.window.start}::timestamptz AND ${f.window.end}::timestamptz`;
  const and = [inScope(f.scope, 'e'), sql`NOT e.hide_from_listings`, ...windowConditions(f.singleEvents, between)];
  // Links to the events of a public list carry their start (migration link_listed_start), so each
  // venue, organizer or term filter of such a list is a set of events read off one index, and the
  // sets are intersected before any event row is read. Other lists test each event's links.
  const publicWindow = between && isPublic(f.scope) ? between : undefined;
  const linkSets: Prisma.Sql[] = [];
  const linked = (table: 'event_venues' | 'event_organizers' | 'event_terms', column: string, ids: number[]) => {
    const [from, key] = [Prisma.raw(table), Prisma.raw(column)];
    if (publicWindow) {
      linkSets.push(
        sql`SELECT l.event_id FROM ${from} l WHERE l.${key} = ANY(${ids}::int[]) AND l.listed_start_utc ${publicWindow}`,
      );
    } else {
      and.push(sql`EXISTS (SELECT 1 FROM ${from} l WHERE l.event_id = e.id AND l.${key} = ANY(${ids}::int[]))`);
    }
  };
  // Everything below narrows the public window; without it the total can be read off the day counts.
  const narrowing = and.length;
  const words = f.search ? searchWords(f.search) : [];
  and.push(...rowConditions(f, words));
  for (const ids of f.termSets) linked('event_terms', 'term_id', ids);
  if (f.venues) linked('event_venues', 'venue_id', f.venues);
  if (f.organizers) linked('event_organizers', 'organizer_id', f.organizers);
  and.push(...flagConditions(f));
  if (f.nearVenues) linked('event_venues', 'venue_id', f.nearVenues);

  if (linkSets.length) and.push(sql`e.id IN (${Prisma.join(linkSets, ' INTERSECT ')})`);
  return { where: Prisma.join(and, ' AND '), words, narrowed: and.length > narrowing };
}

/** The window's conditions: on an event's start, or on a series by its own start or its occurrences'. */
function windowConditions(singleEvents: boolean, between: Prisma.Sql | undefined): Prisma.Sql[] {
  if (singleEvents) return [sql`e.recurrence = '{}'`, ...(between ? [sql`e.start_utc ${between}`] : [])];
  if (!between) return [];
  // A series is in the window when one of its occurrences is.
  return [
    sql`(e.start_utc ${between} OR (e.recurrence <> '{}'
      AND EXISTS (SELECT 1 FROM events o WHERE o.parent_id = e.id AND o.start_utc ${between})))`,
  ];
}

/** The conditions on an event's own columns: which rows are listed, `include`, date bounds, tickets, search words. */
function rowConditions(f: EventListFilters, words: string[]): Prisma.Sql[] {
  const and: Prisma.Sql[] = [];
  if (!f.singleEvents) and.push(sql`(e.parent_id IS NULL OR e.is_exception)`);
  if (f.include) and.push(sql`e.id = ANY(${f.include}::int[])`);
  for (const bound of f.bounds) {
    and.push(sql`e.${Prisma.raw(bound.column)} ${Prisma.raw(bound.operator)} ${bound.at}::timestamptz`);
  }
  if (f.ticketed) {
    // Open to RSVP as services/rsvps/access.ts assertOpen says, and not a series (its dates take RSVPs).
    const open = sql`(e.rsvp_open AND e.recurrence = '{}' AND e.event_status <> 'canceled'
      AND ${f.ticketed.now}::timestamptz < e.start_utc - make_interval(secs => coalesce(e.rsvp_closes_before, 0)))`;
    and.push(f.ticketed.open ? open : sql`NOT ${open}`);
  }
  if (words.length) and.push(eventHoldsEveryWord(words));
  return and;
}

/** The conditions of the yes/no and single-value filters: `featured`, `event_status`, `is_virtual`, `post_parent`, `geoloc`. */
function flagConditions(f: EventListFilters): Prisma.Sql[] {
  const and: Prisma.Sql[] = [];
  if (f.featured !== undefined) and.push(sql`e.featured = ${f.featured}::boolean`);
  if (f.eventStatuses) and.push(sql`e.event_status = ANY(${f.eventStatuses}::"EventStatus"[])`);
  if (f.virtual !== undefined) and.push(sql`e.is_virtual = ${f.virtual}::boolean`);
  if (f.parent !== undefined) and.push(sql`e.parent_id = ${f.parent}::int`);
  const located = sql`EXISTS (SELECT 1 FROM event_venues l JOIN venues v ON v.id = l.venue_id
    WHERE l.event_id = e.id AND v.geo_lat IS NOT NULL AND v.geo_lng IS NOT NULL AND ${inScope(f.readableVenues, 'v')})`;
  if (f.located === true) and.push(located);
  if (f.located === false) and.push(sql`NOT ${located}`);
  return and;
}

async function count(db: PrismaClient, where: Prisma.Sql): Promise<number> {
  const [row] = await selectRows<{ total: number }>(
    db,
    sql`SELECT count(*)::int AS total FROM events e WHERE ${where}`,
  );
  return row.total;
}

/**
 * How many events the public list has between two instants: whole UTC days from the day counts the
 * triggers keep (migration listed_events_per_day), the events of the first and last day counted one
 * by one on the partial index. The cost grows with the days in the window, not with the events.
 */
async function countListed(db: PrismaClient, start: Date, end: Date): Promise<number> {
  if (end < start) return 0;
  const firstDay = Math.floor(start.getTime() / DAY_MS) * DAY_MS;
  const lastDay = Math.floor(end.getTime() / DAY_MS) * DAY_MS;
  const date = (ms: number) => new Date(ms).toISOString().slice(0, 10);
  const [row] = await selectRows<{ total: number }>(
    db,
    sql`
    SELECT (SELECT coalesce(sum(events), 0) FROM listed_events_per_day
            WHERE day > ${date(firstDay)}::date AND day < ${date(lastDay)}::date)::int
         + (SELECT count(*) FROM events e WHERE e.status = 'publish' AND NOT e.hide_from_listings AND e.start_utc >= ${start}::timestamptz
            AND e.start_utc < ${new Date(Math.min(firstDay + DAY_MS, end.getTime() + 1))}::timestamptz)::int
         + (SELECT count(*) FROM events e WHERE e.status = 'publish' AND NOT e.hide_from_listings AND e.start_utc <= ${end}::timestamptz
            AND e.start_utc >= ${new Date(Math.max(lastDay, firstDay + DAY_MS))}::timestamptz)::int AS total`,
    { prepare: true },
  );
  return row.total;
}
