// `npm run bench`: seeds realistic calendars, starts the service and a bare node:http baseline on
// them, drives both over loopback with autocannon and prints throughput, latency and memory
// (docs/performance.md explains the figures). Needs a PostgreSQL server: BENCH_DATABASE_URL, else
// TEST_DATABASE_URL or DATABASE_URL, else postgresql://postgres@127.0.0.1:5432/test. It creates its
// own databases there and drops them at the end.
//
// BENCH_SECONDS (default 10) is the length of each measured run; BENCH_CONNECTIONS (default 32) the
// number of concurrent connections; BENCH_ROUNDS (default 2) how many times the service and the
// baseline take turns at each read scenario (the best round of each counts); BENCH_ONLY (default
// postgresql,pglite,limits: under ten minutes on two cores) a comma-separated choice of the parts:
// postgresql (baseline and service, 10,000 events), pglite, limits (the cheapest read with rate
// limits off and counted in each store: memory, PostgreSQL, Redis at BENCH_REDIS_URL, else
// TEST_REDIS_URL or REDIS_URL, else redis://127.0.0.1:6379 when it answers), scaling, webhooks
// (event creation with and without a subscription, and the delay from a
// write's acknowledgement to the receiver), recurring (the postgresql part on a calendar where a
// fifth of the events are occurrences of series, and the write of a series of 500), import (10,000
// events from a site of The Events Calendar, scripts/bench/import.ts), cluster (1 to 3 instances behind
// nginx, and a failover run, scripts/bench/cluster.ts), caldav (the CalDAV syncs of the postgresql and
// pglite parts alone, scripts/bench/caldav.ts); BENCH_PROFILE a folder where each service
// process leaves a CPU profile (.cpuprofile, for Chrome DevTools or speedscope); BENCH_SERVICE_ENV
// settings of the service as JSON. The service runs with its default configuration (rate limits on
// sign-ins only) but for the limits part.
import { execFileSync } from 'node:child_process';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Redis } from 'ioredis';
import pg from 'pg';
import { createUser, issueAppPassword } from '../../src/auth/accounts.js';
import { openDatabase } from '../../src/db/client.js';
import type { SqlConnection } from '../../src/db/sql.js';
import { type CalendarSize, STANDARD, scaledCalendar, seedCalendar } from './calendar.js';
import { timeImport } from './import.js';
import { measureCalDav } from './caldav.js';
import { measureCluster } from './cluster.js';
import { nginxBinary, NGINX_HINT } from '../lib/cluster.js';
import { type Figures, measure, type Scenario, type Server, startServer } from './load.js';
import sharp from 'sharp';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 32);
const ROUNDS = Math.max(1, Number(process.env.BENCH_ROUNDS ?? 2));
const PROFILE_DIR = process.env.BENCH_PROFILE;
// `npm run bench -- cluster pglite` chooses parts as BENCH_ONLY does.
const PARTS = new Set(
  (process.argv.slice(2).join(',') || process.env.BENCH_ONLY || 'postgresql,pglite,limits')
    .split(',')
    .map((part) => part.trim()),
);
const SERVER_URL =
  process.env.BENCH_DATABASE_URL ||
  process.env.TEST_DATABASE_URL ||
  process.env.DATABASE_URL ||
  'postgresql://postgres@127.0.0.1:5432/test';
const API = '/wp-json/calendar/events/v1';
const NOW = new Date();
/** The service as `npm start` runs it: the node arguments of its last command (flags and dist/src/server.js). */
const START_ARGS = (JSON.parse(readFileSync('package.json', 'utf8')) as { scripts: { start: string } }).scripts.start
  .replace(/^.*&&/s, '') // everything after the last `&&`
  .trim()
  .split(/\s+/)
  .slice(1);

/** What the scenarios ask for, picked from the seeded data. */
interface Fixtures {
  eventIds: number[];
  venueId: number;
  categoryId: number;
  organizerId: number;
  tagId: number;
  windowStart: string;
  windowEnd: string;
  bearer: string;
}

type Storage = { kind: 'postgresql'; url: string } | { kind: 'pglite'; dataDir: string };

const READS = ['single event', 'default list', 'filtered list', 'venue search', 'event search'] as const;

function scenarios(f: Fixtures): Record<(typeof READS)[number] | 'event creation', Scenario> {
  let n = 0;
  const next = () => n++;
  const filtered = `${API}/events?categories=${f.categoryId}&venue=${f.venueId}&start_date=${f.windowStart}&end_date=${f.windowEnd}`;
  return {
    'single event': {
      name: 'single event',
      path: () => `${API}/events/${f.eventIds[next() % f.eventIds.length]}`,
      expect: 200,
    },
    'default list': { name: 'default list', path: () => `${API}/events`, expect: 200 },
    'filtered list': { name: 'filtered list', path: () => filtered, expect: 200 },
    'venue search': { name: 'venue search', path: () => `${API}/venues?search=lyon`, expect: 200 },
    // Two words in the other order than the titles have them ("Jazz Night").
    'event search': { name: 'event search', path: () => `${API}/events?search=night%20jazz`, expect: 200 },
    'event creation': {
      name: 'event creation',
      method: 'POST',
      path: () => `${API}/events`,
      headers: { authorization: `Bearer ${f.bearer}` },
      body: () => {
        const day = 1 + (next() % 28);
        return JSON.stringify({
          title: `Benchmark Evening ${n}`,
          description: '<p>Created by the benchmark.</p>',
          start_date: `2027-03-${String(day).padStart(2, '0')} 19:00:00`,
          end_date: `2027-03-${String(day).padStart(2, '0')} 21:00:00`,
          venue: f.venueId,
          organizer: [f.organizerId],
          categories: [f.categoryId],
          tags: [f.tagId],
          cost: '10',
        });
      },
      expect: 201,
    },
  };
}

async function main() {
  execFileSync('npx', ['tsc', '-p', 'tsconfig.build.json'], { stdio: 'inherit' });
  const cpus = os.cpus();
  console.log(`Calendar Events Service benchmark — ${new Date().toISOString()}`);
  console.log(
    `node ${process.version}, ${cpus.length} × ${cpus[0]?.model ?? 'cpu'}, ${Math.round(os.totalmem() / 2 ** 30)} GiB`,
  );
  console.log(
    `${CONNECTIONS} connections, ${SECONDS} s per measured run after a 2 s warm-up, best of ${ROUNDS} rounds against the baseline; latencies in ms\n`,
  );
  const rows: string[][] = [];
  const print: Print = (setup, name, figures, ratio) => {
    rows.push([
      setup,
      name,
      figures.requestsPerSecond.toFixed(0),
      String(figures.p50),
      String(figures.p99),
      figures.peakRssMb?.toFixed(0) ?? 'n/a',
      ratio === undefined ? '' : ratio.toFixed(2),
      figures.failures
        ? `${figures.failures} FAILED of ${figures.requests} (${Object.entries(figures.failureKinds)
            .map(([kind, count]) => `${kind} ×${count}`)
            .join(', ')})`
        : '',
    ]);
    console.log(table([rows[rows.length - 1]]));
  };
  console.log(table([HEADER]));

  if (PARTS.has('postgresql')) await comparePostgres(print);
  if (PARTS.has('pglite')) await measurePglite(print);
  if (PARTS.has('limits')) await measureLimits(print);
  if (PARTS.has('scaling')) await measureScaling(print);
  if (PARTS.has('webhooks')) await measureWebhooks(print);
  if (PARTS.has('recurring')) await comparePostgres(print, true);
  if (PARTS.has('import')) await measureImports();
  if (PARTS.has('cluster')) await clusterPart(print);
  if (PARTS.has('caldav')) await caldavPart();
  const failed = rows.some((row) => row[7]);
  if (failed) {
    console.error('\nSome requests failed: the figures above are not to be trusted.');
    process.exitCode = 1;
  }
}

/** CalDAV alone (scripts/bench/caldav.ts) on the standard calendar, on PostgreSQL and on PGlite. */
async function caldavPart() {
  const standard = await createPostgres('caldav');
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'calendar-bench-'));
  try {
    for (const [label, storage] of [
      ['service on PostgreSQL', { kind: 'postgresql', url: standard.url }],
      ['service on PGlite', { kind: 'pglite', dataDir }],
    ] as const) {
      const fixtures = await seed(storage, STANDARD);
      const service = await startService(storage);
      try {
        await measureCalDav(service.url, fixtures.bearer, fixtures.eventIds, label, console.log);
      } finally {
        await service.stop();
      }
    }
  } finally {
    await standard.drop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

/** 1 to 3 instances behind nginx on the standard calendar, and the failover run (scripts/bench/cluster.ts). */
async function clusterPart(print: Print) {
  if (!nginxBinary()) {
    console.log(`  (cluster part skipped: ${NGINX_HINT})`);
    return;
  }
  const database = await createPostgres('cluster');
  try {
    const fixtures = await seed({ kind: 'postgresql', url: database.url }, STANDARD);
    const db = await openDatabase({ databaseUrl: database.url, dataDir: '' });
    let adminBearer: string;
    try {
      await createUser(db.prisma, { login: 'bench-admin', password: 'bench-password', role: 'administrator' });
      adminBearer = (await issueAppPassword(db.prisma, 'bench-admin', 'benchmark')).password;
    } finally {
      await db.close();
    }
    const all = scenarios(fixtures);
    await measureCluster({
      databaseUrl: database.url,
      scenarios: [all['single event'], all['default list'], all['event creation']],
      eventId: fixtures.eventIds[0],
      adminBearer,
      seconds: SECONDS,
      connections: CONNECTIONS,
      env: { LOG_LEVEL: 'warn' },
      print,
    });
  } finally {
    await database.drop();
  }
}

/** The import of 10,000 events, on PostgreSQL and on PGlite (scripts/bench/import.ts). */
async function measureImports() {
  const database = await createPostgres('import');
  try {
    await timeImport({ databaseUrl: database.url, dataDir: '' }, 'postgresql');
  } finally {
    await database.drop();
  }
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'calendar-bench-import-'));
  try {
    await timeImport({ dataDir }, 'pglite');
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}

type Print = (setup: string, name: string, figures: Figures, ratio?: number) => void;

/**
 * PostgreSQL, 10,000 events: the baseline and the service on the same database, each read scenario
 * run on one and then the other, ROUNDS times over, so that both meet the same passing load on a
 * shared machine; each keeps its best round.
 */
/**
 * The reads on PostgreSQL, the service and the baseline taking turns. `withSeries` first replaces a
 * fifth of the calendar by occurrences of recurring series written through the API, and times the
 * write of series of 500 occurrences.
 */
async function comparePostgres(print: Print, withSeries = false) {
  const standard = await createPostgres(withSeries ? 'recurring' : 'standard');
  const size = withSeries ? { ...STANDARD, events: STANDARD.events * 0.8 } : STANDARD;
  const label = withSeries ? 'service, a fifth occurrences' : 'service on PostgreSQL';
  try {
    const fixtures = await seed({ kind: 'postgresql', url: standard.url }, size);
    const all = scenarios(fixtures);
    const baseline = await startServer(
      ['--import', 'tsx', 'scripts/bench/baseline.ts'],
      { DATABASE_URL: standard.url },
      `${API}/events/${fixtures.eventIds[0]}`,
    );
    try {
      const service = await startService({ kind: 'postgresql', url: standard.url });
      try {
        if (withSeries) await addSeries(service, standard.url, fixtures);
        const results = [];
        for (const name of READS) {
          const runs = { baseline: [] as Figures[], service: [] as Figures[] };
          for (let round = 0; round < ROUNDS; round++) {
            runs.baseline.push(await measure(baseline, all[name], SECONDS, CONNECTIONS));
            runs.service.push(await measure(service, all[name], SECONDS, CONNECTIONS));
          }
          results.push({ name, baseline: best(runs.baseline), service: best(runs.service) });
        }
        for (const { name, baseline } of results) print('baseline (node:http + pg)', name, baseline);
        for (const { name, baseline, service } of results)
          print(label, name, service, service.requestsPerSecond / baseline.requestsPerSecond);
        print(label, 'event creation', await measure(service, all['event creation'], SECONDS, CONNECTIONS));
        if (!withSeries) await measureMedia(service, fixtures, label, print);
        if (!withSeries) await measureCalDav(service.url, fixtures.bearer, fixtures.eventIds, label, console.log);
      } finally {
        await service.stop();
      }
    } finally {
      await baseline.stop();
    }
  } finally {
    await standard.drop();
  }
}

/**
 * The media library: uploads of a 1600×1200 JPEG of a photo's size (300 KB of fine noise; each
 * upload makes the full size and four smaller ones), then reads of one of their sizes (`medium`,
 * from /uploads/, as a page's <img> asks for it).
 */
async function measureMedia(service: Server, fixtures: Fixtures, label: string, print: Print) {
  const image = await sharp({
    create: {
      width: 1600,
      height: 1200,
      channels: 3,
      background: '#808080',
      noise: { type: 'gaussian', mean: 128, sigma: 8 },
    },
  })
    .jpeg({ quality: 85 })
    .toBuffer();
  const upload: Scenario = {
    name: 'image upload',
    method: 'POST',
    path: () => `${API}/media`,
    headers: {
      authorization: `Bearer ${fixtures.bearer}`,
      'content-type': 'image/jpeg',
      'content-disposition': 'attachment; filename="bench-photo.jpg"',
    },
    body: () => image,
    expect: 201,
  };
  // Four at a time: an instance makes two images at once and lets six wait (media/images.ts); more
  // uploads at once are answered 429 before their bodies are read, which is not what is measured.
  print(label, 'image upload (1600×1200 JPEG, 4 at a time)', await measure(service, upload, SECONDS, 4));
  const list = (await (await fetch(`${service.url}${API}/media?per_page=1`)).json()) as {
    media: { sizes: { medium: { url: string } } }[];
  };
  const medium = new URL(list.media[0].sizes.medium.url).pathname;
  const read: Scenario = { name: 'sized image', path: () => medium, expect: 200 };
  print(label, 'sized image (medium, 300×225)', await measure(service, read, SECONDS, CONNECTIONS));
}

/** Adds the series (writeSeries) as an administrator, then vacuums and analyses the calendar. */
async function addSeries(service: Server, url: string, fixtures: Fixtures) {
  const db = await openDatabase({ databaseUrl: url, dataDir: '' });
  try {
    await createUser(db.prisma, { login: 'bench-admin', password: 'bench-password', role: 'administrator' });
    const bearer = (await issueAppPassword(db.prisma, 'bench-admin', 'benchmark')).password;
    await writeSeries(service, bearer, fixtures);
    // As after seeding (seed below): the reads are measured on a vacuumed, analysed calendar.
    await db.withConnection((sql) => sql.exec('VACUUM ANALYZE'));
  } finally {
    await db.close();
  }
}

/**
 * 2,000 occurrences as 20 weekly series of 100 (each at a venue and in a category of the calendar,
 * starting this week), written through the API; then the write of a daily series of 500
 * occurrences, timed five times.
 */
async function writeSeries(service: Server, bearer: string, fixtures: Fixtures) {
  const post = async (body: object) => {
    const r = await fetch(`${service.url}${API}/events`, {
      method: 'POST',
      headers: { authorization: `Bearer ${bearer}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    if (r.status !== 201) throw new Error(`series creation: ${r.status} ${await r.text()}`);
  };
  const day = (offset: number) => new Date(NOW.getTime() + offset * 86_400_000).toISOString().slice(0, 10);
  for (let i = 0; i < 20; i++) {
    await post({
      title: `Weekly class ${i}`,
      start_date: `${day(i % 7)} 18:00`,
      end_date: `${day(i % 7)} 19:30`,
      timezone: 'Europe/Paris',
      venue: fixtures.venueId,
      categories: [fixtures.categoryId],
      recurrence: ['RRULE:FREQ=WEEKLY;COUNT=100'],
    });
  }
  const times: number[] = [];
  for (let i = 0; i < 5; i++) {
    const started = performance.now();
    await post({
      title: `Daily series ${i}`,
      start_date: `${day(800 + i)} 07:00`,
      end_date: `${day(800 + i)} 08:00`,
      venue: fixtures.venueId,
      categories: [fixtures.categoryId],
      recurrence: ['RRULE:FREQ=DAILY;COUNT=500'],
    });
    times.push(performance.now() - started);
  }
  times.sort((a, b) => a - b);
  console.log(
    `  write of a series of 500 occurrences: median ${times[2].toFixed(0)} ms, slowest ${times[4].toFixed(0)} ms (5 writes, one at a time)`,
  );
}

/** The round with the most requests per second, with the most memory and all the failures of every round. */
function best(runs: Figures[]): Figures {
  const top = runs.reduce((a, b) => (b.requestsPerSecond > a.requestsPerSecond ? b : a));
  const failureKinds: Record<string, number> = {};
  for (const run of runs)
    for (const [kind, count] of Object.entries(run.failureKinds))
      failureKinds[kind] = (failureKinds[kind] ?? 0) + count;
  return {
    ...top,
    peakRssMb: Math.max(...runs.map((run) => run.peakRssMb ?? 0)) || undefined,
    failures: runs.reduce((sum, run) => sum + run.failures, 0),
    failureKinds,
    requests: runs.reduce((sum, run) => sum + run.requests, 0),
  };
}

/** PGlite, the embedded default, with the same calendar. */
async function measurePglite(print: Print) {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'calendar-bench-'));
  try {
    const fixtures = await seed({ kind: 'pglite', dataDir }, STANDARD);
    const all = scenarios(fixtures);
    const service = await startService({ kind: 'pglite', dataDir });
    try {
      for (const name of [...READS, 'event creation'] as const)
        print('service on PGlite', name, await measure(service, all[name], SECONDS, CONNECTIONS));
      await measureCalDav(service.url, fixtures.bearer, fixtures.eventIds, 'service on PGlite', console.log);
    } finally {
      await service.stop();
    }
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}

/**
 * Scaling: the same lists on calendars of 1,000 and of 100,000 events in the same proportions
 * (PostgreSQL), so that the filtered list finds about as many events in both. The searches find
 * a hundred times as many at 100,000: their figures say what a search that matches a tenth of a
 * large calendar costs.
 */
const SCALED = ['default list', 'filtered list', 'venue search', 'event search'] as const;

async function measureScaling(print: Print) {
  const scaled = new Map<string, Figures>();
  for (const events of [1_000, 100_000]) {
    const database = await createPostgres(`scale_${events}`);
    try {
      const fixtures = await seed({ kind: 'postgresql', url: database.url }, scaledCalendar(events));
      const all = scenarios(fixtures);
      const service = await startService({ kind: 'postgresql', url: database.url });
      try {
        for (const name of SCALED) {
          const figures = await measure(service, all[name], SECONDS, CONNECTIONS);
          scaled.set(`${name} ${events}`, figures);
          print(`PostgreSQL, ${events.toLocaleString('en')} events`, name, figures);
        }
      } finally {
        await service.stop();
      }
    } finally {
      await database.drop();
    }
  }
  console.log('\nScaling, 100,000 events against 1,000 (latency ratio; 1.5 or less is the target):');
  for (const name of SCALED) {
    const small = scaled.get(`${name} 1000`);
    const large = scaled.get(`${name} 100000`);
    if (!small || !large) throw new Error(`no scaling figures for ${name}`);
    console.log(
      `  ${name.padEnd(14)} p50 ${ratio(large.p50, small.p50)}  p99 ${ratio(large.p99, small.p99)}  throughput ${(large.requestsPerSecond / small.requestsPerSecond).toFixed(2)}×`,
    );
  }
}

const HEADER = ['setup', 'scenario', 'req/s', 'p50', 'p99', 'peak RSS MB', '÷ baseline', ''];
const WIDTHS = [32, 16, 8, 6, 6, 12, 11, 0];
const table = (rows: string[][]) =>
  rows
    .map((row) => row.map((cell, i) => (i < 2 ? cell.padEnd(WIDTHS[i]) : cell.padStart(WIDTHS[i]))).join(' '))
    .join('\n');
const ratio = (a: number, b: number) => (b > 0 ? `${(a / b).toFixed(2)}×` : `${a}/${b} ms`);

/**
 * Webhooks on PostgreSQL (1,000 events): event creation without a subscription and with one that
 * takes every created event (a receiver in this process answers 204), by turns, ROUNDS times; and,
 * during both, one more create every 100 ms, whose acknowledgement time is compared with the time
 * its message arrives in the runs with the subscription.
 */
async function measureWebhooks(print: Print) {
  const database = await createPostgres('webhooks');
  const received = new Map<number, number>();
  const receiver = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const message = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { data: { id: number } };
      if (!received.has(message.data.id)) received.set(message.data.id, performance.now());
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  const hook = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/`;
  try {
    const fixtures = await seed({ kind: 'postgresql', url: database.url }, scaledCalendar(1_000));
    const creation = scenarios(fixtures)['event creation'];
    const service = await startService(
      { kind: 'postgresql', url: database.url },
      { WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true' },
    );
    const sql = new pg.Client({ connectionString: database.url });
    await sql.connect();
    try {
      const runs = { without: [] as Figures[], with: [] as Figures[] };
      const delays: number[] = [];
      for (let round = 0; round < ROUNDS; round++) {
        await sql.query('DELETE FROM webhook_subscriptions');
        // The paced creates run in both, so that both carry the same load.
        const unpaced = pacedCreates(service, fixtures.bearer, SECONDS + 2);
        runs.without.push(await measure(service, creation, SECONDS, CONNECTIONS));
        await unpaced;
        await sql.query(
          `INSERT INTO webhook_subscriptions (url, event_types, secret) VALUES ($1, '{event.created}', $2)`,
          [hook, `whsec_${Buffer.alloc(32, 7).toString('base64')}`],
        );
        const paced = pacedCreates(service, fixtures.bearer, SECONDS + 2);
        runs.with.push(await measure(service, creation, SECONDS, CONNECTIONS));
        for (const [id, acknowledged] of await paced) {
          for (let i = 0; i < 100 && !received.has(id); i++) await new Promise((resolve) => setTimeout(resolve, 50));
          const arrived = received.get(id);
          if (arrived !== undefined) delays.push(arrived - acknowledged);
        }
      }
      const without = best(runs.without);
      const withHooks = best(runs.with);
      print('PostgreSQL, no subscription', 'event creation', without);
      print(
        'PostgreSQL, 1 subscription',
        'event creation',
        withHooks,
        withHooks.requestsPerSecond / without.requestsPerSecond,
      );
      delays.sort((a, b) => a - b);
      const at = (q: number) => delays[Math.min(delays.length - 1, Math.floor(q * delays.length))]?.toFixed(0) ?? 'n/a';
      console.log(
        `\nWebhooks: from a write's acknowledgement to its message's arrival, under the load above: p50 ${at(0.5)} ms, p99 ${at(0.99)} ms (${delays.length} messages); ` +
          `throughput with a subscription ${((withHooks.requestsPerSecond / without.requestsPerSecond) * 100).toFixed(0)} % of without (90 % or more is the target)`,
      );
    } finally {
      await sql.end();
      await service.stop();
    }
  } finally {
    receiver.close();
    await database.drop();
  }
}

/** Creates an event every 100 ms for `seconds`; answers each created ID with when its creation was acknowledged. */
async function pacedCreates(service: Server, bearer: string, seconds: number): Promise<Map<number, number>> {
  const acknowledged = new Map<number, number>();
  const end = performance.now() + seconds * 1000;
  const pending: Promise<void>[] = [];
  for (let n = 0; performance.now() < end; n++) {
    pending.push(
      fetch(`${service.url}${API}/events`, {
        method: 'POST',
        headers: { authorization: `Bearer ${bearer}`, 'content-type': 'application/json' },
        body: JSON.stringify({ title: `Paced ${n}`, start_date: '2027-04-01 19:00', end_date: '2027-04-01 21:00' }),
      }).then(async (r) => {
        const at = performance.now();
        if (r.status === 201) acknowledged.set(((await r.json()) as { id: number }).id, at);
      }),
    );
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  await Promise.all(pending);
  return acknowledged;
}

function startService(storage: Storage, extra: Record<string, string> = {}): Promise<Server> {
  const env: Record<string, string> =
    storage.kind === 'postgresql' ? { DATABASE_URL: storage.url } : { DATABASE_URL: '', DATA_DIR: storage.dataDir };
  // V8 writes the profile when the process exits, after the shutdown that stop() starts.
  const profile = PROFILE_DIR ? [`--cpu-prof`, `--cpu-prof-dir=${path.resolve(PROFILE_DIR)}`] : [];
  return startServer(
    [...profile, ...START_ARGS],
    { ...env, LOG_LEVEL: process.env.LOG_LEVEL ?? 'info', ...SERVICE_ENV, ...extra },
    '/readyz',
  );
}

/**
 * Rate limits so high that the load never reaches them: every request is still counted, so their
 * cost is in the figures, but none is refused.
 */
const UNREACHABLE_RATE_LIMITS = {
  RATE_LIMIT_READS: '1000000000',
  RATE_LIMIT_WRITES: '1000000000',
  RATE_LIMIT_SIGN_INS: '1000000000',
};

/** A Redis server for the limits part, if one answers. */
async function benchRedis(): Promise<string | undefined> {
  const url =
    process.env.BENCH_REDIS_URL || process.env.TEST_REDIS_URL || process.env.REDIS_URL || 'redis://127.0.0.1:6379';
  const client = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 0, enableOfflineQueue: false });
  client.on('error', () => undefined);
  try {
    await client.connect();
    await client.ping();
    return url;
  } catch {
    return undefined;
  } finally {
    client.disconnect();
  }
}

/**
 * What counting rate limits costs: the cheapest read (the venue search, PostgreSQL, 10,000 events)
 * with the limits off, as by default, and on, counted in each store; the configurations take turns,
 * ROUNDS times, each keeping its best round. The target: each store within 5 % of off.
 */
async function measureLimits(print: Print) {
  const database = await createPostgres('limits');
  try {
    const fixtures = await seed({ kind: 'postgresql', url: database.url }, STANDARD);
    // The read the service answers fastest, where a round trip per count weighs most.
    const read = scenarios(fixtures)['venue search'];
    const redisUrl = await benchRedis();
    const stores: [string, Record<string, string>][] = [
      ['limits off (default)', {}],
      ['limits in memory', { ...UNREACHABLE_RATE_LIMITS, RATE_LIMIT_STORE: 'memory' }],
      ['limits in PostgreSQL', UNREACHABLE_RATE_LIMITS],
      ...(redisUrl
        ? [['limits in Redis', { ...UNREACHABLE_RATE_LIMITS, REDIS_URL: redisUrl }] as [string, Record<string, string>]]
        : []),
    ];
    const runs = new Map<string, Figures[]>(stores.map(([name]) => [name, []]));
    for (let round = 0; round < ROUNDS; round++) {
      // Each round starts with the next configuration, so that none always runs first.
      for (const [name, env] of [...stores.slice(round % stores.length), ...stores.slice(0, round % stores.length)]) {
        const service = await startService({ kind: 'postgresql', url: database.url }, env);
        try {
          runs.get(name)?.push(await measure(service, read, SECONDS, CONNECTIONS));
        } finally {
          await service.stop();
        }
      }
    }
    const off = best(runs.get(stores[0][0]) ?? []);
    for (const [name] of stores) {
      const figures = best(runs.get(name) ?? []);
      print(name, read.name, figures, figures.requestsPerSecond / off.requestsPerSecond);
    }
    if (!redisUrl) console.log('  (Redis skipped: no server answered; set BENCH_REDIS_URL)');
    console.log('  (÷ baseline here: ÷ the same read with limits off; 0.95 or more is the target)');
  } finally {
    await database.drop();
  }
}

/** BENCH_SERVICE_ENV: settings of the service's own to compare, as JSON (`{"REDIS_URL":"redis://127.0.0.1:6379"}`). */
const SERVICE_ENV = JSON.parse(process.env.BENCH_SERVICE_ENV || '{}') as Record<string, string>;

/** A fresh database on the server, dropped by `drop()`. */
async function createPostgres(label: string): Promise<{ url: string; drop(): Promise<void> }> {
  const name = `calendar_bench_${label}_${process.pid}`;
  const admin = async (statement: string) => {
    const client = new pg.Client({ connectionString: SERVER_URL });
    await client.connect();
    try {
      await client.query(statement);
    } finally {
      await client.end();
    }
  };
  await admin(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
  await admin(`CREATE DATABASE "${name}"`);
  const url = new URL(SERVER_URL);
  url.pathname = `/${name}`;
  return { url: url.toString(), drop: () => admin(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`) };
}

/** Migrates and seeds the database, adds a contributor with an application password, picks the fixtures. */
async function seed(storage: Storage, size: CalendarSize): Promise<Fixtures> {
  const started = Date.now();
  const db = await openDatabase(
    storage.kind === 'postgresql' ? { databaseUrl: storage.url, dataDir: '' } : { dataDir: storage.dataDir },
  );
  try {
    await db.withConnection(async (sql) => {
      await seedCalendar(sql, size, NOW);
      // As a database in service would be: vacuumed (index-only scans need the visibility map), so
      // that autovacuum does not start in the middle of a measurement.
      await sql.exec('VACUUM ANALYZE');
    });
    // An editor, as an integration syncing a calendar would be: accounts below editor have a quota
    // of creates per hour (QUOTA_CREATES_PER_HOUR), which the creation scenario would meet at once.
    await createUser(db.prisma, { login: 'bench', password: 'bench-password', role: 'editor' });
    const { password } = await issueAppPassword(db.prisma, 'bench', 'benchmark');
    const fixtures = await db.withConnection((sql) => pickFixtures(sql, password));
    console.log(
      `  (seeded ${size.events.toLocaleString('en')} events on ${storage.kind} in ${((Date.now() - started) / 1000).toFixed(1)} s)`,
    );
    return fixtures;
  } finally {
    await db.close();
  }
}

/** Published upcoming events to read, and the busiest venue and category of the coming year. */
async function pickFixtures(sql: SqlConnection, bearer: string): Promise<Fixtures> {
  const day = (offsetDays: number) => new Date(NOW.getTime() + offsetDays * 86_400_000).toISOString().slice(0, 10);
  const [windowStart, windowEnd] = [day(0), day(365)];
  const events = await sql.query<{ id: number }>(
    `SELECT id FROM events WHERE status = 'publish' ORDER BY id LIMIT 1000`,
  );
  const [busiest] = await sql.query<{ venue_id: number; term_id: number }>(
    `SELECT ev.venue_id, et.term_id FROM events e
     JOIN event_venues ev ON ev.event_id = e.id JOIN event_terms et ON et.event_id = e.id JOIN terms t ON t.id = et.term_id
     WHERE t.taxonomy = 'tribe_events_cat' AND e.status = 'publish' AND NOT e.hide_from_listings AND e.start_utc BETWEEN $1 AND $2
     GROUP BY 1, 2 ORDER BY count(*) DESC, 1, 2 LIMIT 1`,
    [windowStart, windowEnd],
  );
  const [other] = await sql.query<{ organizer_id: number; tag_id: number }>(
    `SELECT (SELECT min(id) FROM organizers) AS organizer_id, (SELECT min(id) FROM terms WHERE taxonomy = 'post_tag') AS tag_id`,
  );
  return {
    eventIds: events.map((e) => e.id),
    venueId: busiest.venue_id,
    categoryId: busiest.term_id,
    organizerId: other.organizer_id,
    tagId: other.tag_id,
    windowStart,
    windowEnd,
    bearer,
  };
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
