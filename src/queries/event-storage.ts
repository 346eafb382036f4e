// The statements that write event rows, their links and their occurrences, built from one list of
// an event's columns. The list is typed against Prisma's model of an event (prisma/schema.prisma),
// so a column added to the schema does not compile until it says how it is stored and what an
// occurrence takes of its series; the statements below then carry it. Each takes the transaction's
// statement runner: the driver's (services/events/create.ts, past Prisma) or Prisma's (db/driver.ts
// statementsOf), so that the same text runs whichever transaction a write is in.
import type { Event } from '../../generated/prisma/client.js';
import type { Driver } from '../db/driver.js';

/** What an occurrence of a series holds in a column (services/series.ts). */
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
  type: 'int' | 'text' | 'text[]' | 'boolean' | 'timestamp' | 'timestamptz' | 'jsonb' | '"PostStatus"';
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
  showMap: { column: 'show_map', type: 'boolean', occurrence: 'series' },
  showMapLink: { column: 'show_map_link', type: 'boolean', occurrence: 'series' },
  hideFromListings: { column: 'hide_from_listings', type: 'boolean', occurrence: 'series' },
  sticky: { column: 'sticky', type: 'boolean', occurrence: 'series' },
  featured: { column: 'featured', type: 'boolean', occurrence: 'series' },
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
  const iso = (value as Date).toISOString();
  return column.type === 'timestamp' ? iso.replace('Z', '') : iso;
}

/** Inserts one event with these fields (the others take the schema's defaults); its ID. */
export async function insertEventRow(run: Driver, fields: Partial<Event>): Promise<number> {
  const set = (Object.keys(EVENT_COLUMNS) as Field[]).filter((field) => fields[field] !== undefined);
  const columns = set.map((field) => EVENT_COLUMNS[field]);
  const [{ id }] = (await run(
    `INSERT INTO events (${columns.map((c) => c.column).join(', ')})
     VALUES (${columns.map((c, i) => `$${i + 1}::${c.type}`).join(', ')}) RETURNING id`,
    set.map((field, i) => parameter(columns[i], fields[field])),
  )) as { id: number }[];
  return id;
}

/** Links a new event to venues and organizers (in this order) and terms, in one statement. */
export async function insertLinks(
  run: Driver,
  eventId: number,
  links: { venues: number[]; organizers: number[]; terms: number[] },
): Promise<void> {
  const { venues, organizers, terms } = links;
  if (!venues.length && !organizers.length && !terms.length) return;
  // One statement: each link's trigger sees the event inserted before it.
  await run(
    `WITH v AS (INSERT INTO event_venues (event_id, venue_id, position)
                SELECT $1::int, t.id, t.n - 1 FROM unnest($2::int[]) WITH ORDINALITY AS t(id, n)),
          o AS (INSERT INTO event_organizers (event_id, organizer_id, position)
                SELECT $1::int, t.id, t.n - 1 FROM unnest($3::int[]) WITH ORDINALITY AS t(id, n))
     INSERT INTO event_terms (event_id, term_id) SELECT $1::int, t.id FROM unnest($4::int[]) AS t(id)`,
    [eventId, venues, organizers, terms],
  );
}

/** What a create names, to check in one read: linked posts and terms by ID, an author, a slug's stem. */
export interface CreateNames {
  venues: number[];
  organizers: number[];
  categories: number[];
  tags: number[];
  author: number | undefined;
  /** Slugs starting with it are read (a LIKE pattern, escaped). */
  slugsLike: string;
}

export interface CreateChecks {
  venues: LinkedPost[];
  organizers: LinkedPost[];
  categories: Set<number>;
  tags: Set<number>;
  authorExists: boolean;
  slugsTaken: string[];
}

interface LinkedPost {
  id: number;
  authorId: number | null;
  status: Event['status'];
}

/** Everything a create checks before it writes, read with one statement. */
export async function readCreateChecks(run: Driver, names: CreateNames): Promise<CreateChecks> {
  const rows = (await run(
    `SELECT 'venue' AS kind, id, author_id, status::text AS status, NULL AS slug FROM venues WHERE id = ANY($1::int[])
     UNION ALL SELECT 'organizer', id, author_id, status::text, NULL FROM organizers WHERE id = ANY($2::int[])
     UNION ALL SELECT taxonomy::text, id, NULL, NULL, NULL FROM terms
       WHERE (taxonomy = 'tribe_events_cat' AND id = ANY($3::int[])) OR (taxonomy = 'post_tag' AND id = ANY($4::int[]))
     UNION ALL SELECT 'user', id, NULL, NULL, NULL FROM users WHERE id = $5::int
     UNION ALL SELECT 'slug', NULL, NULL, NULL, slug FROM events WHERE slug LIKE $6::text`,
    [names.venues, names.organizers, names.categories, names.tags, names.author ?? null, names.slugsLike],
  )) as { kind: string; id: number; author_id: number | null; status: Event['status']; slug: string }[];
  const of = (kind: string) => rows.filter((r) => r.kind === kind);
  const posts = (kind: string) => of(kind).map((r) => ({ id: r.id, authorId: r.author_id, status: r.status }));
  return {
    venues: posts('venue'),
    organizers: posts('organizer'),
    categories: new Set(of('tribe_events_cat').map((r) => r.id)),
    tags: new Set(of('post_tag').map((r) => r.id)),
    authorExists: of('user').length > 0,
    slugsTaken: of('slug').map((r) => r.slug),
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
