// A realistic calendar for the benchmark, written with set-based SQL so that 100,000 events take
// seconds: events spread over three years (one year past, two ahead) in three time zones, most with
// a venue, an organizer or two, a category and tags. Venues and categories are skewed as real
// calendars are: a few busy venues and popular categories hold a large share of the events.
import type { SqlConnection } from '../../src/db/sql.js';

export interface CalendarSize {
  events: number;
  venues: number;
  organizers: number;
  categories: number;
  tags: number;
}

export const STANDARD: CalendarSize = { events: 10_000, venues: 500, organizers: 300, categories: 50, tags: 200 };

/**
 * A calendar of another size in the same proportions: a city with ten times the events has about
 * ten times the venues, organizers and tags, so a venue's or a category's share stays the same.
 */
export function scaledCalendar(events: number): CalendarSize {
  const factor = events / STANDARD.events;
  const scale = (n: number) => Math.max(5, Math.round(n * factor));
  return {
    events,
    venues: scale(STANDARD.venues),
    organizers: scale(STANDARD.organizers),
    categories: scale(STANDARD.categories),
    tags: scale(STANDARD.tags),
  };
}

// A pseudo-random integer in [0, m) from an index and a salt, through PostgreSQL's integer hash so that
// picks with different salts are independent: the same calendar on every run.
const pick = (index: string, salt: number, m: number) =>
  `((hashint4(((${index}) * 1009 + ${salt})::int)::bigint + 2147483648) % ${m})::int`;

const CITIES = [
  'Paris',
  'Lyon',
  'Berlin',
  'Hamburg',
  'Madrid',
  'Sevilla',
  'London',
  'Leeds',
  'Boston',
  'Denver',
  'Toronto',
  'Oslo',
  'Vienna',
  'Prague',
  'Lisbon',
  'Porto',
  'Dublin',
  'Milan',
  'Zurich',
  'Ghent',
];
const KINDS = [
  'Jazz Night',
  'Yoga Class',
  'Farmers Market',
  'Lecture',
  'Film Screening',
  'Workshop',
  'Chamber Concert',
  'City Tour',
  'Book Club',
  'Family Day',
  'Tasting',
  'Open Studio',
];
const array = (items: string[]) => `ARRAY[${items.map((item) => `'${item}'`).join(',')}]`;

const LOREM =
  '<p>Join us for an evening of music, talk and good company. Doors open half an hour before the start; seats are not numbered, so come early. ' +
  'The venue is accessible by public transport and has step-free access. Children under twelve come free with an adult.</p>';

export async function seedCalendar(sql: SqlConnection, size: CalendarSize, now: Date): Promise<void> {
  const today = now.toISOString().slice(0, 10);
  await sql.exec(`
    BEGIN;
    INSERT INTO users (login, display_name, email, role, password_hash)
      SELECT 'author' || n, 'Author ' || n, 'author' || n || '@example.org', 'author', 'scrypt$16384$8$1$AAAAAAAAAAAAAAAAAAAAAA==$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA='
      FROM generate_series(1, 5) n;

    INSERT INTO venues (author_id, slug, name, description, address, city, country, zip, phone, website, geo_lat, geo_lng)
      SELECT 1, 'venue-' || n, (${array(['Hall', 'Theatre', 'Gallery', 'Club', 'Park', 'Library'])})[1 + n % 6] || ' ' || n,
        'A venue in ' || (${array(CITIES)})[1 + n % 20] || '.', n || ' Main Street', (${array(CITIES)})[1 + n % 20], 'Country ' || (n % 7),
        lpad((10000 + n)::text, 5, '0'), '+1 555 ' || lpad(n::text, 4, '0'), 'https://venue-' || n || '.example.org',
        40 + ${pick('n', 1, 1000)} / 100.0, -5 + ${pick('n', 2, 2000)} / 100.0
      FROM generate_series(0, ${size.venues - 1}) n ORDER BY n;

    INSERT INTO organizers (author_id, slug, name, description, phone, website, email)
      SELECT 1, 'organizer-' || n, 'Organizer ' || n, 'Puts on events since ' || (1990 + n % 30) || '.',
        '+1 555 9' || lpad(n::text, 3, '0'), 'https://organizer-' || n || '.example.org', 'hello@organizer-' || n || '.example.org'
      FROM generate_series(0, ${size.organizers - 1}) n ORDER BY n;

    INSERT INTO terms (taxonomy, name, slug, description)
      SELECT 'tribe_events_cat', 'Category ' || n, 'category-' || n, '' FROM generate_series(0, ${size.categories - 1}) n ORDER BY n;
    INSERT INTO terms (taxonomy, name, slug, description)
      SELECT 'post_tag', 'Tag ' || n, 'tag-' || n, '' FROM generate_series(0, ${size.tags - 1}) n ORDER BY n;
    -- A few subcategories, as a real category tree has.
    UPDATE terms c SET parent_id = p.id FROM terms p
      WHERE c.taxonomy = 'tribe_events_cat' AND p.taxonomy = 'tribe_events_cat' AND c.name LIKE 'Category 4_' AND p.name = 'Category 0';

    INSERT INTO events (author_id, status, slug, title, description, published_at, modified_at, start_local, end_local, start_utc, end_utc,
                        timezone, all_day, cost, website, featured, hide_from_listings)
      SELECT 1 + n % 5,
        (CASE WHEN ${pick('n', 11, 20)} = 0 THEN 'draft' ELSE 'publish' END)::"PostStatus",
        'event-' || n,
        (${array(KINDS)})[1 + ${pick('n', 3, KINDS.length)}] || ' #' || n,
        '${LOREM}',
        t.start_local - interval '30 days', t.start_local - interval '20 days',
        t.start_local, t.start_local + (1 + n % 3) * interval '1 hour',
        t.start_local AT TIME ZONE t.zone, (t.start_local + (1 + n % 3) * interval '1 hour') AT TIME ZONE t.zone,
        t.zone, n % 20 = 1,
        CASE WHEN n % 5 < 3 THEN to_jsonb(5 + n % 40) END,
        CASE WHEN n % 4 = 0 THEN 'https://tickets.example.org/' || n END,
        ${pick('n', 12, 25)} = 0, ${pick('n', 13, 100)} = 0
      FROM generate_series(0, ${size.events - 1}) n
      CROSS JOIN LATERAL (SELECT
        date '${today}' - 365 + ${pick('n', 4, 3 * 365)} + make_interval(hours => 9 + n % 12, mins => (n % 4) * 15) AS start_local,
        (ARRAY['UTC', 'UTC', 'UTC', 'Europe/Paris', 'America/New_York'])[1 + n % 5] AS zone) t
      ORDER BY n;

    CREATE TEMP TABLE numbered_events AS SELECT id, (row_number() OVER (ORDER BY id) - 1)::int AS n FROM events;
    CREATE TEMP TABLE numbered_venues AS SELECT id, (row_number() OVER (ORDER BY id) - 1)::int AS n FROM venues;
    CREATE TEMP TABLE numbered_organizers AS SELECT id, (row_number() OVER (ORDER BY id) - 1)::int AS n FROM organizers;
    CREATE TEMP TABLE numbered_terms AS
      SELECT id, taxonomy, (row_number() OVER (PARTITION BY taxonomy ORDER BY id) - 1)::int AS n FROM terms;

    -- One venue for nine events in ten; a fifth of those at the busiest fiftieth of the venues.
    INSERT INTO event_venues (event_id, venue_id)
      SELECT e.id, v.id FROM numbered_events e
      JOIN numbered_venues v ON v.n = CASE WHEN ${pick('e.n', 14, 5)} = 0 THEN ${pick('e.n', 5, Math.ceil(size.venues / 50))} ELSE ${pick('e.n', 6, size.venues)} END
      WHERE ${pick('e.n', 15, 10)} <> 0;

    INSERT INTO event_organizers (event_id, organizer_id, position)
      SELECT DISTINCT ON (e.id, o.id) e.id, o.id, k FROM numbered_events e
      CROSS JOIN generate_series(0, 1) k
      JOIN numbered_organizers o ON o.n = ${pick('e.n * 2 + k', 7, size.organizers)}
      WHERE k = 0 OR e.n % 3 = 0;

    -- A category for every event (a quarter of them among the most popular tenth), two or three tags.
    INSERT INTO event_terms (event_id, term_id)
      SELECT e.id, t.id FROM numbered_events e
      JOIN numbered_terms t ON t.taxonomy = 'tribe_events_cat'
        AND t.n = CASE WHEN ${pick('e.n', 16, 4)} = 0 THEN ${pick('e.n', 8, Math.ceil(size.categories / 10))} ELSE ${pick('e.n', 9, size.categories)} END;
    INSERT INTO event_terms (event_id, term_id)
      SELECT DISTINCT e.id, t.id FROM numbered_events e
      CROSS JOIN generate_series(0, 2) k
      JOIN numbered_terms t ON t.taxonomy = 'post_tag' AND t.n = ${pick('e.n * 3 + k', 10, size.tags)}
      WHERE k < 2 OR e.n % 2 = 0;
    COMMIT;
  `);
}
