// The yardstick of the benchmark: a bare node:http server that answers the single-event and event-list
// requests of the service with hand-written SQL through `pg` and JSON.stringify. No framework, no
// validation, no authentication: what the same data costs with nothing in between. It loads what the
// service's representation shows (the event, its venues, organizers and terms with their counts, its
// RSVP counts) so that the two do the same work on the database.
//
// And a bare create (POST to the event list), for event creation's yardstick: the statements of the
// service's create of a plain event by an editor, as PostgreSQL's `log_statement` shows them (the
// create's one read of its checks, the event and its links in one statement, atomic on its own, so
// in no transaction, as services/events/create.ts runs it; then the read-back of the event), each
// prepared as the service prepares them. They are the service's own statements
// (queries/event-storage.ts, queries/event-rows.ts), so that the two stay the same; only the
// service's authentication (one statement more per request) and its checks of the input are left out.
//
// Run as its own process: DATABASE_URL=... PORT=... node --import tsx scripts/bench/baseline.ts
import http from 'node:http';
import pg from 'pg';

const API = '/wp-json/calendar/events/v1';
const PREFIX = `${API}/events`;
const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: 10 });

// What the representation shows of the row: since RSVP (issue 53) its settings and counts too, and
// the event's status and virtual place.
const EVENT_COLUMNS = `id, author_id, status, slug, title, description, excerpt, published_at, modified_at, start_local, end_local,
  start_utc, end_utc, timezone, all_day, cost, website, image, image_meta, show_map, show_map_link, hide_from_listings, sticky,
  featured, event_status, event_status_reason, is_virtual, is_hybrid, virtual_url, rsvp_open, rsvp_capacity, rsvp_guests_max,
  rsvp_approval, rsvp_anonymous, rsvp_closes_before`;

type Row = Record<string, unknown> & { id: number };

async function related(ids: number[]) {
  const [venues, organizers, terms, rsvps] = await Promise.all([
    pool.query<Row>(
      `SELECT ev.event_id, v.* FROM event_venues ev JOIN venues v ON v.id = ev.venue_id WHERE ev.event_id = ANY($1) ORDER BY ev.position, v.id`,
      [ids],
    ),
    pool.query<Row>(
      `SELECT eo.event_id, o.* FROM event_organizers eo JOIN organizers o ON o.id = eo.organizer_id WHERE eo.event_id = ANY($1) ORDER BY eo.position, o.id`,
      [ids],
    ),
    pool.query<Row>(
      `SELECT et.event_id, t.* FROM event_terms et JOIN terms t ON t.id = et.term_id WHERE et.event_id = ANY($1) ORDER BY t.name`,
      [ids],
    ),
    // The RSVP counts each event shows, on the same index as the service's (queries/event-rows.ts).
    pool.query<Row>(
      `SELECT event_id, coalesce(sum(1 + guests) FILTER (WHERE status IN ('going', 'checked_in')), 0)::int AS going,
         coalesce(sum(1 + guests) FILTER (WHERE status = 'waiting'), 0)::int AS waiting,
         coalesce(sum(1 + guests) FILTER (WHERE status = 'checked_in'), 0)::int AS checked_in
       FROM rsvps WHERE event_id = ANY($1) AND status IN ('going', 'checked_in', 'waiting') GROUP BY event_id`,
      [ids],
    ),
  ]);
  const byEvent = (rows: Row[]) => {
    const map = new Map<number, Row[]>();
    for (const row of rows) {
      const list = map.get(row.event_id as number) ?? [];
      list.push(row);
      map.set(row.event_id as number, list);
    }
    return map;
  };
  return {
    venues: byEvent(venues.rows),
    organizers: byEvent(organizers.rows),
    terms: byEvent(terms.rows),
    rsvps: new Map(rsvps.rows.map((row) => [row.event_id as number, row])),
  };
}

function representation(event: Row, links: Awaited<ReturnType<typeof related>>, host: string) {
  const terms = links.terms.get(event.id) ?? [];
  const term = (t: Row) => ({
    id: t.id,
    name: t.name,
    slug: t.slug,
    taxonomy: t.taxonomy,
    description: t.description,
    parent: t.parent_id ?? 0,
    count: t.event_count,
  });
  return {
    ...event,
    url: `http://${host}/event/${String(event.slug)}/`,
    rest_url: `http://${host}${PREFIX}/${event.id}`,
    categories: terms.filter((t) => t.taxonomy === 'tribe_events_cat').map(term),
    tags: terms.filter((t) => t.taxonomy === 'post_tag').map(term),
    venue: links.venues.get(event.id) ?? [],
    organizer: links.organizers.get(event.id) ?? [],
    rsvp: links.rsvps.get(event.id) ?? { going: 0, waiting: 0, checked_in: 0 },
  };
}

async function single(id: number, host: string) {
  const { rows } = await pool.query<Row>(`SELECT ${EVENT_COLUMNS} FROM events WHERE id = $1`, [id]);
  if (!rows.length) return undefined;
  return representation(rows[0], await related([id]), host);
}

async function list(query: URLSearchParams, host: string) {
  const now = new Date();
  // Listed as the service lists them by default: published, not hidden, not a series (whose
  // occurrences are listed instead; src/queries/event-list.ts).
  const where = [
    `status = 'publish'`,
    `NOT hide_from_listings`,
    `recurrence = '{}'`,
    `start_utc >= $1`,
    `start_utc <= $2`,
  ];
  const startDate = query.get('start_date');
  const categories = query.get('categories');
  const venue = query.get('venue');
  const params: unknown[] = [
    startDate ? new Date(startDate) : now,
    query.get('end_date')
      ? new Date(`${query.get('end_date')}T23:59:59Z`)
      : new Date(now.getTime() + 2 * 365.25 * 86400_000),
  ];
  if (categories) {
    params.push(categories.split(',').map(Number));
    where.push(`id IN (SELECT event_id FROM event_terms WHERE term_id = ANY($${params.length}))`);
  }
  if (venue) {
    params.push(venue.split(',').map(Number));
    where.push(`id IN (SELECT event_id FROM event_venues WHERE venue_id = ANY($${params.length}))`);
  }
  // Search by words, as the service does it (src/queries/word-search.ts), on the same index.
  const search = words(query.get('search'));
  if (search.length) {
    params.push(search.join(' '));
    where.push(`search_vector @@ search_query($${params.length}::text)`);
  }
  const perPage = Math.min(Number(query.get('per_page') ?? 12), 50);
  const page = Number(query.get('page') ?? 1);
  const clause = where.join(' AND ');
  const [count, rows] = await Promise.all([
    pool.query<{ total: number }>(`SELECT count(*)::int AS total FROM events WHERE ${clause}`, params),
    pool.query<Row>(
      `SELECT ${EVENT_COLUMNS} FROM events WHERE ${clause} ORDER BY start_utc, id LIMIT ${perPage} OFFSET ${(page - 1) * perPage}`,
      params,
    ),
  ]);
  const links = await related(rows.rows.map((r) => r.id));
  const total = count.rows[0].total;
  return {
    events: rows.rows.map((r) => representation(r, links, host)),
    total,
    total_pages: Math.ceil(total / perPage),
  };
}

/** The distinct words of a search (the benchmark's searches are letters only: no punctuation words). */
const words = (search: string | null) => [...new Set((search ?? '').split(/\s+/).filter(Boolean))].slice(0, 8);

/** The venue list with `search`: every word in the name, description or address fields, on the same index. */
async function venues(query: URLSearchParams) {
  const vector = `search_vector(name || ' ' || description || ' ' || excerpt || ' ' || address || ' ' || city || ' ' ||
    country || ' ' || province || ' ' || state || ' ' || stateprovince || ' ' || zip || ' ' || phone)`;
  const search = words(query.get('search'));
  const params = search.length ? [search.join(' ')] : [];
  const clause = [`status = 'publish'`, ...params.map(() => `${vector} @@ search_query($1::text)`)].join(' AND ');
  const [count, rows] = await Promise.all([
    pool.query<{ total: number }>(`SELECT count(*)::int AS total FROM venues WHERE ${clause}`, params),
    pool.query(`SELECT * FROM venues WHERE ${clause} ORDER BY published_at DESC, id DESC LIMIT 12`, params),
  ]);
  const total = count.rows[0].total;
  return { venues: rows.rows, total, total_pages: Math.ceil(total / 12) };
}

/**
 * The service's statements for a create, loaded at the first one (they come with Prisma's runtime,
 * which the reads, measured before, do without), and a statement runner on the pool that prepares
 * them as the service's driver does (db/driver.ts).
 */
let writing: ReturnType<typeof loadWriting> | undefined;
const loadWriting = async () => {
  const [storage, rows, slug] = await Promise.all([
    import('../../src/queries/event-storage.js'),
    import('../../src/queries/event-rows.js'),
    import('../../src/lib/slug.js'),
  ]);
  const names = new Map<string, string>();
  const run = async (text: string, values: unknown[], options?: { prepare?: boolean }) => {
    let name = options?.prepare ? names.get(text) : undefined;
    if (options?.prepare && !name) names.set(text, (name = `b${names.size + 1}`));
    return (await pool.query({ name, text, values })).rows as unknown[];
  };
  const readBack = `SELECT (${rows.EVENT_JSON.text})::text AS event FROM (SELECT * FROM events e WHERE e.id = $1::int) e`;
  // The account the service's creates are written by (scripts/bench/fixtures.ts seed).
  const { rows: author } = await pool.query<{ id: number }>(`SELECT id FROM users WHERE login = 'bench'`);
  return { ...storage, ...slug, run, readBack, authorId: author[0].id };
};

interface NewEvent {
  title: string;
  description?: string;
  start_date: string;
  end_date: string;
  cost?: string;
  venue?: number;
  organizer?: number[];
  categories?: number[];
  tags?: number[];
}

/** Wall-clock text of the site's zone (UTC, the service's default) as the Date the service stores. */
const utc = (text: string) => new Date(`${text.replace(' ', 'T')}Z`);

async function create(body: string, host: string) {
  // A failure to load is answered by this create, and the next one tries again.
  const w = await (writing ??= loadWriting().catch((err: unknown) => {
    writing = undefined;
    throw err;
  }));
  const input = JSON.parse(body) as NewEvent;
  const title = input.title.trim();
  const base = w.slugify(title);
  const ids = (value: number | number[] | undefined) => (value === undefined ? [] : [value].flat());
  const found = await w.readCreateChecks(w.run, {
    venues: ids(input.venue),
    organizers: ids(input.organizer),
    categories: ids(input.categories),
    tags: ids(input.tags),
    author: undefined,
    slug: base,
  });
  const [start, end] = [utc(input.start_date), utc(input.end_date)];
  const now = new Date();
  const id = await w.insertEventAndLinks(
    w.run,
    {
      authorId: w.authorId,
      status: 'publish',
      slug: w.firstFreeSlug(base, found.slugsTaken),
      title,
      description: input.description ?? '',
      publishedAt: now,
      modifiedAt: now,
      startLocal: start,
      endLocal: end,
      startUtc: start,
      endUtc: end,
      timezone: 'UTC',
      allDay: false,
      cost: input.cost ?? null,
      recurrence: [],
    },
    {
      venues: ids(input.venue),
      organizers: ids(input.organizer),
      terms: [...ids(input.categories), ...ids(input.tags)],
    },
  );
  const [row] = (await w.run(w.readBack, [id], { prepare: true })) as { event: string }[];
  const event = JSON.parse(row.event) as Row;
  return { ...event, url: `http://${host}/event/${String(event.slug)}/`, rest_url: `http://${host}${PREFIX}/${id}` };
}

const bodyOf = (req: http.IncomingMessage) =>
  new Promise<string>((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      resolve(Buffer.concat(chunks).toString('utf8'));
    });
    req.on('error', reject);
  });

async function answer(req: http.IncomingMessage, res: http.ServerResponse) {
  const url = new URL(req.url ?? '/', 'http://localhost');
  const host = req.headers.host ?? 'localhost';
  try {
    if (req.method === 'POST' && url.pathname === PREFIX) {
      const created = await create(await bodyOf(req), host);
      res.writeHead(201, { 'Content-Type': 'application/json; charset=UTF-8', Location: created.rest_url });
      res.end(JSON.stringify(created));
      return;
    }
    let body: unknown;
    if (url.pathname === `${API}/venues`) body = await venues(url.searchParams);
    else if (url.pathname === PREFIX || url.pathname === `${PREFIX}/`) body = await list(url.searchParams, host);
    else if (url.pathname.startsWith(`${PREFIX}/`))
      body = await single(Number(url.pathname.slice(PREFIX.length + 1)), host);
    res.writeHead(body ? 200 : 404, { 'Content-Type': 'application/json; charset=UTF-8' });
    res.end(JSON.stringify(body ?? { code: 'rest_no_route' }));
  } catch (err) {
    res.writeHead(500, { 'Content-Type': 'application/json; charset=UTF-8' });
    res.end(JSON.stringify({ code: 'error', message: String(err) }));
  }
}

const server = http.createServer((req, res) => {
  void answer(req, res); // answers its own errors with a 500
});
server.listen(Number(process.env.PORT), '127.0.0.1');
// Ends as a process that returns, so that V8 writes its profile under `--cpu-prof` (the profile
// part, scripts/bench/profile.ts): a process killed by the signal writes none.
process.once('SIGTERM', () => process.exit(0));
