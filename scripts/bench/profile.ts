// The profile part (`npm run bench -- profile`): where a built answer's and a create's CPU goes, by
// layer. On the standard calendar on PostgreSQL, for each built read (signed in, so that nothing is
// kept) and for creation: the baseline (scripts/bench/baseline.ts), the service, and each of them
// under V8's sampling profiler (`--cpu-prof`) take turns at the same load. The first two give the
// CPU milliseconds per request of each process, in its own code and in the kernel (and of
// PostgreSQL's backends) from /proc; the other two, profiles of the main thread whose samples taken
// during each measured run are put in the layer of the first frame, from the top of the stack down,
// that belongs to one (LAYERS: by the script's URL). Node's own frames count only where they are its
// HTTP and sockets, so that a hash asked for by the ETag's code counts as the ETag's.
//
// V8's profiler samples the main thread by the clock, not by its CPU: a thread that the kernel sets
// aside inside a socket write (the write wakes PostgreSQL or the load generator, which take the
// core) is sampled there all the while. On two shared cores that was a quarter of a venue search's
// samples, against a kernel time of under a tenth of its CPU. Samples in a system call are therefore
// put apart (SYSCALLS), and the table of milliseconds shares each process's user CPU among the other
// layers by their samples and gives the system calls the kernel time /proc counts. Prints the shares
// of the service's samples, then CPU per request by layer for the service beside the baseline, then
// the totals.
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { STANDARD } from './calendar.js';
import { createPostgres, seed } from './fixtures.js';
import { cpuSeconds, cpuTimes, drive, type Scenario, type Server, startServer } from './load.js';
import { READS, scenarios, signedIn } from './scenarios.js';
import { startService } from './service.js';
import { API, CONNECTIONS, SECONDS } from './settings.js';

/**
 * The layers, in the order the table lists them, each with what its frames' script URLs hold. A
 * file is named `.[jt]s`: the service runs compiled (dist/src/…js), the baseline and tests as
 * TypeScript. Until 2026-11-28 the files were named `.ts` alone, so the frames of those named by
 * file (the JSON text, the ETag, the reply, the pipeline) fell to "other" in the service's tables
 * of docs/performance.md before that day.
 */
export const LAYERS: [string, RegExp][] = [
  [
    "node's HTTP and sockets",
    /^node:(_http_|net|internal\/(http|stream_base_commons|streams|net|timers|js_stream)|stream|timers)/,
  ],
  [
    'Express and middleware',
    /node_modules\/(express|router|body-parser|finalhandler|send|on-finished|on-headers|compression|helmet|cors|accepts|negotiator|type-is|content-type|vary|qs|parseurl|raw-body|iconv-lite|statuses|http-errors|depd|encodeurl|escape-html|fresh|range-parser|mime-types|media-typer|proxy-addr|forwarded|ipaddr\.js|cookie|etag|content-disposition|merge-descriptors|utils-merge|setprototypeof|bytes|debug|ms|safe-buffer|path-to-regexp|is-promise)\/|src\/http\/(hardening|locale|discovery-link|notify-writes|wordpress-request|body|urls|upload-body|upload-admission|health|error-answers|unmatched-requests|allowed-methods|http-server)\.[jt]s|src\/pages\/|src\/caldav\/routes/,
  ],
  [
    'openapi-backend: matching, validation',
    /node_modules\/(openapi-backend|ajv|ajv-formats|fast-uri|fast-deep-equal|json-schema-traverse|bath-es5|mock-json-schema|openapi-schema-validator)\/|src\/http\/(backend|query|validation)\.[jt]s|src\/validation\//,
  ],
  [
    'serialization (representation, JSON text)',
    /src\/serializers\/|src\/lib\/(dates|event-times|cost|rsvp-closing)\.[jt]s|src\/http\/(json-within|embed|wordpress-response)\.[jt]s|node_modules\/(luxon|fast-json-stringify)\//,
  ],
  [
    'the query (pg, Prisma, SQL, rows)',
    /node_modules\/(pg|pg-protocol|pg-pool|pg-types|pg-connection-string|postgres-array|postgres-bytea|postgres-date|postgres-interval|pgpass|split2|@prisma|prisma)\/|generated\/prisma\/|src\/(queries|db)\//,
  ],
  [
    'logging (pino)',
    /node_modules\/(pino|pino-std-serializers|sonic-boom|thread-stream|on-exit-leak-free|atomic-sleep|quick-format-unescaped|fast-redact|safe-stable-stringify)\/|src\/http\/request-log\.[jt]s/,
  ],
  ['ETag and conditional requests', /src\/http\/conditional\.[jt]s|src\/domain\/entity-tags\.[jt]s/],
  [
    'security (authentication, roles, limits)',
    /src\/auth\/|src\/http\/(security|rate-limits|batched-counts)\.[jt]s|node_modules\/rate-limiter-flexible\//,
  ],
  ['metrics (prom-client)', /node_modules\/(prom-client|tdigest|bintrees)\/|src\/metrics\//],
  [
    'kept answers (lookup, data version)',
    /src\/http\/(answer-cache|kept-answers)\.[jt]s|src\/db\/data-version\.[jt]s|node_modules\/lru-cache\//,
  ],
  [
    'pipeline, handlers, services',
    /src\/(handlers|services|domain)\/|src\/http\/(rest-pipeline|handler|operation-handlers|reply|errors|idempotency|lists)\.[jt]s|src\/webhooks\/|src\/mail\//,
  ],
  // The baseline's own code: what it does in place of every layer above but node's and pg's.
  ["the bare stack's handler (baseline.ts)", /scripts\/bench\/baseline\.[jt]s/],
];
export const GC = 'garbage collection';
export const SYSCALLS = 'in a system call (socket writes)';
/** Node's native functions that enter the kernel: a sample whose top frame is one of them. */
const SYSCALL_FRAMES = /^(writev|writeBuffer|write(Utf8|Latin1|Ascii|Ucs2)?String|shutdown|close|readStart|readStop)$/;
export const IDLE = 'idle';
export const OTHER = 'other (V8, unattributed)';
const ROWS = [...LAYERS.map(([name]) => name), GC, SYSCALLS, IDLE, OTHER];

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string };
  children?: number[];
}
export interface CpuProfile {
  nodes: ProfileNode[];
  startTime: number;
  samples: number[];
  timeDeltas: number[];
}

/** A window of the benchmark's monotonic clock, in µs: the clock V8's profiler stamps its samples with. */
export interface Window {
  from: number;
  to: number;
}
export const nowUs = () => Number(process.hrtime.bigint() / 1000n);

/** Each layer's share of the samples taken within `window`, and how many there were. */
export function sharesByLayer(
  profile: CpuProfile,
  window: Window,
  layers = LAYERS,
): { shares: Map<string, number>; samples: number } {
  const parent = new Map<number, ProfileNode>();
  const byId = new Map<number, ProfileNode>();
  for (const node of profile.nodes) {
    byId.set(node.id, node);
    for (const child of node.children ?? []) parent.set(child, node);
  }
  const layerOf = new Map<number, string>();
  const classify = (node: ProfileNode): string => {
    const known = layerOf.get(node.id);
    if (known) return known;
    const { functionName, url } = node.callFrame;
    let layer: string | undefined;
    if (functionName === '(garbage collector)') layer = GC;
    else if (functionName === '(idle)') layer = IDLE;
    else if (url === '' && SYSCALL_FRAMES.test(functionName)) layer = SYSCALLS;
    else layer = layers.find(([, pattern]) => pattern.test(url))?.[0];
    if (!layer) {
      const up = parent.get(node.id);
      layer = up ? classify(up) : OTHER;
    }
    layerOf.set(node.id, layer);
    return layer;
  };
  const counts = new Map<string, number>();
  let time = profile.startTime;
  let samples = 0;
  profile.samples.forEach((id, i) => {
    time += profile.timeDeltas[i];
    if (time < window.from || time > window.to) return;
    const node = byId.get(id);
    if (!node) return;
    const layer = classify(node);
    counts.set(layer, (counts.get(layer) ?? 0) + 1);
    samples++;
  });
  return { shares: new Map([...counts].map(([layer, n]) => [layer, n / samples])), samples };
}

/** CPU seconds so far of the database's backends, by process ID (PostgreSQL on this machine). */
export async function backendsCpu(database: pg.Client): Promise<Map<number, number>> {
  const { rows } = await database.query<{ pid: number }>(
    'SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()',
  );
  return new Map(rows.map((row) => [row.pid, cpuSeconds(row.pid)]));
}

interface Run {
  requestsPerSecond: number;
  /** CPU ms per request of the server's process (in its own code, in the kernel) and of PostgreSQL's backends. */
  userMs: number;
  systemMs: number;
  postgresMs: number;
  window: Window;
}

/** A 2 s warm-up, then a measured run, with the CPU it cost. */
async function run(server: Server, scenario: Scenario, database: pg.Client): Promise<Run> {
  await drive(server, scenario, 2, CONNECTIONS);
  const pid = server.process.pid ?? 0;
  const [cpu, backends, from] = [cpuTimes(pid), await backendsCpu(database), nowUs()];
  const result = await drive(server, scenario, SECONDS, CONNECTIONS);
  const to = nowUs();
  const [cpuAfter, backendsAfter] = [cpuTimes(pid), await backendsCpu(database)];
  if (result.failures)
    throw new Error(`${scenario.name}: ${result.failures} unexpected answers ${JSON.stringify(result.failureKinds)}`);
  let postgres = 0;
  for (const [backend, seconds] of backendsAfter) postgres += seconds - (backends.get(backend) ?? 0);
  const ms = (seconds: number) => (seconds * 1000) / result.requests;
  return {
    requestsPerSecond: result.requestsPerSecond,
    userMs: ms(cpuAfter.user - cpu.user),
    systemMs: ms(cpuAfter.system - cpu.system),
    postgresMs: ms(postgres),
    window: { from, to },
  };
}

const serverMs = (r: Run) => r.userMs + r.systemMs;

/**
 * CPU ms per request of each layer: the process's user CPU (from an unprofiled run) shared among
 * the layers by their samples in the profiled run, leaving out the samples in system calls and
 * idle; the system calls get the kernel time. Background threads (the collector's helpers, V8's
 * compiler) are counted in the layers of the main thread, as their work is for it.
 */
function msByLayer(shares: Map<string, number>, measured: Run): Map<string, number> {
  const busy = 1 - (shares.get(IDLE) ?? 0) - (shares.get(SYSCALLS) ?? 0);
  const ms = new Map<string, number>();
  for (const [layer, share] of shares)
    if (layer !== IDLE && layer !== SYSCALLS) ms.set(layer, busy > 0 ? (measured.userMs * share) / busy : 0);
  ms.set(SYSCALLS, measured.systemMs);
  return ms;
}

/** The one profile a server left in `dir`. */
function profileIn(dir: string): CpuProfile {
  const file = readdirSync(dir).find((name) => name.endsWith('.cpuprofile'));
  if (!file) throw new Error(`no profile was left in ${dir}`);
  return JSON.parse(readFileSync(path.join(dir, file), 'utf8')) as CpuProfile;
}

export async function profileLayers() {
  const database = await createPostgres('profile');
  const profileDir = mkdtempSync(path.join(os.tmpdir(), 'calendar-profile-'));
  const baselineDir = path.join(profileDir, 'baseline');
  const client = new pg.Client({ connectionString: database.url });
  try {
    const fixtures = await seed({ kind: 'postgresql', url: database.url }, STANDARD);
    await client.connect();
    const all = scenarios(fixtures);
    const measured: [string, Scenario][] = [
      ...READS.map((name) => [`${name}, built`, signedIn(all[name], fixtures.reader)] as [string, Scenario]),
      ['event creation', all['event creation']],
    ];
    const startBaseline = (flags: string[]) =>
      startServer(
        [...flags, '--import', 'tsx', 'scripts/bench/baseline.ts'],
        { DATABASE_URL: database.url },
        `${API}/events/${fixtures.eventIds[0]}`,
      );
    const baseline = await startBaseline([]);
    const profiledBaseline = await startBaseline(['--cpu-prof', `--cpu-prof-dir=${baselineDir}`]);
    const plain = await startService({ kind: 'postgresql', url: database.url });
    const profiled = await startService({ kind: 'postgresql', url: database.url }, {}, [
      '--cpu-prof',
      `--cpu-prof-dir=${profileDir}`,
    ]);
    const runs: { name: string; baseline: Run; service: Run; profiled: Run; profiledBaseline: Run }[] = [];
    try {
      for (const [name, scenario] of measured) {
        // The baseline answers the reads anonymously (it has no accounts) and creation with its bare create.
        const bare = name === 'event creation' ? scenario : all[scenario.name as (typeof READS)[number]];
        runs.push({
          name,
          baseline: await run(baseline, bare, client),
          service: await run(plain, scenario, client),
          profiled: await run(profiled, scenario, client),
          profiledBaseline: await run(profiledBaseline, bare, client),
        });
        console.log(`  (${name}: measured)`);
      }
    } finally {
      await Promise.all([baseline.stop(), profiledBaseline.stop(), plain.stop(), profiled.stop()]);
    }
    const [profile, baselineProfile] = [profileIn(profileDir), profileIn(baselineDir)];
    const layered = runs.map((r) => sharesByLayer(profile, r.profiled.window));
    const percent = (share: number | undefined) => (share ? `${(share * 100).toFixed(1)} %` : '');
    const rows = [
      ['layer (share of the main thread)', ...runs.map((r) => r.name)],
      ['requests per second (profiled)', ...runs.map((r) => r.profiled.requestsPerSecond.toFixed(0))],
      ['samples', ...layered.map((l) => String(l.samples))],
      ...ROWS.map((layer) => [layer, ...layered.map((l) => percent(l.shares.get(layer)))]),
    ];
    console.log(`\n${markdown(rows)}\n`);
    const serviceMs = runs.map((r, i) => msByLayer(layered[i].shares, r.service));
    const baselineMs = runs.map((r) =>
      msByLayer(sharesByLayer(baselineProfile, r.profiledBaseline.window).shares, r.baseline),
    );
    const pair = (a = 0, b = 0) => (a || b ? `${a.toFixed(2)} / ${b.toFixed(2)}` : '');
    const byLayer = [
      ['CPU ms per request, service / baseline', ...runs.map((r) => r.name)],
      ...ROWS.filter((layer) => layer !== IDLE).map((layer) => [
        layer,
        ...runs.map((_, i) => pair(serviceMs[i].get(layer), baselineMs[i].get(layer))),
      ]),
      ['the process, all', ...runs.map((r) => pair(serverMs(r.service), serverMs(r.baseline)))],
    ];
    console.log(`${markdown(byLayer)}\n`);
    const cpu = [
      ['CPU ms per request', ...runs.map((r) => r.name)],
      [
        'service (req/s)',
        ...runs.map((r) => `${serverMs(r.service).toFixed(2)} (${r.service.requestsPerSecond.toFixed(0)})`),
      ],
      [
        'baseline (req/s)',
        ...runs.map((r) => `${serverMs(r.baseline).toFixed(2)} (${r.baseline.requestsPerSecond.toFixed(0)})`),
      ],
      ['service ÷ baseline, CPU', ...runs.map((r) => (serverMs(r.service) / serverMs(r.baseline)).toFixed(2))],
      ['PostgreSQL, service', ...runs.map((r) => r.service.postgresMs.toFixed(2))],
      ['PostgreSQL, baseline', ...runs.map((r) => r.baseline.postgresMs.toFixed(2))],
      [
        'throughput ÷ baseline',
        ...runs.map((r) => (r.service.requestsPerSecond / r.baseline.requestsPerSecond).toFixed(2)),
      ],
    ];
    console.log(`${markdown(cpu)}\n`);
    // Kept for a closer look (Chrome DevTools, speedscope), with the runs' stretches of the clock.
    const windows = Object.fromEntries(
      runs.map((r) => [r.name, { service: r.profiled.window, baseline: r.profiledBaseline.window }]),
    );
    writeFileSync(path.join(profileDir, 'windows.json'), JSON.stringify(windows));
    console.log(`  (the profiles and their runs' windows: ${profileDir}, the baseline's in baseline/)`);
  } finally {
    await client.end().catch(() => undefined);
    await database.drop();
  }
}

/** A Markdown table, figures right-aligned, as docs/performance.md has them. */
export function markdown(rows: string[][]): string {
  const [head, ...body] = rows;
  const line = (cells: string[]) => `| ${cells.join(' | ')} |`;
  return [line(head), line(head.map((_, i) => (i ? '---:' : '---'))), ...body.map(line)].join('\n');
}
