// The statements that write event rows, their links and their occurrences, built from one list of
// an event's columns. The list is typed against Prisma's model of an event (prisma/schema.prisma),
// so a column added to the schema does not compile until it says how it is stored and what an
// occurrence takes of its series; the statements below then carry it. Each takes the transaction's
// statement runner: the driver's (services/events/create.ts, past Prisma) or Prisma's (db/driver.ts
// statementsOf), so that the same text runs whichever transaction a write is in.
import { type Event, Prisma as Prisma } from '../../generated/prisma/client.js';
import type { Tx } from '../db/client.js';
import { type Driver, statementsOf } from '../db/driver.js';
import { wallClockText } from '../lib/event-times.js';
import { likeEscaped } from '../lib/like.js';

/** What an occurrence of a series holds in a column (services/series/occurrences.ts). */
type OccurrenceTakes =
  /** the series' value, copied whenever the series changes */
  | 'series'
  /** the series' value, written with the occurrence's own times (a zone or all-day change moves them) */
  | 'times'
  /** nothing: it shows the series' (migration series_own_their_occurrences) */
  | 'null'
  /** a value of its own (its ID, slug, times, place in the series) */
  | 'own';

interface Column {
  column: string;
  /** The SQL type a parameter is cast to. */
  type:
    'int' | 'text' | 'text[]' | 'boolean' | 'timestamp' | 'timestamptz' | 'jsonb' | '"PostStatus"' | '"EventStatus"';
  occurrence: OccurrenceTakes;
}

export const EVENT_COLUMNS = {
  id: { column: 'id', type: 'int', occurrence: 'own' },
  authorId: { column: 'author_id', type: 'int', occurrence: 'series' },
  status: { column: 'status', type: '"PostStatus"', occurrence: 'series' },
  slug: { column: 'slug', type: 'text', occurrence: 'own' },
  title: { column: 'title', type: 'text', occurrence: 'series' },
  description: { column: 'description', type: 'text', occurrence: 'null' },
  excerpt: { column: 'excerpt', type: 'text', occurrence: 'null' },
  publishedAt: { column: 'published_at', type: 'timestamptz', occurrence: 'series' },
  modifiedAt: { column: 'modified_at', type: 'timestamptz', occurrence: 'series' },
  startLocal: { column: 'start_local', type: 'timestamp', occurrence: 'own' },
  endLocal: { column: 'end_local', type: 'timestamp', occurrence: 'own' },
  startUtc: { column: 'start_utc', type: 'timestamptz', occurrence: 'own' },
  endUtc: { column: 'end_utc', type: 'timestamptz', occurrence: 'own' },
  timezone: { column: 'timezone', type: 'text', occurrence: 'times' },
  allDay: { column: 'all_day', type: 'boolean', occurrence: 'times' },
  cost: { column: 'cost', type: 'jsonb', occurrence: 'series' },
  website: { column: 'website', type: 'text', occurrence: 'series' },
  image: { column: 'image', type: 'text', occurrence: 'series' },
  imageId: { column: 'image_id', type: 'int', occurrence: 'series' },
  // Copied from the image by a trigger whenever image_id is written (migration media_library).
  imageMeta: { column: 'image_meta', type: 'jsonb', occurrence: 'series' },
  showMap: { column: 'show_map', type: 'boolean', occurrence: 'series' },
  showMapLink: { column: 'show_map_link', type: 'boolean', occurrence: 'series' },
  hideFromListings: { column: 'hide_from_listings', type: 'boolean', occurrence: 'series' },
  sticky: { column: 'sticky', type: 'boolean', occurrence: 'series' },
  featured: { column: 'featured', type: 'boolean', occurrence: 'series' },
  // One date of a series can be cancelled alone: it becomes an exception, which keeps its own.
  eventStatus: { column: 'event_status', type: '"EventStatus"', occurrence: 'series' },
  eventStatusReason: { column: 'event_status_reason', type: 'text', occurrence: 'series' },
  isVirtual: { column: 'is_virtual', type: 'boolean', occurrence: 'series' },
  isHybrid: { column: 'is_hybrid', type: 'boolean', occurrence: 'series' },
  virtualUrl: { column: 'virtual_url', type: 'text', occurrence: 'series' },
  // Each occurrence takes its series' RSVP settings and has RSVPs of its own; when RSVP closes is
  // relative to the start (migration rsvps), so that each date closes before its own start.
  rsvpOpen: { column: 'rsvp_open', type: 'boolean', occurrence: 'series' },
  rsvpCapacity: { column: 'rsvp_capacity', type: 'int', occurrence: 'series' },
  rsvpGuestsMax: { column: 'rsvp_guests_max', type: 'int', occurrence: 'series' },
  rsvpApproval: { column: 'rsvp_approval', type: 'boolean', occurrence: 'series' },
  rsvpAnonymous: { column: 'rsvp_anonymous', type: 'boolean', occurrence: 'series' },
  rsvpClosesBefore: { column: 'rsvp_closes_before', type: 'int', occurrence: 'series' },
  parentId: { column: 'parent_id', type: 'int', occurrence: 'own' },
  recurrence: { column: 'recurrence', type: 'text[]', occurrence: 'own' },
  expandedUntilLocal: { column: 'expanded_until_local', type: 'timestamp', occurrence: 'own' },
  originalStartLocal: { column: 'original_start_local', type: 'timestamp', occurrence: 'own' },
  isException: { column: 'is_exception', type: 'boolean', occurrence: 'own' },
} as const satisfies { [Field in keyof Event]: Column };

type Field = keyof typeof EVENT_COLUMNS;

/** The columns an occurrence takes of its series in this way, in the order of the list. */
export const occurrenceColumns = (takes: OccurrenceTakes): string[] =>
  Object.values(EVENT_COLUMNS)
    .filter((c: Column) => c.occurrence === takes)
    .map((c) => c.column);

/** A value as the parameter of its column's type: wall-clock times without a zone, JSON as text. */
function parameter(column: Column, value: unknown): unknown {
  if (value === null || !(value instanceof Date || column.type === 'jsonb')) return value;
  if (column.type === 'jsonb') return JSON.stringify(value);
  return column.type === 'timestamp' ? wallClockText(value as Date) : (value as Date).toISOString();
}

/**
 * Inserts one event with these fields (the others take the schema's defaults) and its links to
 * venues and organizers (in this order) and terms, in one statement; its ID. One statement is
 * atomic on its own, so a create that writes nothing else needs no transaction around it
 * (services/events/create.ts). Each link's trigger sees the event: a link row is made from the
 * event's RETURNING, so after the event row, and trigger functions (VOLATILE) see the rows their
 * statement wrote before them.
 */
export async function insertEventAndLinks(
  run: Driver,
  fields: Partial<Event>,
  links: { venues: number[]; organizers: number[]; terms: number[] },
): Promise<number> {
  const set = (Object.keys(EVENT_COLUMNS) as Field[]).filter((field) => fields[field] !== undefined);
  const columns = set.map((field) => EVENT_COLUMNS[field]);
  const values = set.map((field, i) => parameter(columns[i], fields[field]));
  const { venues, organizers, terms } = links;
  const n = values.length;
  const row = `INSERT INTO events (${columns.map((c) => c.column).join(', ')})
     VALUES (${columns.map((c, i) => `$${i + 1}::${c.type}`).join(', ')}) RETURNING id`;
  const [{ id }] = (await run(
    !venues.length && !organizers.length && !terms.length
      ? row
      : `WITH e AS (${row}),
          v AS (INSERT INTO event_venues (event_id, venue_id, position)
                SELECT e.id, t.id, t.n - 1 FROM e, unnest($${n + 1}::int[]) WITH ORDINALITY AS t(id, n)),
          o AS (INSERT INTO event_organizers (event_id, organizer_id, position)
                SELECT e.id, t.id, t.n - 1 FROM e, unnest($${n + 2}::int[]) WITH ORDINALITY AS t(id, n)),
          l AS (INSERT INTO event_terms (event_id, term_id) SELECT e.id, t.id FROM e, unnest($${n + 3}::int[]) AS t(id))
         SELECT id FROM e`,
    !venues.length && !organizers.length && !terms.length ? values : [...values, venues, organizers, terms],
    PREPARED,
  )) as { id: number }[];
  return id;
}

/** The statements of a create are few and run often: prepared on each connection (db/driver.ts). */
const PREPARED = { prepare: true };

/** What a create names, to check in one read: linked posts and terms by ID, an author, a slug's stem. */
export interface CreateNames {
  venues: number[];
  organizers: number[];
  categories: number[];
  tags: number[];
  author: number | undefined;
  /** The slug the event would have, which it takes numbered (`-2`, `-3`, ...) if that one is taken. */
  slug: string;
}

export interface CreateChecks {
  venues: LinkedPost[];
  organizers: LinkedPost[];
  categories: Set<number>;
  tags: Set<number>;
  authorExists: boolean;
  /** Every slug taken of those the event could take first (lib/slug.ts firstFreeSlug). */
  slugsTaken: string[];
}

interface LinkedPost {
  id: number;
  authorId: number | null;
  status: Event['status'];
}

/**
 * How many of a slug's first choices (`base`, `base-2`, ...) the read looks up by name in the slug
 * index. A pattern (`LIKE 'base%'`) cannot use that index unless the database's collation is C: it
 * read every slug of the calendar, 4.5 ms at 10,000 events and growing. Only when all of these are
 * taken does the read of every slug starting with the base follow.
 */
const SLUG_CHOICES = 8;

/** Everything a create checks before it writes, read with one statement (rarely two: SLUG_CHOICES). */
export async function readCreateChecks(run: Driver, names: CreateNames): Promise<CreateChecks> {
  const choices = [names.slug, ...Array.from({ length: SLUG_CHOICES - 1 }, (_, i) => `${names.slug}-${i + 2}`)];
  const rows = (await run(
    `SELECT 'venue' AS kind, id, author_id, status::text AS status, NULL AS slug FROM venues WHERE id = ANY($1::int[])
     UNION ALL SELECT 'organizer', id, author_id, status::text, NULL FROM organizers WHERE id = ANY($2::int[])
     UNION ALL SELECT taxonomy::text, id, NULL, NULL, NULL FROM terms
       WHERE (taxonomy = 'tribe_events_cat' AND id = ANY($3::int[])) OR (taxonomy = 'post_tag' AND id = ANY($4::int[]))
     UNION ALL SELECT 'user', id, NULL, NULL, NULL FROM users WHERE id = $5::int
     UNION ALL SELECT 'slug', NULL, NULL, NULL, slug FROM events WHERE slug = ANY($6::text[])`,
    [names.venues, names.organizers, names.categories, names.tags, names.author ?? null, choices],
    PREPARED,
  )) as { kind: string; id: number; author_id: number | null; status: Event['status']; slug: string }[];
  const of = (kind: string) => rows.filter((r) => r.kind === kind);
  const posts = (kind: string) => of(kind).map((r) => ({ id: r.id, authorId: r.author_id, status: r.status }));
  let slugsTaken = of('slug').map((r) => r.slug);
  if (slugsTaken.length === choices.length) {
    const more = (await run(`SELECT slug FROM events WHERE slug LIKE $1::text`, [`${likeEscaped(names.slug)}%`])) as {
      slug: string;
    }[];
    slugsTaken = more.map((r) => r.slug);
  }
  return {
    venues: posts('venue'),
    organizers: posts('organizer'),
    categories: new Set(of('tribe_events_cat').map((r) => r.id)),
    tags: new Set(of('post_tag').map((r) => r.id)),
    authorExists: of('user').length > 0,
    slugsTaken,
  };
}

/** The columns of these fields, in this order. */
const columnsOf = (fields: Field[]) => fields.map((field) => EVENT_COLUMNS[field].column);

/** What an occurrence holds of its own when it is made: its place in the series, slug and times. */
const OCCURRENCE_OWN = columnsOf([
  'parentId',
  'originalStartLocal',
  'slug',
  'startLocal',
  'endLocal',
  'startUtc',
  'endUtc',
]);
const FROM_SERIES = [...occurrenceColumns('series'), ...occurrenceColumns('times')];
const NULLED = occurrenceColumns('null');

/** New occurrences of a series at these starts: their own slugs and times, the rest the series'. */
export interface NewOccurrences {
  original: Date[];
  slug: string[];
  startLocal: Date[];
  endLocal: Date[];
  startUtc: Date[];
  endUtc: Date[];
}

const INSERT_OCCURRENCES = `
  INSERT INTO events (${[...OCCURRENCE_OWN, ...FROM_SERIES, ...NULLED].join(', ')})
  SELECT s.id, v.original::timestamp, v.slug, v.sl::timestamp, v.el::timestamp, v.su::timestamptz, v.eu::timestamptz,
    ${[...FROM_SERIES.map((c) => `s.${c}`), ...NULLED.map(() => 'NULL')].join(', ')}
  FROM events s, unnest($2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[]) AS v(original, slug, sl, el, su, eu)
  WHERE s.id = $1::int
  RETURNING id`;

/** Inserts the occurrences, copies of the series' row; their IDs, in order. */
export async function insertOccurrenceRows(run: Driver, seriesId: number, rows: NewOccurrences): Promise<number[]> {
  const iso = (dates: Date[]) => dates.map((d) => d.toISOString());
  const inserted = (await run(INSERT_OCCURRENCES, [
    seriesId,
    iso(rows.original),
    rows.slug,
    iso(rows.startLocal),
    iso(rows.endLocal),
    iso(rows.startUtc),
    iso(rows.endUtc),
  ])) as { id: number }[];
  return inserted.map((r) => r.id);
}

const COPIED = occurrenceColumns('series');

const COPY_SERIES_FIELDS = `
  UPDATE events o SET ${[...COPIED.map((c) => `${c} = s.${c}`), ...NULLED.map((c) => `${c} = NULL`)].join(', ')}
  FROM events s
  WHERE s.id = $1::int AND o.parent_id = s.id AND NOT o.is_exception
    AND (${[...COPIED, ...NULLED].map((c) => `o.${c}`).join(', ')})
      IS DISTINCT FROM (${[...COPIED.map((c) => `s.${c}`), ...NULLED.map(() => 'NULL')].join(', ')})`;

/**
 * The series' fields other than times onto its occurrences that are not exceptions; only those that
 * differ are written. A newer version of the series is a newer version of what they show
 * (`modified_at` is copied), so they take it even when nothing else differs.
 */
export async function copySeriesFields(run: Driver, seriesId: number): Promise<void> {
  await run(COPY_SERIES_FIELDS, [seriesId]);
}

// The statements below run in a Prisma transaction with the series locked first (services/series/occurrences.ts).

/** What a series says of whether and where its dates happen, which its dates changed alone follow. */
export type Announced = Pick<Event, 'eventStatus' | 'eventStatusReason' | 'isVirtual' | 'isHybrid' | 'virtualUrl'>;

/**
 * A series' new status and reason, online flags and link onto its exceptions that showed its old
 * ones, each (status with its reason) on its own: a date moved alone still follows the series being
 * called off, put back on or given a new link (docs/decisions.md, "Cancelled, postponed, online"),
 * while one cancelled alone, with its own reason, keeps it. A date in the trash is left as it is.
 * Hybrid stays only where online is (the table's constraint).
 */
export async function announcedToExceptions(
  tx: Tx,
  series: Announced & Pick<Event, 'id' | 'modifiedAt'>,
  previous: Announced,
): Promise<void> {
  const sameStatus = Prisma.sql`(o.event_status, o.event_status_reason) = (${previous.eventStatus}::"EventStatus", ${previous.eventStatusReason})`;
  const follows = (column: string, was: unknown, now: unknown, type: string) =>
    Prisma.sql`CASE WHEN o.${Prisma.raw(column)} IS NOT DISTINCT FROM ${was}::${Prisma.raw(type)} THEN ${now}::${Prisma.raw(type)} ELSE o.${Prisma.raw(column)} END`;
  await tx.$executeRaw`
    WITH v AS (
      SELECT o.id,
        CASE WHEN ${sameStatus} THEN ${series.eventStatus}::"EventStatus" ELSE o.event_status END AS event_status,
        CASE WHEN ${sameStatus} THEN ${series.eventStatusReason} ELSE o.event_status_reason END AS event_status_reason,
        ${follows('is_virtual', previous.isVirtual, series.isVirtual, 'boolean')} AS is_virtual,
        ${follows('is_hybrid', previous.isHybrid, series.isHybrid, 'boolean')} AS is_hybrid,
        ${follows('virtual_url', previous.virtualUrl, series.virtualUrl, 'text')} AS virtual_url
      FROM events o WHERE o.parent_id = ${series.id}::int AND o.is_exception AND o.status <> 'trash')
    UPDATE events e SET event_status = v.event_status, event_status_reason = v.event_status_reason,
      is_virtual = v.is_virtual, is_hybrid = v.is_hybrid AND v.is_virtual, virtual_url = v.virtual_url,
      modified_at = ${series.modifiedAt}
    FROM v WHERE e.id = v.id
      AND (v.event_status, v.event_status_reason, v.is_virtual, v.is_hybrid AND v.is_virtual, v.virtual_url)
        IS DISTINCT FROM (e.event_status, e.event_status_reason, e.is_virtual, e.is_hybrid, e.virtual_url)`;
}

/** Whether a write changed what dates changed alone follow of their series. */
export const announcedChanged = (before: Announced, after: Announced) =>
  before.eventStatus !== after.eventStatus ||
  before.eventStatusReason !== after.eventStatusReason ||
  before.isVirtual !== after.isVirtual ||
  before.isHybrid !== after.isHybrid ||
  before.virtualUrl !== after.virtualUrl;

/** Locks an event row (a series, before any of its occurrences) for the rest of the transaction. */
export async function lockEventRow(tx: Tx, id: number): Promise<void> {
  await tx.$queryRaw`SELECT id FROM events WHERE id = ${id}::int FOR UPDATE`;
}

/** The event's status, its row locked until the transaction ends; undefined when there is no such event. */
export async function lockEventStatus(tx: Tx, id: number): Promise<string | undefined> {
  const rows = await tx.$queryRaw<{ status: string }[]>`SELECT status FROM events WHERE id = ${id}::int FOR UPDATE`;
  return rows.at(0)?.status;
}

/** The occurrences of a series that follow it (not exceptions). */
export async function followingOccurrences(tx: Tx, seriesId: number): Promise<number[]> {
  const rows = await tx.$queryRaw<{ id: number }[]>`
    SELECT id FROM events WHERE parent_id = ${seriesId}::int AND NOT is_exception`;
  return rows.map((r) => r.id);
}

/** Every occurrence of a series, with its original start and whether it is an exception. */
export async function occurrencesOf(tx: Tx, seriesId: number) {
  // Wall-clock times as epoch milliseconds: the two drivers read a timestamp without zone differently.
  const rows = await tx.$queryRaw<{ id: number; ms: number; exception: boolean }[]>`
    SELECT id, (extract(epoch FROM original_start_local) * 1000)::float8 AS ms, is_exception AS exception
    FROM events WHERE parent_id = ${seriesId}::int`;
  return rows.map((r) => ({ id: r.id, original: new Date(r.ms), exception: r.exception }));
}

/** Deletes these events for good (their links go by cascade). */
export async function deleteEventRows(tx: Tx, ids: number[]): Promise<void> {
  if (ids.length) await tx.$executeRaw`DELETE FROM events WHERE id = ANY(${ids}::int[])`;
}

/**
 * Occurrences a series' write drops that people answered (docs/decisions.md, "RSVP"): they are not
 * deleted, which would take their RSVPs and tell nobody, but kept as exceptions, and those to come
 * cancelled (which tells each person: migration rsvp_mail's trigger); the rest go. The rows are
 * locked before their RSVPs are read: an RSVP write locks its event's row first (services/rsvps/
 * seats.ts), so none can come to a row found unanswered before it is deleted.
 */
export async function dropOccurrenceRows(tx: Tx, ids: number[]): Promise<void> {
  if (!ids.length) return;
  await tx.$executeRaw`SELECT id FROM events WHERE id = ANY(${ids}::int[]) ORDER BY id FOR UPDATE`;
  const answered = await tx.$queryRaw<{ id: number }[]>`
    SELECT DISTINCT event_id AS id FROM rsvps
    WHERE event_id = ANY(${ids}::int[]) AND confirmed AND status IN ('going', 'waiting', 'pending', 'checked_in')`;
  const kept = answered.map((row) => row.id);
  if (kept.length) {
    await tx.$executeRaw`
      UPDATE events SET is_exception = true, modified_at = now(),
        event_status = CASE WHEN start_utc > now() THEN 'canceled'::"EventStatus" ELSE event_status END,
        event_status_reason = CASE WHEN start_utc > now() AND event_status_reason = ''
          THEN 'This date is no longer part of the series.' ELSE event_status_reason END
      WHERE id = ANY(${kept}::int[])`;
  }
  await deleteEventRows(
    tx,
    ids.filter((id) => !kept.includes(id)),
  );
}

/** Which of these slugs events hold. */
export async function slugsTaken(tx: Tx, slugs: string[]): Promise<Set<string>> {
  const rows = await tx.$queryRaw<{ slug: string }[]>`SELECT slug FROM events WHERE slug = ANY(${slugs}::text[])`;
  return new Set(rows.map((r) => r.slug));
}

/** Times given to occurrences of a series (by ID), with the zone and all-day flag of the series. */
export interface OccurrenceTimes {
  id: number[];
  startLocal: Date[];
  endLocal: Date[];
  startUtc: Date[];
  endUtc: Date[];
}

const WITH_TIMES = occurrenceColumns('times');

const SET_OCCURRENCE_TIMES = `
  UPDATE events o SET start_local = v.sl::timestamp, end_local = v.el::timestamp, start_utc = v.su::timestamptz,
    end_utc = v.eu::timestamptz, ${WITH_TIMES.map((c) => `${c} = s.${c}`).join(', ')}, modified_at = s.modified_at
  FROM events s, unnest($2::int[], $3::text[], $4::text[], $5::text[], $6::text[]) AS v(id, sl, el, su, eu)
  WHERE s.id = $1::int AND o.id = v.id
    AND (o.start_local, o.end_local, o.start_utc, o.end_utc, ${WITH_TIMES.map((c) => `o.${c}`).join(', ')})
      IS DISTINCT FROM (v.sl::timestamp, v.el::timestamp, v.su::timestamptz, v.eu::timestamptz,
        ${WITH_TIMES.map((c) => `s.${c}`).join(', ')})`;

/** Gives occurrences their times; only those whose times differ are written. */
export async function setOccurrenceTimes(tx: Tx, seriesId: number, times: OccurrenceTimes): Promise<void> {
  const iso = (dates: Date[]) => dates.map((d) => d.toISOString());
  await statementsOf(tx)(SET_OCCURRENCE_TIMES, [
    seriesId,
    times.id,
    iso(times.startLocal),
    iso(times.endLocal),
    iso(times.startUtc),
    iso(times.endUtc),
  ]);
}

/** The venues, organizers and terms of event `from` onto these events (instead of theirs, with `replace`). */
export async function copyLinks(tx: Tx, from: number, ids: number[], replace: boolean): Promise<void> {
  if (!ids.length) return;
  if (replace) {
    await tx.$executeRaw`DELETE FROM event_venues WHERE event_id = ANY(${ids}::int[])`;
    await tx.$executeRaw`DELETE FROM event_organizers WHERE event_id = ANY(${ids}::int[])`;
    await tx.$executeRaw`DELETE FROM event_terms WHERE event_id = ANY(${ids}::int[])`;
  }
  await tx.$executeRaw`
    INSERT INTO event_venues (event_id, venue_id, position)
    SELECT o.id, l.venue_id, l.position FROM unnest(${ids}::int[]) AS o(id), event_venues l WHERE l.event_id = ${from}::int`;
  await tx.$executeRaw`
    INSERT INTO event_organizers (event_id, organizer_id, position)
    SELECT o.id, l.organizer_id, l.position FROM unnest(${ids}::int[]) AS o(id), event_organizers l WHERE l.event_id = ${from}::int`;
  await tx.$executeRaw`
    INSERT INTO event_terms (event_id, term_id)
    SELECT o.id, l.term_id FROM unnest(${ids}::int[]) AS o(id), event_terms l WHERE l.event_id = ${from}::int`;
}

/** Every occurrence's original start moved by `deltaMs`. */
export async function shiftOriginalStarts(tx: Tx, seriesId: number, deltaMs: number): Promise<void> {
  // All rows move by the same amount, in two steps: one step could meet a row not yet moved in the
  // unique index on (parent_id, original_start_local).
  const far = Prisma.raw("interval '1000 years'");
  await tx.$executeRaw`
    UPDATE events SET original_start_local = original_start_local + ${deltaMs / 1000}::float8 * interval '1 second' + ${far}
    WHERE parent_id = ${seriesId}::int`;
  await tx.$executeRaw`
    UPDATE events SET original_start_local = original_start_local - ${far} WHERE parent_id = ${seriesId}::int`;
}

/**
 * A series made a single event: its occurrences go (those people answered are kept, as exceptions:
 * dropOccurrenceRows), its exceptions stay as events of their own.
 */
export async function detachOccurrences(tx: Tx, seriesId: number): Promise<void> {
  await dropOccurrenceRows(tx, await followingOccurrences(tx, seriesId));
  // On their own, they keep the text they showed.
  await tx.$executeRaw`
    UPDATE events o SET parent_id = NULL, original_start_local = NULL, is_exception = false,
      description = coalesce(o.description, s.description), excerpt = coalesce(o.excerpt, s.excerpt)
    FROM events s WHERE s.id = ${seriesId}::int AND o.parent_id = s.id`;
}

/**
 * The next published series after `lastId` whose occurrences stop short of `soon` (or of its own
 * start and the horizon), locked; one another writer holds is skipped (SKIP LOCKED).
 */
export async function nextSeriesShortOf(tx: Tx, lastId: number, soon: Date, horizonDays: number) {
  const [row] = await tx.$queryRaw<({ id: number } | undefined)[]>`
    SELECT id FROM events WHERE recurrence <> '{}' AND id > ${lastId}::int
      AND status NOT IN ('draft', 'pending', 'trash')
      AND (expanded_until_local IS NULL OR expanded_until_local < greatest(${soon}::timestamp, start_local + ${horizonDays - 1}::int * interval '1 day'))
    ORDER BY id LIMIT 1 FOR UPDATE SKIP LOCKED`;
  return row?.id;
}

/** Occurrences of `from` at or after this wall-clock start moved to the series `to` (a split). */
export async function moveOccurrencesFrom(tx: Tx, from: number, to: number, start: Date): Promise<void> {
  await tx.$executeRaw`
    UPDATE events SET parent_id = ${to}::int WHERE parent_id = ${from}::int AND original_start_local >= ${wallClockText(start)}::timestamp`;
}

/** Occurrences of a series after this wall-clock start: to the trash as exceptions, or for good. */
export async function dropOccurrencesAfter(tx: Tx, seriesId: number, start: Date, force: boolean): Promise<void> {
  const later = Prisma.sql`parent_id = ${seriesId}::int AND original_start_local > ${wallClockText(start)}::timestamp`;
  if (force) await tx.$executeRaw`DELETE FROM events WHERE ${later}`;
  else
    await tx.$executeRaw`UPDATE events SET status = 'trash', is_exception = true, modified_at = now() WHERE ${later}`;
}

/** Exceptions of a series in the trash taken out with it (to `status`), except those at these starts. */
export async function restoreTrashedExceptions(
  tx: Tx,
  series: { id: number; status: Event['status'] },
  keptOut: Date[],
) {
  await tx.$executeRaw`
    UPDATE events SET status = ${series.status}, modified_at = now()
    WHERE parent_id = ${series.id}::int AND is_exception AND status = 'trash'
      AND NOT (original_start_local = ANY(${keptOut.map(wallClockText)}::timestamp[]))`;
}
