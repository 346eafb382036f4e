// Generated requests, valid and hostile, from every kind of caller, against the term, venue and
// organizer routes: none may answer 5xx, and every response must conform to the document (checked
// inside the test client).
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROLES } from '../../src/auth/roles.js';
import { startServer, type TestServer } from '../setup/server.js';

const SEED = Number(process.env.FUZZ_SEED ?? 20261122);
const RUNS = Number(process.env.FUZZ_RUNS ?? 1000);

const hostileString = fc.oneof(
  fc.string({ maxLength: 40 }),
  fc.string({ unit: 'grapheme', maxLength: 20 }),
  fc.tuple(fc.string({ maxLength: 5 }), fc.constantFrom('\u0000', '\ud800', '\u202e', '%', '_', '\\'), fc.string({ maxLength: 5 })).map((p) => p.join('')),
  fc.constantFrom('', ' ', '\u0000', 'a\u0000b', "'; DROP TABLE terms; --", '<script>', '%00', '..', '../../etc/passwd', '9'.repeat(30), '-1', '1e308', 'NaN', 'true', '[]', '{}', '\ud800'),
);
const scalar = fc.oneof(hostileString, fc.integer(), fc.double(), fc.boolean(), fc.constant(null));
const value = fc.oneof(scalar, fc.array(scalar, { maxLength: 3 }), fc.dictionary(fc.string({ maxLength: 5 }), scalar, { maxKeys: 3 }));

// Mostly well-shaped bodies with hostile values, so that requests get past the first check.
const field = fc.oneof({ weight: 3, arbitrary: hostileString }, { weight: 1, arbitrary: value });
const body = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.record(
      Object.fromEntries(
        ['name', 'description', 'slug', 'parent', 'id', 'venue', 'organizer', 'address', 'state', 'country', 'show_map', 'website', 'email', 'image', 'date', 'date_utc', 'status', 'author', 'geo_lat'].map((k) => [k, field]),
      ),
      { requiredKeys: [] },
    ),
  },
  { weight: 1, arbitrary: value },
);
const queryKeys = ['page', 'per_page', 'search', 'exclude', 'include', 'order', 'orderby', 'hide_empty', 'parent', 'post', 'event', 'slug', 'include[]', 'junk', 'has_events', 'only_with_upcoming', 'status', 'status[]', 'force'];
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
  collection: fc.constantFrom('categories', 'tags', 'venues', 'organizers'),
  as: fc.constantFrom(null, ...ROLES),
  single: fc.boolean(),
  id,
  query,
  body,
  asForm: fc.boolean(),
});

describe('term, venue and organizer routes under generated requests', () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startServer('pglite');
    await s.post('/categories', { name: 'Seed' });
    await s.post('/tags', { name: 'Seed' });
    await s.post('/venues', { venue: 'Seed' });
    await s.post('/organizers', { organizer: 'Seed' });
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
            ? Object.fromEntries(Object.entries(r.body).map(([k, v]) => [k, typeof v === 'string' ? v : JSON.stringify(v)]))
            : undefined;
        const response = await s.request(r.method, path, { as: r.as, ...(withBody ? (form ? { form } : { body: r.body }) : {}) });
        expect(response.status, `${r.method} ${path} ${JSON.stringify(r.body)}`).toBeLessThan(500);
      }),
      { seed: SEED, numRuns: RUNS },
    );
  });
});
