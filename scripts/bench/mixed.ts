// The mixed part (`npm run bench -- mixed`): what a calendar in service sees, rather than one request
// over and over. Two instances of the service on one PostgreSQL database (10,000 events), each
// driven by half of BENCH_CONNECTIONS, for BENCH_MIXED_SECONDS (default 60) after a 2 s warm-up:
//
// - 70 % anonymous reads over many distinct URLs: single events (1,000 of them), the default list
//   over its first pages, lists filtered by each category (and some by a venue too) over windows of
//   each month, event searches by pairs of words, venue searches by city;
// - 29 % the same reads by a signed-in reader (a subscriber's application password), whose answers
//   are built every time (http/answer-cache.ts);
// - 1 % event creations by an editor, each of which empties every kept answer (db/data-version.ts).
//
// It prints throughput, p50 and p99 of all requests and of each kind, and the share of anonymous
// reads answered with a kept answer, from each instance's /metrics (http_kept_answer_lookups_total,
// metrics/registry.ts answerLookups).
import { randomBytes } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import autocannon from 'autocannon';
import { STANDARD } from './calendar.js';
import type { Print } from './figures.js';
import { createPostgres, type Fixtures, seed } from './fixtures.js';
import { type Figures, rssMb, type Server } from './load.js';
import { scenarios } from './scenarios.js';
import { startService } from './service.js';
import { API, CONNECTIONS, NOW } from './settings.js';
import pg from 'pg';

export const MIXED_SECONDS = Number(process.env.BENCH_MIXED_SECONDS ?? 60);
const WRITES = 0.01;
const SIGNED_IN = 0.29;

type Kind = 'anonymous read' | 'signed-in read' | 'write';
const KINDS: Kind[] = ['anonymous read', 'signed-in read', 'write'];

/** What the reads pick from: the calendar's categories and busiest venues, words of its titles, cities. */
interface Material {
  categories: number[];
  venues: number[];
}

const WORDS = ['jazz', 'night', 'yoga', 'class', 'market', 'lecture', 'film', 'workshop', 'concert', 'tour', 'book'];
const CITIES = ['lyon', 'paris', 'berlin', 'oslo', 'vienna', 'prague', 'lisbon', 'porto', 'dublin', 'milan'];

const kindOf = (r: number): Kind => {
  if (r < WRITES) return 'write';
  return r < WRITES + SIGNED_IN ? 'signed-in read' : 'anonymous read';
};

const pick = <T>(items: T[]): T => items[Math.floor(Math.random() * items.length)];

/** A read's path, one of many: most are asked again now and then, as a site's pages are. */
function readPath(f: Fixtures, m: Material): string {
  const r = Math.random();
  if (r < 0.4) return `${API}/events/${pick(f.eventIds)}`;
  if (r < 0.55) return `${API}/events${pick(['', '?page=2', '?page=3', '?per_page=24', '?page=2&per_page=24'])}`;
  if (r < 0.75) {
    const month = Math.floor(Math.random() * 12);
    const from = new Date(Date.UTC(NOW.getUTCFullYear(), NOW.getUTCMonth() + month, 1));
    const to = new Date(Date.UTC(from.getUTCFullYear(), from.getUTCMonth() + 1, 0));
    const day = (d: Date) => d.toISOString().slice(0, 10);
    const venue = Math.random() < 0.3 ? `&venue=${pick(m.venues)}` : '';
    return `${API}/events?categories=${pick(m.categories)}${venue}&start_date=${day(from)}&end_date=${day(to)}`;
  }
  if (r < 0.9) return `${API}/events?search=${pick(WORDS)}%20${pick(WORDS)}`;
  return `${API}/venues?search=${pick(CITIES)}`;
}

interface Outcome {
  kind: Kind;
  ms: number;
  ok: boolean;
  status: number;
}

interface Context {
  kind?: Kind;
  started?: number;
}

/** Drives one instance with `connections` connections for `seconds`, recording each answer in `outcomes`. */
async function drive(
  server: Server,
  f: Fixtures,
  m: Material,
  seconds: number,
  connections: number,
  outcomes: Outcome[] | undefined,
) {
  const create = scenarios(f)['event creation'];
  const result = await autocannon({
    url: server.url,
    connections,
    duration: seconds,
    requests: [
      {
        setupRequest: (request, context: Context) => {
          const kind = kindOf(Math.random());
          context.kind = kind;
          context.started = performance.now();
          if (kind === 'write') {
            return {
              ...request,
              method: 'POST',
              path: create.path(),
              headers: { authorization: `Bearer ${f.bearer}`, 'content-type': 'application/json' },
              body: create.body?.(),
            };
          }
          return {
            ...request,
            method: 'GET',
            path: readPath(f, m),
            headers: kind === 'signed-in read' ? { authorization: `Bearer ${f.reader}` } : {},
            body: undefined,
          };
        },
        onResponse: (status, _body, context: Context) => {
          const kind = context.kind ?? 'anonymous read';
          const ms = performance.now() - (context.started ?? performance.now());
          outcomes?.push({ kind, ms, status, ok: status === (kind === 'write' ? 201 : 200) });
        },
      },
    ],
  });
  return { errors: result.errors, timeouts: result.timeouts };
}

/** The kept-answer lookups an instance has counted so far, from its /metrics. */
async function lookups(server: Server, token: string): Promise<{ hit: number; miss: number }> {
  const text = await (await fetch(`${server.url}/metrics`, { headers: { authorization: `Bearer ${token}` } })).text();
  const count = (result: string) =>
    Number(new RegExp(`^http_kept_answer_lookups_total\\{result="${result}"\\} (\\S+)$`, 'm').exec(text)?.[1] ?? '0');
  return { hit: count('hit'), miss: count('miss') };
}

const percentile = (sorted: number[], p: number) =>
  sorted.length ? Math.round(sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))]) : 0;

function figuresOf(outcomes: Outcome[], seconds: number, peakRssMb: number | undefined, errors = 0): Figures {
  const sorted = outcomes.map((o) => o.ms).sort((a, b) => a - b);
  const failureKinds: Partial<Record<string, number>> = {};
  for (const o of outcomes) if (!o.ok) failureKinds[o.status] = (failureKinds[o.status] ?? 0) + 1;
  if (errors) failureKinds['connection errors or timeouts'] = errors;
  return {
    requestsPerSecond: outcomes.length / seconds,
    p50: percentile(sorted, 50),
    p99: percentile(sorted, 99),
    peakRssMb,
    failures: outcomes.filter((o) => !o.ok).length + errors,
    failureKinds: failureKinds as Record<string, number>,
    requests: outcomes.length,
  };
}

export async function measureMixed(print: Print) {
  const database = await createPostgres('mixed');
  try {
    const fixtures = await seed({ kind: 'postgresql', url: database.url }, STANDARD);
    const material = await materialOf(database.url);
    const token = randomBytes(24).toString('base64url');
    const instances = [
      await startService({ kind: 'postgresql', url: database.url }, { METRICS_TOKEN: token }),
      await startService({ kind: 'postgresql', url: database.url }, { METRICS_TOKEN: token }),
    ];
    try {
      const each = Math.max(1, Math.floor(CONNECTIONS / instances.length));
      // The warm-up also signs the reader and the editor in on each instance (scrypt, once each).
      await Promise.all(instances.map((i) => drive(i, fixtures, material, 2, each, undefined)));
      const before = await Promise.all(instances.map((i) => lookups(i, token)));
      let peak: number | undefined;
      const sample = () => {
        for (const i of instances) {
          const now = i.process.pid === undefined ? undefined : rssMb(i.process.pid);
          if (now !== undefined) peak = Math.max(peak ?? 0, now);
        }
      };
      const sampler = setInterval(sample, 20);
      const outcomes: Outcome[] = [];
      const started = performance.now();
      let runs;
      try {
        runs = await Promise.all(instances.map((i) => drive(i, fixtures, material, MIXED_SECONDS, each, outcomes)));
      } finally {
        clearInterval(sampler);
      }
      const seconds = (performance.now() - started) / 1000;
      const after = await Promise.all(instances.map((i) => lookups(i, token)));
      const errors = runs.reduce((n, r) => n + r.errors, 0);
      const label = `mixed, 2 instances, ${MIXED_SECONDS} s`;
      print(label, 'all requests', figuresOf(outcomes, seconds, peak, errors));
      for (const kind of KINDS)
        print(
          label,
          `${kind}s`,
          figuresOf(
            outcomes.filter((o) => o.kind === kind),
            seconds,
            peak,
          ),
        );
      const hits = after.reduce((n, a, i) => n + a.hit - before[i].hit, 0);
      const misses = after.reduce((n, a, i) => n + a.miss - before[i].miss, 0);
      const share = hits + misses ? (100 * hits) / (hits + misses) : 0;
      console.log(
        `  mixed: ${share.toFixed(1)} % of anonymous reads answered with a kept answer (${hits} kept, ${misses} built, from /metrics); ${each} connections to each instance`,
      );
    } finally {
      await Promise.all(instances.map((i) => i.stop()));
    }
  } finally {
    await database.drop();
  }
}

/** The categories and the venues that hold events in the coming year, for filtered lists. */
async function materialOf(url: string): Promise<Material> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const ids = async (text: string) => (await client.query<{ id: number }>(text)).rows.map((r) => r.id);
    return {
      categories: await ids(`SELECT id FROM terms WHERE taxonomy = 'tribe_events_cat' ORDER BY id`),
      venues: await ids(
        `SELECT venue_id AS id FROM event_venues GROUP BY venue_id ORDER BY count(*) DESC, venue_id LIMIT 50`,
      ),
    };
  } finally {
    await client.end();
  }
}
