// Events with everything their representation shows (venues, organizers, terms), read with one SQL
// statement (run on the driver, db/driver.ts selectRows). Every event read goes through here, so it is the
// service's hottest path: Prisma's `include` would compile its query anew on each call and send
// seven statements. The rows come back in exactly the shape `findMany({ include: eventInclude })`
// gives (test/http/event-rows.test.ts compares the two), so the rest of the service does not know
// the difference.
import { Prisma } from '../../generated/prisma/client.js';
import type { PrismaClient, Tx } from '../db/client.js';
import { selectRows } from '../db/driver.js';
import { type Json, record } from './rows.js';
import type { EventRecord as EventRow } from '../domain/records.js';

const sql = Prisma.sql;

/**
 * One event as JSON, links and what they link to included, each list in the order Prisma gives it;
 * an occurrence without a text of its own shows its series' (migration series_own_their_occurrences).
 * Its RSVP counts are an aggregate over the index on (event_id, status, arrival) in the same
 * statement, so that a list costs no query per event; never a name or an e-mail address.
 */
// The stored words of its search (migration word_prefix_search) are no part of an event's record.
// What a link shows is read by its key (a scalar subquery on the linked row's primary key), not
// joined: PostgreSQL hashed the whole terms table for each event's few links, 0.3 ms an event, a
// third of an event search's statement (docs/performance.md, "Issue 54's close"); a foreign key
// keeps every link's row there, so the rows are the join's. Exported for the benchmark's bare
// create (scripts/bench/baseline.ts), which reads back with it.
export const EVENT_JSON = sql`(to_jsonb(e) - 'search_vector') || jsonb_build_object(
  'description', coalesce(e.description, (SELECT s.description FROM events s WHERE s.id = e.parent_id), ''),
  'excerpt', coalesce(e.excerpt, (SELECT s.excerpt FROM events s WHERE s.id = e.parent_id), ''),
  'venues', coalesce((SELECT jsonb_agg(to_jsonb(l) || jsonb_build_object('venue',
      (SELECT to_jsonb(v) FROM venues v WHERE v.id = l.venue_id)) ORDER BY l.position, l.venue_id)
    FROM event_venues l WHERE l.event_id = e.id), '[]'),
  'organizers', coalesce((SELECT jsonb_agg(to_jsonb(l) || jsonb_build_object('organizer',
      (SELECT to_jsonb(o) FROM organizers o WHERE o.id = l.organizer_id)) ORDER BY l.position, l.organizer_id)
    FROM event_organizers l WHERE l.event_id = e.id), '[]'),
  'terms', coalesce((SELECT jsonb_agg(to_jsonb(l) || jsonb_build_object('term',
      (SELECT to_jsonb(t) FROM terms t WHERE t.id = l.term_id)) ORDER BY l.term_id)
    FROM event_terms l WHERE l.event_id = e.id), '[]'),
  'parent', (SELECT jsonb_build_object('id', p.id, 'status', p.status, 'author_id', p.author_id) FROM events p WHERE p.id = e.parent_id),
  'rsvp_counts', (SELECT jsonb_build_object(
      'going', coalesce(sum(1 + r.guests) FILTER (WHERE r.status IN ('going', 'checked_in')), 0),
      'waiting', coalesce(sum(1 + r.guests) FILTER (WHERE r.status = 'waiting'), 0),
      'checked_in', coalesce(sum(1 + r.guests) FILTER (WHERE r.status = 'checked_in'), 0))
    FROM rsvps r WHERE r.event_id = e.id AND r.status IN ('going', 'checked_in', 'waiting')))`;

export interface EventSelection {
  /** A condition on `e`, the events table. */
  where: Prisma.Sql;
  /** An ORDER BY clause on `e`; required with `take`. */
  orderBy?: Prisma.Sql;
  take?: number;
  skip?: number;
  /** A statement whose text is one of few and runs often (one event by ID or slug, a list): prepared (db/driver.ts). */
  prepare?: boolean;
}

/** The events that match, in the order asked for. */
export async function selectEvents(db: PrismaClient | Tx, selection: EventSelection): Promise<EventRow[]> {
  return (await select(db, selection, false)).map(({ event }) => toEventRow(JSON.parse(event) as Json));
}

/**
 * A page of the events that match and, in the same statement, how many match in all (undefined
 * when the page is empty). Finding the matches once for both, instead of once for a count and again
 * for the page, halves the work of a filtered list; and it keeps the planner from walking the start
 * index in order in the hope of filling the page soon, which is slow when few events match.
 */
export async function selectEventPage(db: PrismaClient | Tx, selection: EventSelection & { take: number }) {
  const rows = await select(db, selection, true);
  return { items: rows.map(({ event }) => toEventRow(JSON.parse(event) as Json)), total: rows[0]?.total };
}

async function select(
  db: PrismaClient | Tx,
  { where, orderBy = Prisma.empty, take, skip = 0, prepare = false }: EventSelection,
  withTotal: boolean,
) {
  const page = take === undefined ? Prisma.empty : sql`LIMIT ${take}::int OFFSET ${skip}::int`;
  if (!withTotal) {
    // The page is cut first, in a subquery, so that links are gathered for its events only.
    return selectRows<{ event: string; total?: number }>(
      db,
      sql`
      SELECT (${EVENT_JSON})::text AS event FROM (SELECT * FROM events e WHERE ${where} ${orderBy} ${page}) e ${orderBy}`,
      { prepare },
    );
  }
  // The count over every match keeps them all until the page is cut: only IDs and the sort keys,
  // never whole rows (a search matching a tenth of 100,000 events sorted megabytes of them).
  return selectRows<{ event: string; total: number }>(
    db,
    sql`
    SELECT (${EVENT_JSON})::text AS event, p.total_matches::int AS total
    FROM (SELECT e.id, count(*) OVER () AS total_matches FROM events e WHERE ${where} ${orderBy} ${page}) p
    JOIN events e ON e.id = p.id ${orderBy}`,
    { prepare },
  );
}

function toEventRow(json: Json): EventRow {
  const links = (key: string, target: string) =>
    (json[key] as Json[]).map((link) => ({ ...record(link), [target]: record(link[target] as Json) }));
  return {
    ...record(json),
    venues: links('venues', 'venue'),
    organizers: links('organizers', 'organizer'),
    terms: links('terms', 'term'),
    parent: json.parent ? record(json.parent as Json) : null,
    rsvpCounts: json.rsvp_counts,
  } as EventRow;
}
