// `npm run bench`: seeds realistic calendars, starts the service and a bare node:http baseline on
// them, drives both over loopback with autocannon and prints throughput, latency and memory
// (docs/performance.md explains the figures). Needs a PostgreSQL server: BENCH_DATABASE_URL, else
// TEST_DATABASE_URL or DATABASE_URL, else postgresql://postgres@127.0.0.1:5432/test. It creates its
// own databases there and drops them at the end.
//
// BENCH_SECONDS (default 10) is the length of each measured run; BENCH_CONNECTIONS (default 32) the
// number of concurrent connections; BENCH_ROUNDS (default 2) how many times the service and the
// baseline take turns at each read scenario (the best round of each counts); BENCH_ONLY (default
// postgresql,pglite,rsvps,mixed: under ten minutes on two cores, docs/performance.md) a comma-separated
// choice of the parts:
// postgresql (10,000 events: each read on the baseline and on the service to an anonymous caller,
// whose answers are kept, and to a signed-in one, whose answers are built; creation on the service
// and as a bare create of the same statements), pglite, limits (the cheapest read with rate
// limits off and counted in each store: memory, PostgreSQL, Redis at BENCH_REDIS_URL, else
// TEST_REDIS_URL or REDIS_URL, else redis://127.0.0.1:6379 when it answers), scaling, webhooks
// (event creation with and without a subscription, and the delay from a
// write's acknowledgement to the receiver), recurring (the postgresql part on a calendar where a
// fifth of the events are occurrences of series, and the write of a series of 500), import (10,000
// events from a site of The Events Calendar, scripts/bench/import.ts), cluster (1 to 3 instances behind
// nginx, and a failover run, scripts/bench/cluster.ts), caldav (CalDAV beside Radicale, radicale.ts, and the syncs of the
// pglite parts alone, scripts/bench/caldav.ts), multiget (the profile of a CalDAV multiget of 50 by layer, and
// its statements' plans, scripts/bench/multiget-profile.ts), rsvps (RSVPs to one event of 200 seats through two
// instances, and a check that nobody was over-booked, scripts/bench/rsvps.ts), mixed (two instances,
// anonymous and signed-in reads over many URLs and 1 % writes for BENCH_MIXED_SECONDS, default 60,
// and the share of kept answers, scripts/bench/mixed.ts), profile (where the CPU of each built read and
// of creation goes, by layer, and CPU per request against the baseline's, scripts/bench/profile.ts); BENCH_PROFILE a folder where each service
// process leaves a CPU profile (.cpuprofile, for Chrome DevTools or speedscope); BENCH_SERVICE_ENV
// settings of the service as JSON. The service runs with its default configuration (rate limits on
// sign-ins only) but for the limits part.
import { execFileSync } from 'node:child_process';
import os from 'node:os';
import { performance } from 'node:perf_hooks';
import { caldavPart } from './caldav.js';
import { clusterPart } from './cluster.js';
import { HEADER, type Print, table } from './figures.js';
import { measureImports } from './import.js';
import { measurePglite } from './pglite.js';
import { comparePostgres } from './postgresql.js';
import { profileLayers } from './profile.js';
import { measureMixed } from './mixed.js';
import { profileMultiget } from './multiget-profile.js';
import { measureLimits } from './rate-limits.js';
import { measureRsvps } from './rsvps.js';
import { measureScaling } from './scaling.js';
import { CONNECTIONS, ROUNDS, SECONDS } from './settings.js';
import { measureWebhooks } from './webhooks.js';

// `npm run bench -- cluster pglite` chooses parts as BENCH_ONLY does.
const PARTS = new Set(
  (process.argv.slice(2).join(',') || process.env.BENCH_ONLY || 'postgresql,pglite,caldav,rsvps,mixed')
    .split(',')
    .map((part) => part.trim()),
);

async function main() {
  const began = performance.now();
  execFileSync('npx', ['tsc', '-p', 'tsconfig.build.json'], { stdio: 'inherit' });
  const cpus = os.cpus();
  console.log(`Calendar Events Service benchmark — ${new Date().toISOString()}`);
  console.log(
    `node ${process.version}, ${cpus.length} × ${cpus[0]?.model ?? 'cpu'}, ${Math.round(os.totalmem() / 2 ** 30)} GiB`,
  );
  console.log(
    `${CONNECTIONS} connections, ${SECONDS} s per measured run after a 2 s warm-up (in the first round), best of ${ROUNDS} rounds against the baseline; latencies in ms\n`,
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

  const parts: [string, () => Promise<void>][] = [
    ['postgresql', () => comparePostgres(print)],
    ['pglite', () => measurePglite(print)],
    ['limits', () => measureLimits(print)],
    ['scaling', () => measureScaling(print)],
    ['webhooks', () => measureWebhooks(print)],
    ['recurring', () => comparePostgres(print, true)],
    ['import', () => measureImports()],
    ['cluster', () => clusterPart(print)],
    ['caldav', () => caldavPart()],
    ['multiget', () => profileMultiget()],
    ['rsvps', () => measureRsvps(print)],
    ['mixed', () => measureMixed(print)],
    ['profile', () => profileLayers()],
  ];
  // How long each part and the whole run took: the default run is to stay under ten minutes.
  const took = (since: number) => `${((performance.now() - since) / 1000).toFixed(0)} s`;
  for (const [name, part] of parts) {
    if (!PARTS.has(name)) continue;
    const started = performance.now();
    await part();
    console.log(`  (${name}: ${took(started)})`);
  }
  console.log(`\nThe run took ${took(began)}, building included.`);
  const failed = rows.some((row) => row[7]);
  if (failed) {
    console.error('\nSome requests failed: the figures above are not to be trusted.');
    process.exitCode = 1;
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
