// WordPress's batch route (`POST /wp-json/batch/v1`), on both databases: each request answered as
// if it had come alone (permissions, validation, If-Match, Idempotency-Key, rate limits, the change
// feed), in order; `require-all-validate` checks all first and applies all or none, in one
// transaction, also when a request fails while they run; nesting and uploads refused; at most 25.
import { expect, it } from 'vitest';
import type { Role } from '../../src/auth/roles.js';
import { describeEachDatabase } from '../setup/each-database.js';
import { settled } from '../setup/feed.js';
import { assertConforms } from '../setup/contract.js';
import type { TestServer } from '../setup/server.js';

const NS = '/calendar/events/v1';

interface Answer {
  status: number;
  headers: Record<string, string>;
  body: any;
}

interface Item {
  method?: string;
  path: string;
  body?: object;
  headers?: Record<string, string | string[]>;
}

const batch = (s: TestServer, requests: Item[], options: { validation?: string; as?: Role | null } = {}) =>
  s.post<{ failed?: string; responses: (Answer | null)[]; code?: string }>(
    '/batch/v1',
    { ...(options.validation ? { validation: options.validation } : {}), requests },
    { fromRoot: true, as: options.as },
  );

/** Each inner answer must conform to the document as the same request sent alone must. */
function conforming(items: Item[], responses: (Answer | null)[]) {
  responses.forEach((answer, i) => {
    if (!answer) return;
    const [path, search = ''] = items[i].path.slice(NS.length).split('?');
    assertConforms({
      method: items[i].method ?? 'POST',
      path: path || '/',
      search: search && `?${search}`,
      status: answer.status,
      // The envelope keeps the answer's own headers, not its framing: the body is JSON.
      headers: new Headers({ ...answer.headers, 'Content-Type': 'application/json' }),
      body: answer.body,
    });
  });
}

/** The events' dates lie beyond the list's default window of two years. */
const WINDOW = 'start_date=2041-01-01&end_date=2041-12-31';

let n = 0;
const event = (title = `Batch event ${++n}`) => ({
  title,
  start_date: '2041-05-01 20:00',
  end_date: '2041-05-01 22:00',
});

/** The changes recorded after `since` (the feed's cursor), all of them. */
async function changesSince(s: TestServer, since: string | undefined) {
  await settled(s);
  const r = await s.get(`/changes?per_page=500${since ? `&since=${since}` : ''}`);
  expect(r.status).toBe(200);
  return r.body as { changes: { type: string; id: number; action: string }[]; next_cursor: string };
}

describeEachDatabase('the batch route', (s, kind) => {
  it('runs each request in order and answers 207 with its status, headers and body', async () => {
    const items: Item[] = [
      { path: `${NS}/events`, body: event('First of a batch') },
      { method: 'DELETE', path: `${NS}/events/987654321` },
      { path: `${NS}/venues?_fields=id,venue`, body: { venue: 'Batch Hall' } },
    ];
    const r = await batch(s, items);
    expect(r.status).toBe(207);
    expect(r.body.failed).toBeUndefined();
    const [created, missing, venue] = r.body.responses as Answer[];
    expect(Object.keys(created)).toEqual(['body', 'status', 'headers']);
    expect(created.status).toBe(201);
    expect(created.headers.Location).toBe(`${s.base}/events/${created.body.id}`);
    expect(created.headers.RateLimit).toMatch(/"writes"/);
    expect(created.headers['X-Request-Id']).toBeUndefined();
    expect(created.body.title).toBe('First of a batch');
    expect(missing.status).toBe(404);
    expect(missing.body.code).toBe('rest-event-not-found');
    expect(venue.status).toBe(201);
    expect(Object.keys(venue.body)).toEqual(['id', 'venue']);
    conforming(items, r.body.responses);
    // The write is there, as if it had been sent alone.
    expect((await s.get(`/events/${created.body.id}`)).body.title).toBe('First of a batch');
  });

  it('checks each request with the caller of the batch, and never with credentials it carries', async () => {
    const items: Item[] = [
      { path: `${NS}/events`, body: event() },
      // Editors may not subscribe webhooks; the administrator's token in the request changes nothing.
      {
        path: `${NS}/webhooks`,
        body: { url: 'https://hooks.example.org/x', events: ['event.*'] },
        headers: { Authorization: `Bearer ${s.users.administrator.appPassword}` },
      },
    ];
    const asEditor = await batch(s, items, { as: 'editor' });
    expect(asEditor.body.responses.map((a) => a?.status)).toEqual([201, 403]);
    const anonymous = await batch(s, items, { as: null });
    expect(anonymous.status).toBe(207);
    expect(anonymous.body.responses.map((a) => a?.status)).toEqual([401, 401]);
    conforming(items, anonymous.body.responses);
    // Wrong credentials are refused for the batch as a whole, as on every route.
    const wrong = await s.post(
      '/batch/v1',
      { requests: items },
      {
        fromRoot: true,
        as: null,
        headers: { authorization: 'Basic ' + Buffer.from('administrator:wrong').toString('base64') },
      },
    );
    expect(wrong.status).toBe(401);
  });

  it('honours If-Match and Idempotency-Key per request', async () => {
    const created = (await s.post('/events', event())).body;
    const etag = (await s.get(`/events/${created.id}`)).headers.get('etag')!;
    const key = `batch-key-${++n}`;
    const items: Item[] = [
      {
        method: 'PATCH',
        path: `${NS}/events/${created.id}`,
        body: { title: 'Stale' },
        headers: { 'If-Match': '"stale"' },
      },
      { method: 'PATCH', path: `${NS}/events/${created.id}`, body: { title: 'Fresh' }, headers: { 'If-Match': etag } },
      { path: `${NS}/events`, body: { ...event(`Keyed ${n}`) }, headers: { 'Idempotency-Key': key } },
    ];
    const first = await batch(s, items);
    expect(first.body.responses.map((a) => a?.status)).toEqual([412, 200, 201]);
    const again = await batch(s, [items[2]]);
    const [replayed] = again.body.responses as Answer[];
    expect(replayed.status).toBe(201);
    expect(replayed.headers['Idempotent-Replayed']).toBe('true');
    expect(replayed.body.id).toBe(first.body.responses[2]!.body.id);
    expect((await s.get(`/events/${created.id}`)).body.title).toBe('Fresh');
  });

  it('with require-all-validate, runs nothing when one request does not validate', async () => {
    const { next_cursor: before } = await changesSince(s, undefined);
    const title = `Never written ${++n}`;
    const items: Item[] = [
      { path: `${NS}/events`, body: event(title) },
      { method: 'PATCH', path: `${NS}/events/1`, body: { start_date: 'not a date at all', featured: 'maybe' } },
      { method: 'PUT', path: `${NS}/nowhere` },
    ];
    const r = await batch(s, items, { validation: 'require-all-validate' });
    expect(r.status).toBe(207);
    expect(r.body.failed).toBe('validation');
    const [first, invalid, nowhere] = r.body.responses;
    expect(first).toBeNull();
    expect(invalid!.status).toBe(400);
    expect(invalid!.body.code).toBe('rest_invalid_param');
    expect(nowhere!.status).toBe(404);
    expect(nowhere!.body.code).toBe('rest_no_route');
    const found = await s.get(`/events?search=${encodeURIComponent(title)}&${WINDOW}`);
    expect(found.status).toBe(200);
    expect(found.body.events).toEqual([]);
    expect((await changesSince(s, before)).changes).toEqual([]);
  });

  it('with require-all-validate, undoes every write when a request fails while they run', async () => {
    const { next_cursor: before } = await changesSince(s, undefined);
    const tag = `Rolled back ${++n}`;
    const kept = (await s.post('/events', event())).body;
    const { next_cursor: afterSetup } = await changesSince(s, before);
    const items: Item[] = [
      { path: `${NS}/tags`, body: { name: tag } },
      { method: 'PATCH', path: `${NS}/events/${kept.id}`, body: { title: 'Changed, then undone' } },
      { method: 'DELETE', path: `${NS}/events/${kept.id}` },
      // Valid, but there is no such event: found out only when it runs.
      { method: 'DELETE', path: `${NS}/events/987654321` },
      { path: `${NS}/events`, body: event() },
    ];
    const r = await batch(s, items, { validation: 'require-all-validate' });
    expect(r.status).toBe(207);
    expect(r.body.failed).toBe('transaction');
    expect(r.body.responses.map((a) => a?.status ?? null)).toEqual([null, null, null, 404, null]);
    conforming(items, r.body.responses);
    expect((await s.get(`/tags?search=${encodeURIComponent(tag)}`)).body.tags).toEqual([]);
    const after = (await s.get(`/events/${kept.id}`)).body;
    expect(after.title).toBe(kept.title);
    expect(after.status).toBe('publish');
    expect((await changesSince(s, afterSetup)).changes).toEqual([]);
  });

  it('with require-all-validate, applies all in one and the feed sees each write once', async () => {
    const { next_cursor: before } = await changesSince(s, undefined);
    const target = (await s.post('/events', event())).body;
    const { next_cursor: start } = await changesSince(s, before);
    const items: Item[] = [
      { path: `${NS}/venues`, body: { venue: `All-or-none hall ${++n}` } },
      { method: 'PATCH', path: `${NS}/events/${target.id}`, body: { featured: true } },
      { path: `${NS}/events`, body: event() },
      { method: 'DELETE', path: `${NS}/events/${target.id}` },
    ];
    const r = await batch(s, items, { validation: 'require-all-validate' });
    expect(r.body.failed).toBeUndefined();
    expect(r.body.responses.map((a) => a!.status)).toEqual([201, 200, 201, 200]);
    conforming(items, r.body.responses);
    const [venue, , created] = r.body.responses as Answer[];
    const changes = (await changesSince(s, start)).changes.map((c) => `${c.type}:${c.id}`);
    expect(changes.sort()).toEqual([`venue:${venue.body.id}`, `event:${target.id}`, `event:${created.body.id}`].sort());
  });

  it('refuses nesting, uploads, reads, more than 25 requests and malformed batches', async () => {
    const nested = await batch(s, [
      { path: '/batch/v1', body: { requests: [] } },
      { path: `${NS}/../../batch/v1`, body: { requests: [] } },
      { path: `${NS}/media` },
      { path: '/wp/v2/posts', body: { title: 'x' } },
    ]);
    expect(nested.body.responses.map((a) => [a?.status, a?.body.code])).toEqual([
      [400, 'rest_batch_not_allowed'],
      [404, 'rest_no_route'],
      [400, 'rest_batch_not_allowed'],
      [404, 'rest_no_route'],
    ]);
    const strict = await batch(s, [{ path: '/batch/v1', body: { requests: [] } }], {
      validation: 'require-all-validate',
    });
    expect(strict.body.failed).toBe('validation');
    expect(strict.body.responses[0]!.body.code).toBe('rest_batch_not_allowed');

    const read = await batch(s, [{ method: 'GET', path: `${NS}/events` }]);
    expect(read.status).toBe(400);
    expect(read.body.code).toBe('rest_invalid_param');
    const many = Array.from({ length: 26 }, () => ({ path: `${NS}/tags`, body: { name: 'too many' } }));
    const tooMany = await batch(s, many);
    expect(tooMany.status).toBe(400);
    expect(tooMany.body.code).toBe('rest_invalid_param');
    expect((await s.get('/tags?search=too%20many')).body.tags).toEqual([]);
    const exactly = await batch(
      s,
      many.slice(0, 25).map((item, i) => ({ ...item, body: { name: `Limit ${n}-${i}` } })),
    );
    expect(exactly.body.responses.every((a) => a?.status === 201)).toBe(true);

    for (const body of [{}, { requests: 'no' }, { requests: [{}] }, { requests: [{ path: 'relative' }] }]) {
      const r = await s.post('/batch/v1', body, { fromRoot: true });
      expect(r.status, JSON.stringify(body)).toBe(400);
    }
    const malformed = await s.request('POST', '/batch/v1', {
      fromRoot: true,
      raw: { contentType: 'application/json', data: '{"requests": [' },
    });
    expect(malformed.status).toBe(400);
    // Also under the namespace, for tools that read only the document's top-level server; a write only.
    expect((await s.post('/batch/v1', { requests: [] })).status).toBe(207);
    const get = await s.get('/batch/v1', { fromRoot: true });
    expect(get.status).toBe(405);
    expect(get.headers.get('allow')).toBe('POST');
  });

  it('sends any path as the same text, and answers every request in its place', async () => {
    const venue = (await s.post('/venues', { venue: `Odd paths hall ${++n}` })).body;
    const items: Item[] = [
      { path: `${NS}/tags`, body: { name: `Before odd paths ${n}` } },
      { method: 'DELETE', path: `${NS}/venues/by-slug/${venue.slug}` },
      // Found the route (the venue's own 404, not rest_no_route): the slug arrived as written.
      { method: 'DELETE', path: `${NS}/venues/by-slug/café-${n}` },
      { method: 'DELETE', path: `${NS}/tags/1\u007f` },
      { method: 'DELETE', path: `${NS}/tags/1?a=ÿ b` },
      { method: 'DELETE', path: `${NS}/events/by-slug/日本` },
      // A fragment is no part of the route: this is the upload route, which no batch may reach.
      { path: `${NS}/media/#`, body: { title: 'x' } },
      { path: `${NS}/tags`, body: { name: `After odd paths ${n}` } },
    ];
    const r = await batch(s, items);
    expect(r.status).toBe(207);
    expect(r.body.responses.map((a) => a!.status)).toEqual([201, 200, 404, 404, 404, 404, 400, 201]);
    expect(r.body.responses[2]!.body.code).toBe('rest-venue-not-found');
    expect(r.body.responses[5]!.body.code).toBe('rest-event-not-found');
    expect(r.body.responses[6]!.body.code).toBe('rest_batch_not_allowed');
    conforming(items, r.body.responses);
    // Text that is not Unicode, or a header value that HTTP cannot carry, is refused with the batch.
    const surrogate = await s.request('POST', '/batch/v1', {
      fromRoot: true,
      raw: { contentType: 'application/json', data: `{"requests":[{"method":"DELETE","path":"${NS}/tags/\\ud800"}]}` },
    });
    expect(surrogate.status).toBe(400);
    const header = await batch(s, [{ path: `${NS}/tags`, body: { name: 'x' }, headers: { 'X-Note': '€' } }]);
    expect(header.status).toBe(400);
  });

  it('checks a request before it runs as it will be read: form-like scalars are taken', async () => {
    const items: Item[] = [{ path: `${NS}/events`, body: { ...event(), featured: 'true' } }];
    const alone = await s.post('/events', items[0].body);
    expect(alone.status).toBe(201);
    const r = await batch(s, items, { validation: 'require-all-validate' });
    expect(r.body.failed).toBeUndefined();
    expect(r.body.responses[0]!.status).toBe(201);
    expect(r.body.responses[0]!.body.featured).toBe(true);
  });

  it('takes an inner request with as many headers as the document allows, anonymous or not', async () => {
    const headers = Object.fromEntries(
      Array.from({ length: 20 }, (_, i) => [`X-Long-${i}`, Array.from({ length: 10 }, () => 'a'.repeat(2000))]),
    );
    for (const as of [null, 'editor'] as const) {
      const r = await batch(s, [{ method: 'DELETE', path: `${NS}/events/2147483647`, headers }], { as });
      expect(r.status).toBe(207);
      expect(r.body.responses[0]!.status).toBe(as ? 404 : 401);
    }
  });

  it('is listed with its namespace in the REST root and the namespace index', async () => {
    const root = { body: (await (await fetch(`${s.origin}/wp-json/`)).json()) as any };
    expect(root.body.namespaces).toEqual(['calendar/events/v1', 'batch/v1']);
    expect(root.body.routes['/batch/v1']).toMatchObject({ namespace: 'batch/v1', methods: ['POST'] });
    expect(root.body.routes['/batch/v1'].endpoints[0].args.requests).toMatchObject({ type: 'array', required: true });
    const index = await s.get('/');
    expect(index.body.routes['/batch/v1'].namespace).toBe('batch/v1');
    const described = await fetch(`${s.origin}/wp-json/batch/v1`, { method: 'OPTIONS' });
    expect(described.status).toBe(200);
    expect(described.headers.get('allow')).toBe('OPTIONS, POST');
    expect(((await described.json()) as { namespace: string }).namespace).toBe('batch/v1');
  });

  if (kind === 'postgresql') {
    it('keeps batches that write the same rows at once apart, each all or none', async () => {
      // Ten all-or-none batches at once, each raising the same venue's counter field by appending to
      // its name and creating an event; each one's writes land together or not at all.
      const venue = (await s.post('/venues', { venue: 'Contended' })).body;
      const runs = await Promise.all(
        Array.from({ length: 10 }, (_, i) =>
          batch(
            s,
            [
              { method: 'PATCH', path: `${NS}/venues/${venue.id}`, body: { city: `City ${i}` } },
              { path: `${NS}/events`, body: { ...event(`Contended ${n}-${i}`), venue: venue.id } },
              { method: 'PATCH', path: `${NS}/venues/${venue.id}`, body: { phone: `${i}` } },
            ],
            { validation: 'require-all-validate' },
          ),
        ),
      );
      const applied = runs.filter((r) => !r.body.failed);
      for (const r of runs) {
        expect(r.status).toBe(207);
        if (r.body.failed) expect(r.body.responses.filter(Boolean).map((a) => a!.status)).toEqual([409]);
      }
      expect(applied.length).toBeGreaterThan(0);
      const events = await s.get(`/events?venue=${venue.id}&${WINDOW}&per_page=50`);
      expect(events.body.events).toHaveLength(applied.length);
      // The venue ends as the last applied batch left it: its city and phone from the same batch.
      const final = (await s.get(`/venues/${venue.id}`)).body;
      expect(final.city.replace('City ', '')).toBe(final.phone);
    });
  }
});

describeEachDatabase(
  'the batch route and the rate limits',
  (s) => {
    it('counts each request as what it is, and the batch itself as one read', async () => {
      const r = await batch(s, [
        { path: `${NS}/events`, body: event() },
        { path: `${NS}/events`, body: event() },
        { path: `${NS}/events`, body: event() },
        { path: `${NS}/events`, body: event() },
      ]);
      expect(r.status).toBe(207);
      expect(r.body.responses.map((a) => a!.status)).toEqual([201, 201, 201, 429]);
      expect(r.body.responses[3]!.body.code).toBe('rest_rate_limited');
      expect(r.body.responses[3]!.headers['Retry-After']).toBeDefined();
      expect((await batch(s, [])).headers.get('ratelimit')).toMatch(/"reads"/);
    });
  },
  { env: { RATE_LIMIT_WRITES: '3' } },
);
