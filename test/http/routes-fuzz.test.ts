// Generated requests, valid and hostile, from every kind of caller, against the event, term, venue
// and organizer routes: none may answer 5xx, and every response must conform to the document (checked
// inside the test client).
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROLES } from '../../src/auth/roles.js';
import { seedOneOfEach } from '../setup/seed.js';
import { startServer, type TestServer } from '../setup/server.js';
import { FUZZ_SEED, fuzzRuns } from '../setup/budget.js';
import { storedRows } from '../setup/stored-rows.js';

const SEED = FUZZ_SEED;
const RUNS = fuzzRuns(1000);

const hostileString = fc.oneof(
  fc.string({ maxLength: 40 }),
  fc.string({ unit: 'grapheme', maxLength: 20 }),
  fc
    .tuple(
      fc.string({ maxLength: 5 }),
      fc.constantFrom('\u0000', '\ud800', '\u202e', '%', '_', '\\'),
      fc.string({ maxLength: 5 }),
    )
    .map((p) => p.join('')),
  fc.constantFrom(
    '',
    ' ',
    '\u0000',
    'a\u0000b',
    "'; DROP TABLE terms; --",
    '<script>',
    '%00',
    '..',
    '../../etc/passwd',
    '9'.repeat(30),
    '-1',
    '1e308',
    'NaN',
    'true',
    '[]',
    '{}',
    '\ud800',
  ),
);
const scalar = fc.oneof(hostileString, fc.integer(), fc.double(), fc.boolean(), fc.constant(null));
const value = fc.oneof(
  scalar,
  fc.array(scalar, { maxLength: 3 }),
  fc.dictionary(fc.string({ maxLength: 5 }), scalar, { maxKeys: 3 }),
);

/** Usually a good value, sometimes a hostile one: most requests then get past validation. */
const mostly = <T>(good: fc.Arbitrary<T>) => fc.oneof({ weight: 15, arbitrary: good }, { weight: 1, arbitrary: value });

// Events that pass the first checks, so that hostile values reach links, terms, zones and costs.
const eventBody = fc.record(
  {
    title: mostly(fc.constant('Fuzzed')),
    start_date: mostly(fc.constantFrom('tomorrow', '2031-03-30 02:30', '2026-11-01 01:30', '1999-12-31', '+1 week')),
    end_date: mostly(fc.constantFrom('2031-03-30 04:00', '2031-12-31T00:00:00Z', '+3 weeks', '9999-12-31 23:59:59')),
    timezone: mostly(fc.constantFrom('America/New_York', 'UTC+14', 'UTC-12:45', 'Etc/GMT+5', '')),
    venue: mostly(fc.constantFrom(1, 0, [1, 1], [], '1', { venue: 'Fuzz hall' }, [{ id: 1 }])),
    organizer: mostly(fc.constantFrom([2], 0, [{ organizer: 'Fuzz org' }, 2], [])),
    categories: mostly(fc.constantFrom(['Seed'], 'Seed,New one', [1], [], '')),
    tags: mostly(fc.constantFrom(['Seed', 2], 'x', [], '0')),
    cost: mostly(fc.constantFrom('10 – 25$', ['0', '5€'], 'Free', 12.5, '')),
    all_day: mostly(fc.boolean()),
    status: mostly(fc.constantFrom('publish', 'draft', 'future', 'trash')),
  },
  { requiredKeys: ['title', 'start_date', 'end_date'] },
);

// Mostly well-shaped bodies with hostile values, so that requests get past the first check.
const field = fc.oneof({ weight: 3, arbitrary: hostileString }, { weight: 1, arbitrary: value });
const body = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.record(
      Object.fromEntries(
        [
          ...[
            'name',
            'description',
            'slug',
            'parent',
            'id',
            'venue',
            'organizer',
            'address',
            'state',
            'country',
            'show_map',
            'website',
            'email',
            'image',
            'date',
            'date_utc',
            'status',
            'author',
            'geo_lat',
          ],
          ...[
            'title',
            'start_date',
            'end_date',
            'timezone',
            'all_day',
            'cost',
            'categories',
            'tags',
            'featured',
            'sticky',
            'hide_from_listings',
            'excerpt',
          ],
        ].map((k) => [k, field]),
      ),
      { requiredKeys: [] },
    ),
  },
  { weight: 1, arbitrary: value },
  { weight: 3, arbitrary: eventBody },
);
const queryKeys = [
  ...[
    'page',
    'per_page',
    'search',
    'exclude',
    'include',
    'order',
    'orderby',
    'hide_empty',
    'parent',
    'post',
    'event',
    'slug',
    'include[]',
    'junk',
    'has_events',
    'only_with_upcoming',
    'status',
    'status[]',
    'force',
  ],
  ...[
    'start_date',
    'end_date',
    'categories',
    'tags',
    'venue',
    'organizer',
    'featured',
    'geoloc',
    'geoloc_lat',
    'geoloc_lng',
    'post_parent',
  ],
];
const query = fc
  .array(fc.tuple(fc.constantFrom(...queryKeys), fc.oneof(hostileString, fc.integer().map(String))), { maxLength: 4 })
  .map((pairs) => new URLSearchParams(pairs).toString());
const id = fc.oneof(
  fc.integer({ min: 1, max: 6 }).map(String),
  fc.integer({ min: 1, max: 40 }).map(String),
  fc.constantFrom('0', 'abc', '99999999999', '-5', '1.5', '%20', 'by-slug'),
  fc.constantFrom('seed', 'seed-2').map((slug) => `by-slug/${slug}`),
  hostileString.filter((slug) => slug.isWellFormed()).map((slug) => `by-slug/${encodeURIComponent(slug)}`),
);

const request = fc.record({
  method: fc.constantFrom('GET', 'POST', 'PUT', 'PATCH', 'DELETE'),
  collection: fc.constantFrom('events', 'categories', 'tags', 'venues', 'organizers'),
  as: fc.constantFrom(null, ...ROLES),
  single: fc.boolean(),
  id,
  query,
  body,
  asForm: fc.boolean(),
});

describe('event, term, venue and organizer routes under generated requests', () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startServer('pglite');
    await seedOneOfEach(s);
  });
  afterAll(() => s?.close());

  it(`never answers 5xx and always conforms (seed ${SEED}, ${RUNS} runs)`, async () => {
    await fc.assert(
      fc.asyncProperty(request, async (r) => {
        const single = r.id.startsWith('by-slug/') ? `/${r.id}` : `/${encodeURIComponent(r.id)}`;
        const path = `/${r.collection}${r.single ? single : ''}${r.query ? `?${r.query}` : ''}`;
        const withBody = r.method !== 'GET' && r.method !== 'DELETE';
        const form =
          r.asForm && r.body && typeof r.body === 'object' && !Array.isArray(r.body)
            ? Object.fromEntries(
                Object.entries(r.body).map(([k, v]) => [k, typeof v === 'string' ? v : JSON.stringify(v)]),
              )
            : undefined;
        const bodyOption = form ? { form } : { body: r.body };
        const response = await s.request(r.method, path, {
          as: r.as,
          ...(withBody ? bodyOption : {}),
        });
        expect(response.status, `${r.method} ${path} ${JSON.stringify(r.body)}`).toBeLessThan(500);
      }),
      { seed: SEED, numRuns: RUNS },
    );
  }, 300_000);
});

describe('event writes under generated bodies', () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startServer('pglite');
    await s.post('/venues', { venue: 'Seed' });
    await s.post('/organizers', { organizer: 'Seed' });
    await s.post('/categories', { name: 'Seed' });
    await s.post('/tags', { name: 'Seed' });
  });
  afterAll(() => s?.close());

  const write = fc.record({
    update: fc.boolean(),
    as: fc.constantFrom('administrator', 'editor', 'contributor'),
    body: eventBody,
  });

  const writeRuns = Math.ceil(RUNS / 4);
  it(`creates and updates, or refuses with 4xx and writes nothing (seed ${SEED}, ${writeRuns} runs)`, async () => {
    const outcomes = new Map<number, number>();
    const target = (
      await s.post('/events', { title: 'Target', start_date: '2031-01-01 10:00', end_date: '2031-01-01 11:00' })
    ).body;
    await fc.assert(
      fc.asyncProperty(write, async ({ update, as, body: fields }) => {
        const before = await storedRows(s.db);
        const r = update
          ? await s.request('PATCH', `/events/${target.id}`, { body: fields, as })
          : await s.post('/events', fields, { as });
        outcomes.set(r.status, (outcomes.get(r.status) ?? 0) + 1);
        expect(r.status, JSON.stringify(fields)).toBeLessThan(500);
        if (r.status >= 400) expect(await storedRows(s.db), JSON.stringify(fields)).toBe(before);
      }),
      { seed: SEED, numRuns: writeRuns },
    );
    // The generator must reach the service: successes and refusals both occur, one in 25 runs each
    // (at least once in the fast part's few runs).
    const often = Math.max(1, Math.floor(writeRuns / 25));
    expect(outcomes.get(201) ?? 0).toBeGreaterThanOrEqual(often);
    expect(outcomes.get(200) ?? 0).toBeGreaterThanOrEqual(often);
    expect(outcomes.get(400) ?? 0).toBeGreaterThanOrEqual(often);
  }, 300_000);
});
