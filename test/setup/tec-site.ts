// A stand-in for a WordPress site running The Events Calendar, built from real answers of it
// (test/fixtures/tec-site/, copied from the reference captures, and a varied site in their shape):
// its five paged lists as that service pages them (per_page, page, total and total_pages in the
// body and the X-TEC-* headers, a 404 past the last page), single items by ID (drafts only to a
// signed-in reader, hidden events only here, a trashed event a 403 to anyone), and WordPress's own
// records of the events (`wp/v2/tribe_events`: the list of IDs, `include=`, `_fields`, the edit
// context to a signed-in reader only, trashed posts by ID). Tests change its items between imports,
// and can make it fail a number of requests first (503 or 429 with Retry-After).
// It can also be hostile (`hostile`): claim a billion pages and answer every page of the events
// lists with the same items again, or with new ones for ever.
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';

type Item = Record<string, any>;

const FIXTURES = path.join(import.meta.dirname, '..', 'fixtures', 'tec-site');
const PREFIX = '/wp-json/tribe/events/v1';

/** The body of a captured answer, moved back to the modelled service's own namespace. */
export function fixture(name: string): any {
  const text = fs
    .readFileSync(path.join(FIXTURES, `${name}.json`), 'utf8')
    .replaceAll('calendar/events/v1', 'tribe/events/v1');
  return JSON.parse(text).response;
}

export interface TecSite {
  /** The API's base URL, as `npm run import -- tec` takes it. */
  base: string;
  categories: Item[];
  tags: Item[];
  venues: Item[];
  organizers: Item[];
  /** All events, hidden, draft and trashed ones included. */
  events: Item[];
  /** WordPress's records of the events by ID (wordpress-events.json): status and date follow the event. */
  records: Map<number, Item>;
  /** Basic credentials that see drafts. */
  credentials: { user: string; password: string };
  /** The next `count` requests get `status` (with Retry-After: `retryAfter`, 0 by default). */
  failNext(count: number, status?: number, retryAfter?: string): void;
  /** Every request's path and query, in order. */
  requests: string[];
  /** Whether `wp/v2/tribe_events` is there (not on every site). */
  wordpressRoute: boolean;
  /**
   * The events lists (theirs and WordPress's) claim a billion pages and answer each page with the
   * first page again (`repeat`) or with new events for ever (`endless`).
   */
  hostile?: 'repeat' | 'endless';
  /** Files the site serves besides its API, by path (its uploads: `/wp-content/uploads/...`). */
  files: Map<string, { type: string; bytes: Buffer }>;
  /** Paths it answers with a 302 to the URL given (an upload moved elsewhere). */
  redirects: Map<string, string>;
  /** Called with each request before it is answered: tests change the site mid-import with it. */
  beforeAnswer?: (url: URL) => void;
  close(): Promise<void>;
}

/**
 * `count` more events, each a copy of one of the captured ones under a new ID, slug and date (a day
 * apart from 2027 on), with the same venue, organizers and terms: a large calendar in the real shape.
 */
export function addEvents(site: TecSite, count: number): void {
  const models = site.events.filter((e) => e.status === 'publish' && !e.hide_from_listings);
  for (let i = 0; i < count; i++) {
    const model = models[i % models.length];
    const copy = copyOf(model, 100_000 + i, 400 + i);
    site.events.push(copy);
    const record = site.records.get(model.id);
    if (record) site.records.set(copy.id, { ...structuredClone(record), id: copy.id });
  }
}

/** The model under a new ID and slug, `days` later. */
function copyOf(model: Item, id: number, days: number): Item {
  const shift = (text: string) => {
    const at = new Date(`${text.replace(' ', 'T')}Z`);
    at.setUTCDate(at.getUTCDate() + days);
    return at.toISOString().replace('T', ' ').slice(0, 19);
  };
  return {
    ...structuredClone(model),
    id,
    slug: `${model.slug}-${id}`,
    title: `${model.title} ${id}`,
    start_date: shift(model.start_date),
    end_date: shift(model.end_date),
    utc_start_date: shift(model.utc_start_date),
    utc_end_date: shift(model.utc_end_date),
  };
}

/** What a hostile site claims: a billion pages. */
const HOSTILE_PAGES = 1_000_000_000;

/** WordPress's answer for a post it does not have. */
const NO_POST = { code: 'rest_post_invalid_id', message: 'Invalid post ID.', data: { status: 404 } };

/** `varied`: the site also holds the events, venue and organizer of events-varied.json. */
export async function startTecSite(options: { varied?: boolean } = {}): Promise<TecSite> {
  const list = (name: string, key: string) => structuredClone(fixture(name).body[key]) as Item[];
  const varied = (key: string) => (options.varied ? list('events-varied', key) : []);
  const site = {
    categories: list('categories-list-all', 'categories'),
    tags: list('tags-list', 'tags'),
    venues: [...list('venues-list', 'venues'), ...varied('venues')],
    organizers: [...list('organizers-list', 'organizers'), ...varied('organizers')],
    events: [
      ...list('events-list-auth', 'events'),
      structuredClone(fixture('event-get-hidden').body) as Item,
      ...varied('events'),
    ],
    records: new Map((structuredClone(fixture('wordpress-events').body) as Item[]).map((r) => [r.id as number, r])),
    credentials: { user: 'admin', password: 'abcd efgh ijkl mnop qrst uvwx' },
    requests: [] as string[],
    wordpressRoute: true,
    hostile: undefined as TecSite['hostile'],
    files: new Map<string, { type: string; bytes: Buffer }>(),
    redirects: new Map<string, string>(),
  };
  let failures = { count: 0, status: 503, retryAfter: '0' };

  const answer = (req: http.IncomingMessage, res: http.ServerResponse) => {
    const url = new URL(req.url ?? '/', 'http://site.test');
    site.requests.push(`${url.pathname}${url.search}`);
    (site as Partial<TecSite>).beforeAnswer?.(url);
    const send = (status: number, body: unknown, headers: Record<string, string> = {}) => {
      // Bodies keep the captured https://example.org addresses: the importer follows none of them.
      const text = JSON.stringify(body);
      res.writeHead(status, { 'content-type': 'application/json; charset=UTF-8', ...headers });
      res.end(text);
    };
    if (failures.count > 0) {
      failures.count--;
      send(failures.status, { code: 'busy', message: 'Try again later.' }, { 'retry-after': failures.retryAfter });
      return;
    }
    const auth = req.headers.authorization;
    const expected = `Basic ${Buffer.from(`${site.credentials.user}:${site.credentials.password}`).toString('base64')}`;
    if (auth && auth !== expected) {
      send(401, { code: 'incorrect_password', message: 'The password is not right.', data: { status: 401 } });
      return;
    }
    const signedIn = auth === expected;
    const visible = (item: Item) => item.status !== 'trash' && (signedIn || item.status === 'publish');

    if (url.pathname.startsWith('/wp-json/wp/v2/tribe_events')) {
      answerPosts(url.pathname.slice('/wp-json/wp/v2/tribe_events'.length).replace(/^\//, ''));
      return;
    }
    if (!url.pathname.startsWith(`${PREFIX}/`)) {
      send(404, { code: 'rest_no_route', message: 'No route.', data: { status: 404 } });
      return;
    }
    const [route, id] = url.pathname.slice(PREFIX.length + 1).split('/');
    const items = (site as unknown as Record<string, Item[] | undefined>)[route];
    if (!items) {
      send(404, { code: 'rest_no_route', message: 'No route.', data: { status: 404 } });
      return;
    }
    if (id) {
      const item = items.find((i) => String(i.id) === id);
      if (!item) {
        // The modelled service answers an unknown venue or organizer with 400, an event with 404.
        if (route === 'events')
          send(404, { code: 'rest-event-not-found', message: 'Not found.', data: { status: 404 } });
        else send(400, { code: 'rest_invalid_param', message: 'Invalid parameter(s): id', data: { status: 400 } });
        return;
      }
      // The plugin answers an event in the trash with a 403, to its administrator too.
      if (!visible(item)) {
        send(403, { code: 'event-not-accessible', message: 'Not accessible.', data: { status: 403 } });
        return;
      }
      send(200, item);
      return;
    }
    const listed = items.filter((i) => visible(i) && !(route === 'events' && i.hide_from_listings));
    // Terms are listed by name, the others newest first, events by start.
    const ordered =
      route === 'events'
        ? [...listed].sort((a, b) => String(a.utc_start_date).localeCompare(String(b.utc_start_date)))
        : listed;
    const perPage = Math.min(Number(url.searchParams.get('per_page') ?? 10), 50);
    paged(url, ordered, perPage, route === 'events', (page, total, totalPages) => {
      const self = `${origin}${PREFIX}/${route}`;
      const pageNumber = Number(url.searchParams.get('page') ?? 1);
      const links = {
        rest_url: `${self}/?page=${pageNumber}&per_page=${perPage}`,
        ...(pageNumber < totalPages ? { next_rest_url: `${self}/?page=${pageNumber + 1}&per_page=${perPage}` } : {}),
        ...(pageNumber > 1 ? { previous_rest_url: `${self}/?page=${pageNumber - 1}&per_page=${perPage}` } : {}),
      };
      send(
        200,
        { [route]: page, ...links, total, total_pages: totalPages },
        { 'x-tec-total': String(total), 'x-tec-totalpages': String(totalPages) },
      );
    });

    /** WordPress's posts route: the list (`include`, `status`, `_fields`), or one post by ID. */
    function answerPosts(id: string) {
      if (!site.wordpressRoute) {
        send(404, { code: 'rest_no_route', message: 'No route.', data: { status: 404 } });
        return;
      }
      const edit = url.searchParams.get('context') === 'edit';
      if (edit && !signedIn) {
        send(401, {
          code: 'rest_forbidden_context',
          message: 'Sorry, you are not allowed to edit posts.',
          data: { status: 401 },
        });
        return;
      }
      const fields = url.searchParams.get('_fields')?.split(',');
      const shown = (event: Item) => {
        const record = site.records.get(event.id) ?? {};
        const post: Item = { ...record, id: event.id, status: event.status };
        if (!edit) delete post.password;
        return fields ? Object.fromEntries(Object.entries(post).filter(([key]) => fields.includes(key))) : post;
      };
      if (id) {
        const event = site.events.find((e) => String(e.id) === id);
        if (!event) send(404, NO_POST);
        else if (event.status !== 'publish' && !signedIn)
          send(401, { code: 'rest_forbidden', message: 'Sorry.', data: { status: 401 } });
        else send(200, shown(event));
        return;
      }
      const wanted = (url.searchParams.get('status') ?? 'publish').split(',');
      const include = url.searchParams.get('include')?.split(',');
      const posts = site.events
        .filter((e) => (signedIn || e.status === 'publish') && wanted.includes(e.status))
        .filter((e) => !include || include.includes(String(e.id)))
        .map(shown);
      paged(
        url,
        posts,
        Math.min(Number(url.searchParams.get('per_page') ?? 10), 100),
        false,
        (page, total, totalPages) => {
          send(200, page, { 'x-wp-total': String(total), 'x-wp-totalpages': String(totalPages) });
        },
      );
    }

    function paged(
      pageUrl: URL,
      all: unknown[],
      perPage: number,
      emptyIsNotFound: boolean,
      answer: (page: unknown[], total: number, totalPages: number) => void,
    ) {
      const page = Number(pageUrl.searchParams.get('page') ?? 1);
      if (site.hostile && (emptyIsNotFound || pageUrl.pathname.endsWith('/tribe_events'))) {
        answer(hostilePage(page, perPage, !emptyIsNotFound), HOSTILE_PAGES * perPage, HOSTILE_PAGES);
        return;
      }
      const totalPages = Math.ceil(all.length / perPage);
      // The events list answers an empty page 1 with 404 as well, as any page past the end.
      if (page > Math.max(totalPages, 1) || (emptyIsNotFound && totalPages === 0)) {
        send(404, {
          code: 'event-archive-page-not-found',
          message: 'The requested page was not found.',
          data: { status: 404 },
        });
        return;
      }
      answer(all.slice((page - 1) * perPage, page * perPage), all.length, totalPages);
    }

    /** A page of events (or only their IDs) that a hostile site makes up: page 1's again, or new ones. */
    function hostilePage(page: number, perPage: number, idsOnly: boolean): unknown[] {
      const models = site.events.filter((e) => e.status === 'publish' && !e.hide_from_listings);
      const first = site.hostile === 'repeat' ? 0 : (page - 1) * perPage;
      return Array.from({ length: perPage }, (_, i) => {
        const id = 10_000_000 + first + i;
        return idsOnly ? { id } : copyOf(models[i % models.length], id, (first + i) % 3000);
      });
    }
  };
  // Its uploads are files, answered before anything else (and not logged in `requests` as API calls are).
  const server = http.createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://site.test').pathname;
    const moved = site.redirects.get(path);
    if (moved) {
      site.requests.push(path);
      res.writeHead(302, { location: moved });
      res.end();
      return;
    }
    const file = site.files.get(path);
    if (!file) {
      answer(req, res);
      return;
    }
    site.requests.push(path);
    res.writeHead(200, { 'content-type': file.type, 'content-length': String(file.bytes.length) });
    res.end(file.bytes);
  });
  server.listen(0, '127.0.0.1');
  await new Promise<void>((resolve) =>
    server.once('listening', () => {
      resolve();
    }),
  );
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return Object.assign(site, {
    base: `${origin}${PREFIX}`,
    failNext(count: number, status = 503, retryAfter = '0') {
      failures = { count, status, retryAfter };
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => {
          resolve();
        });
      }),
  });
}
