// The statements behind the calendar as CalDAV sees it (services/calendar-objects/): which events a
// collection holds for a caller, the names clients gave them, what each resource's text is made
// from, and the lines kept as clients wrote them (dav_objects).
import { Prisma } from '../../generated/prisma/client.js';
import type { ListScope } from '../auth/permissions.js';
import type { PrismaClient, Tx } from '../db/client.js';
import { selectRows } from '../db/driver.js';
import type { Collection, EventRecord } from '../domain/records.js';
import { selectEvents } from './event-rows.js';
import { inScope } from './list-scope.js';

const sql = Prisma.sql;

/** What a caller may read of resources: its list scope (listScope) without the trash, which is never a collection's. */
const readable = (scope: ListScope) =>
  inScope({ ...scope, statuses: scope.statuses.filter((s) => s !== 'trash') }, 'e');

const inCollection = (collection: Collection) =>
  collection.kind === 'all'
    ? sql`true`
    : sql`EXISTS (SELECT FROM event_terms t WHERE t.event_id = e.id AND t.term_id = ${collection.id}::int)`;

/** The IDs of the collection's resources (events of their own and series) in the scope, in ID order. */
export async function resourceIdsIn(db: PrismaClient, scope: ListScope, collection: Collection): Promise<number[]> {
  const rows = await db.$queryRaw<{ id: number }[]>`
    SELECT e.id FROM events e
    WHERE e.parent_id IS NULL AND ${readable(scope)} AND ${inCollection(collection)}
    ORDER BY e.id`;
  return rows.map((r) => r.id);
}

/** The resources' events among these IDs that the collection holds in the scope, in ID order. */
export const selectResourceEvents = (db: PrismaClient, scope: ListScope, collection: Collection, ids: number[]) =>
  selectEvents(db, {
    where: sql`e.id = ANY(${ids}::int[]) AND e.parent_id IS NULL AND ${readable(scope)} AND ${inCollection(collection)}`,
    orderBy: sql`ORDER BY e.id`,
  });

/** The changed occurrences (not in the trash) of these series, by original start. */
export const selectChangedOccurrences = (db: PrismaClient, series: number[]): Promise<EventRecord[]> =>
  series.length
    ? selectEvents(db, {
        where: sql`e.parent_id = ANY(${series}::int[]) AND e.is_exception AND e.status <> 'trash'`,
        orderBy: sql`ORDER BY e.original_start_local`,
      })
    : Promise.resolve([]);

/** The names clients gave these events (dav_objects), by ID. */
export async function givenNames(db: PrismaClient | Tx, ids: number[]): Promise<Map<number, string>> {
  if (!ids.length) return new Map();
  const rows = await db.davObject.findMany({ where: { eventId: { in: ids }, name: { not: null } } });
  return new Map(rows.map((r) => [r.eventId, r.name ?? '']));
}

/**
 * The names clients gave, in one statement: to events of these names, and to these events. On the
 * driver beneath Prisma (db/driver.ts selectRows): a multiget asks it once, with its every href.
 */
export const namesGiven = (db: PrismaClient | Tx, names: string[], ids: number[]) =>
  selectRows<{ eventId: number; name: string }>(
    db,
    sql`SELECT event_id AS "eventId", name FROM dav_objects
    WHERE name = ANY(${names}::text[]) OR (event_id = ANY(${ids}::int[]) AND name IS NOT NULL)`,
  );

/** The lines kept as clients wrote them, of these events (those that keep any), by ID. */
export async function keptLines(db: PrismaClient | Tx, ids: number[]): Promise<Map<number, string>> {
  if (!ids.length) return new Map();
  const rows = await db.davObject.findMany({ where: { eventId: { in: ids }, extra: { not: '' } } });
  return new Map(rows.map((r) => [r.eventId, r.extra]));
}

/**
 * What each resource's text is made from, as one digest per resource of the collection in the
 * scope (all of them after `only`, or those it names), in ID order: a row's part is its version,
 * status and kept lines, and the versions, statuses, owners and places of what it links to; a
 * resource's is its rows' (the event and its changed occurrences) and its exported UID. What a
 * link shows is read by its key (a scalar subquery on the linked row's primary key), not joined:
 * PostgreSQL hashed the whole venues table for each event's one link (docs/performance.md, "The
 * CalDAV multiget"); the digest is the same text, so ETags did not change. On the driver beneath
 * Prisma (db/driver.ts selectRows), whose query compiler took a fifth of a multiget's CPU.
 */
export function versionRows(
  db: PrismaClient,
  scope: ListScope,
  collection: Collection,
  only: Prisma.Sql,
  limit?: number,
): Promise<{ id: number; name: string | null; version: string }[]> {
  return selectRows(
    db,
    sql`
    SELECT e.id, d.name, md5(concat_ws('|',
        (SELECT external_id FROM imported_items i WHERE i.local_id = e.id AND i.kind = 'event' AND i.exported),
        (SELECT string_agg(concat_ws(';', x.id, x.modified_at, x.status, coalesce(x.author_id, 0), md5(coalesce(dx.extra, '')),
            (SELECT string_agg(concat_ws(':', l.venue_id, (SELECT concat_ws(':', v.modified_at, v.status, coalesce(v.author_id, 0))
                FROM venues v WHERE v.id = l.venue_id), l.position), ',' ORDER BY l.position, l.venue_id)
              FROM event_venues l WHERE l.event_id = x.id),
            (SELECT string_agg(concat_ws(':', l.organizer_id, (SELECT concat_ws(':', o.modified_at, o.status, coalesce(o.author_id, 0))
                FROM organizers o WHERE o.id = l.organizer_id), l.position), ',' ORDER BY l.position, l.organizer_id)
              FROM event_organizers l WHERE l.event_id = x.id),
            (SELECT string_agg(concat_ws(':', l.term_id, (SELECT t.modified_at FROM terms t WHERE t.id = l.term_id)), ',' ORDER BY l.term_id)
              FROM event_terms l WHERE l.event_id = x.id)), '/' ORDER BY x.id)
          FROM events x LEFT JOIN dav_objects dx ON dx.event_id = x.id
          WHERE x.id = e.id OR (x.parent_id = e.id AND x.is_exception AND x.status <> 'trash')))) AS version
    FROM events e LEFT JOIN dav_objects d ON d.event_id = e.id
    WHERE e.parent_id IS NULL AND ${readable(scope)} AND ${inCollection(collection)} ${only}
    ORDER BY e.id ${limit === undefined ? sql`` : sql`LIMIT ${limit}::int`}`,
    // Prepared: the rows are found by their keys or in ID order whatever the values, and planning
    // its dozen subqueries each time was a third of PostgreSQL's CPU per multiget (6.1 → 4.6 ms,
    // docs/performance.md "Issue 54's close").
    { prepare: true },
  );
}

/** Rows after this ID, or among these IDs, for versionRows. */
export const afterId = (id: number) => sql`AND e.id > ${id}::int`;
export const amongIds = (ids: number[]) => sql`AND e.id = ANY(${ids}::int[])`;
/**
 * Rows of these given names, or of these IDs without one (services/calendar-objects/read.ts
 * idsOfNames), for versionRows. The IDs are gathered first, so that the events are read by their
 * key: the condition alone (one name or another ID) was a scan of every event.
 */
export const namedAs = (names: string[], ids: number[]) =>
  sql`AND e.id = ANY(ARRAY(SELECT event_id FROM dav_objects WHERE name = ANY(${names}::text[])
      UNION SELECT unnest(${ids}::int[])))
    AND (d.name = ANY(${names}::text[]) OR d.name IS NULL)`;

/**
 * The categories and tags of these names (lower-cased), categories first, the event's own (`linked`)
 * before others of the same name.
 */
export function termsNamed(tx: Tx, names: string[], linked: number[]) {
  return tx.$queryRaw<{ id: number; name: string; taxonomy: string }[]>`
    SELECT id, lower(name) AS name, taxonomy::text FROM terms
    WHERE lower(name) = ANY(${names}::text[])
    ORDER BY taxonomy, (id = ANY(${linked}::int[])) DESC, id`;
}

/** Forgets the kept lines of the series' occurrences but those given: they are no longer changed in its resource. */
export async function forgetOccurrenceLines(tx: Tx, seriesId: number, keep: number[]): Promise<void> {
  await tx.$executeRaw`
    DELETE FROM dav_objects d USING events e
    WHERE d.event_id = e.id AND e.parent_id = ${seriesId}::int AND NOT (e.id = ANY(${keep}::int[]))`;
}

/** The rows (with their resource's ID) that are these events or show these venues, organizers, terms or images. */
export function rowsShowing(
  db: PrismaClient,
  changed: { events: number[]; venues: number[]; organizers: number[]; terms: number[]; media: number[] },
) {
  return db.$queryRaw<{ id: number; own: number }[]>`
    SELECT coalesce(e.parent_id, e.id) AS id, e.id AS own FROM events e
    WHERE e.id = ANY(${changed.events}::int[])
      OR e.id IN (SELECT event_id FROM event_venues WHERE venue_id = ANY(${changed.venues}::int[]))
      OR e.id IN (SELECT event_id FROM event_organizers WHERE organizer_id = ANY(${changed.organizers}::int[]))
      OR e.id IN (SELECT event_id FROM event_terms WHERE term_id = ANY(${changed.terms}::int[]))
      OR e.image_id = ANY(${changed.media}::int[])`;
}

/**
 * Events (by their resource's ID) with a row in the range: the event, or one of its series'
 * occurrences. A series whose occurrences are not stored that far ahead (services/series/window.ts keeps
 * a window) matches when it starts before the range ends and its window ends before it: it may have
 * occurrences there, and the client's own expansion decides.
 */
export async function resourceIdsInRange(db: PrismaClient, start: Date, end: Date): Promise<number[]> {
  const rows = await db.$queryRaw<{ id: number }[]>`
    SELECT DISTINCT coalesce(e.parent_id, e.id) AS id FROM events e
    WHERE e.status <> 'trash' AND e.start_utc < ${end} AND e.end_utc > ${start}
    UNION
    SELECT e.id FROM events e
    WHERE e.parent_id IS NULL AND cardinality(e.recurrence) > 0 AND e.start_utc < ${end}
      AND (e.expanded_until_local IS NULL OR e.expanded_until_local < ${end}::timestamp)`;
  return rows.map((r) => r.id).sort((a, b) => a - b);
}
