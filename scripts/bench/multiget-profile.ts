// The multiget part (`npm run bench -- multiget`): where a CalDAV calendar-multiget of 50 resources
// spends its time, the multiget of the comparison with Radicale (radicale.ts). On a calendar of
// BENCH_CALDAV_SIZES' first size (1,000 unless told) on PostgreSQL: a profiled service
// (`--cpu-prof`) answers MULTIGETS multigets of the same 50 resources one at a time, as a client
// asks, after a warm-up; its main thread's samples are put in layers as profile.ts does, with the
// layers a CalDAV read goes through. Then a second service answers three more on a database that
// has auto_explain log every statement's plan with its times (EXPLAIN ANALYZE, in PostgreSQL's
// own log): the statements of the last one are printed, slowest first, and their plans written
// beside the profile.
import { appendFileSync, mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import pg from 'pg';
import { basicAuth } from '../../test/setup/dav-clients.js';
import { scaledCalendar } from './calendar.js';
import { createPostgres, seed } from './fixtures.js';
import { cpuSeconds } from './load.js';
import {
  backendsCpu,
  type CpuProfile,
  GC,
  IDLE,
  LAYERS,
  markdown,
  nowUs,
  OTHER,
  SYSCALLS,
  sharesByLayer,
} from './profile.js';
import { CALDAV_SIZES } from './radicale.js';
import { startService } from './service.js';

const MULTIGETS = Number(process.env.BENCH_MULTIGETS ?? 300);
const COLLECTION = '/caldav/calendars/events/';
/** PostgreSQL's log on these machines (docs/performance.md, "Reproduce"), where auto_explain writes. */
const POSTGRES_LOG = process.env.BENCH_POSTGRES_LOG ?? '/var/log/postgresql/postgresql-15-main.log';

const layer = (name: string) => {
  const found = LAYERS.find(([n]) => n === name);
  if (!found) throw new Error(`no layer ${name}`);
  return found;
};

/** A CalDAV read's layers, from the top of the stack down as profile.ts takes them. */
const DAV_LAYERS: [string, RegExp][] = [
  layer("node's HTTP and sockets"),
  [
    'writing the texts (src/ical, ical-generator, Luxon, time zones)',
    /src\/ical\/|src\/recurrence\/|src\/lib\/(ical-fold|text|plain-text|event-times|dates)\.[jt]s|src\/serializers\/|node_modules\/(ical-generator|@touch4it|luxon|rrule)\//,
  ],
  [
    'XML: the multistatus (caldav/xml.ts; xmlbuilder2 before), the request (saxes)',
    /node_modules\/(xmlbuilder2|@oozcitak|saxes|xmlchars|js-yaml)\/|src\/caldav\/(xml|multistatus|props)\.[jt]s/,
  ],
  ['Prisma: its query compiler (WebAssembly) and client', /node_modules\/(@prisma|prisma)\/|generated\/prisma\//],
  ['pg: the protocol, the rows; the statements (src/queries, src/db)', layer('the query (pg, Prisma, SQL, rows)')[1]],
  layer('Express and middleware'),
  layer('logging (pino)'),
  layer('security (authentication, roles, limits)'),
  layer('metrics (prom-client)'),
  ['CalDAV: reports, kept texts, the answer', /src\/caldav\//],
  ['services (resources, ETags)', /src\/(services|domain|auth)\//],
];

const agent = new http.Agent({ keepAlive: true });

function send(url: string, method: string, headers: Record<string, string>, body: string) {
  return new Promise<{ status: number; text: string }>((resolve, reject) => {
    const request = http.request(url, { method, headers, agent }, (answer) => {
      const chunks: Buffer[] = [];
      answer.on('data', (chunk: Buffer) => chunks.push(chunk));
      answer.on('end', () => {
        resolve({ status: answer.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') });
      });
      answer.on('error', reject);
    });
    request.on('error', reject);
    request.end(body);
  });
}

const RESPONSE = /<(?:\w+:)?response[\s>][\s\S]*?<\/(?:\w+:)?response>/g;
const hrefOf = (xml: string) => /<(?:\w+:)?href>([^<]*)</.exec(xml)?.[1] ?? '';

export async function profileMultiget(): Promise<void> {
  const events = CALDAV_SIZES[0] ?? 1000;
  const database = await createPostgres('multiget');
  const profileDir = mkdtempSync(path.join(os.tmpdir(), 'calendar-multiget-'));
  const client = new pg.Client({ connectionString: database.url });
  try {
    const fixtures = await seed({ kind: 'postgresql', url: database.url }, scaledCalendar(events));
    await client.connect();
    const auth = basicAuth('bench', fixtures.bearer);
    const dav = async (origin: string, body: string) => {
      const answer = await send(
        `${origin}${COLLECTION}`,
        'REPORT',
        { authorization: auth, depth: '1', 'content-type': 'application/xml; charset=utf-8' },
        body,
      );
      if (answer.status !== 207) throw new Error(`REPORT answered ${answer.status}: ${answer.text.slice(0, 300)}`);
      return answer.text;
    };
    const profiled = await startService({ kind: 'postgresql', url: database.url }, {}, [
      '--cpu-prof',
      `--cpu-prof-dir=${profileDir}`,
    ]);
    let body = '';
    let window = { from: 0, to: 0 };
    let cpuMs = 0;
    let postgresMs = 0;
    let wallMs = 0;
    try {
      const listing = await dav(
        profiled.url,
        '<d:sync-collection xmlns:d="DAV:"><d:sync-token/><d:sync-level>1</d:sync-level><d:prop><d:getetag/></d:prop></d:sync-collection>',
      );
      const hrefs = (listing.match(RESPONSE) ?? []).map(hrefOf);
      const step = Math.max(1, Math.floor(hrefs.length / 50));
      const fifty = hrefs.filter((_, i) => i % step === 0).slice(0, 50);
      body = `<c:calendar-multiget xmlns:d="DAV:" xmlns:c="urn:ietf:params:xml:ns:caldav"><d:prop><d:getetag/><c:calendar-data/></d:prop>${fifty.map((h) => `<d:href>${h}</d:href>`).join('')}</c:calendar-multiget>`;
      for (let i = 0; i < 30; i++) await dav(profiled.url, body);
      const pid = profiled.process.pid ?? 0;
      const [cpu, backends] = [cpuSeconds(pid), await backendsCpu(client)];
      const started = performance.now();
      window = { from: nowUs(), to: 0 };
      for (let i = 0; i < MULTIGETS; i++) await dav(profiled.url, body);
      window.to = nowUs();
      wallMs = (performance.now() - started) / MULTIGETS;
      cpuMs = ((cpuSeconds(pid) - cpu) * 1000) / MULTIGETS;
      const after = await backendsCpu(client);
      for (const [backend, seconds] of after) postgresMs += seconds - (backends.get(backend) ?? 0);
      postgresMs = (postgresMs * 1000) / MULTIGETS;
    } finally {
      await profiled.stop();
    }
    const file = readdirSync(profileDir).find((name) => name.endsWith('.cpuprofile'));
    if (!file) throw new Error('the profiled service left no profile');
    const profile = JSON.parse(readFileSync(path.join(profileDir, file), 'utf8')) as CpuProfile;
    const { shares, samples } = sharesByLayer(profile, window, DAV_LAYERS);
    const percent = (share: number | undefined) => (share ? `${(share * 100).toFixed(1)} %` : '');
    console.log(
      `\n${events.toLocaleString('en')} events, ${MULTIGETS} multigets of 50 one at a time: ${wallMs.toFixed(1)} ms each, ${cpuMs.toFixed(1)} ms of the service's CPU, ${postgresMs.toFixed(1)} ms of PostgreSQL's; ${samples} samples\n`,
    );
    console.log(
      markdown([
        ['layer', 'share of the main thread', 'share of its busy time'],
        ...[...DAV_LAYERS.map(([name]) => name), GC, SYSCALLS, IDLE, OTHER].map((name) => [
          name,
          percent(shares.get(name)),
          name === IDLE ? '' : percent((shares.get(name) ?? 0) / (1 - (shares.get(IDLE) ?? 0))),
        ]),
      ]),
    );
    writeFileSync(path.join(profileDir, 'window.json'), JSON.stringify(window));
    console.log(`\n  (the profile: ${path.join(profileDir, file)}, its run's window: window.json)`);
    await explained(database.url, auth, body, profileDir);
  } finally {
    await client.end().catch(() => undefined);
    await database.drop();
  }
}

/** Three multigets on a service whose sessions have auto_explain log each statement, the last one's statements printed. */
async function explained(url: string, auth: string, body: string, dir: string): Promise<void> {
  const name = new URL(url).pathname.slice(1);
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  try {
    for (const setting of [
      `session_preload_libraries = 'auto_explain'`,
      'auto_explain.log_min_duration = 0',
      'auto_explain.log_analyze = on',
      'auto_explain.log_buffers = on',
    ])
      await admin.query(`ALTER DATABASE "${name}" SET ${setting}`);
  } finally {
    await admin.end();
  }
  const server = await startService({ kind: 'postgresql', url });
  let from: number;
  try {
    const ask = (text: string) =>
      send(
        `${server.url}${COLLECTION}`,
        'REPORT',
        { authorization: auth, depth: '1', 'content-type': 'application/xml; charset=utf-8' },
        text,
      );
    await ask(body);
    await ask(body);
    await new Promise((resolve) => setTimeout(resolve, 200));
    from = statSync(POSTGRES_LOG).size;
    await ask(body);
    await new Promise((resolve) => setTimeout(resolve, 500));
  } finally {
    await server.stop();
  }
  const log = readFileSync(POSTGRES_LOG, 'utf8').slice(from);
  const entries: { ms: number; query: string; text: string }[] = [];
  let current: string[] | undefined;
  const flush = () => {
    if (!current) return;
    const text = current.join('\n');
    const ms = /duration: ([\d.]+) ms\s+plan:/.exec(text);
    const query =
      /Query Text: ([\s\S]*?)\n\s*(?:[A-Z][\w ]*(?:Scan|Join|Loop|Aggregate|Sort|Result|Limit|Append|Unique|Hash|Materialize|Gather)|->|Subquery|InitPlan|Result)/.exec(
        text,
      );
    if (ms) entries.push({ ms: Number(ms[1]), query: (query?.[1] ?? text).replace(/\s+/g, ' ').slice(0, 140), text });
    current = undefined;
  };
  for (const line of log.split('\n')) {
    if (/^\d{4}-\d\d-\d\d /.test(line)) {
      flush();
      if (line.includes(`@${name} `)) current = [line];
    } else current?.push(line);
  }
  flush();
  entries.sort((a, b) => b.ms - a.ms);
  const plans = path.join(dir, 'plans.txt');
  writeFileSync(plans, '');
  for (const e of entries) appendFileSync(plans, `${e.text}\n\n`);
  console.log(`\nThe last multiget's ${entries.length} statements (EXPLAIN ANALYZE by auto_explain), slowest first:\n`);
  console.log(
    markdown([['ms', 'statement'], ...entries.map((e) => [e.ms.toFixed(2), e.query.replaceAll('|', '\\|')])]),
  );
  console.log(`\n  (their plans: ${plans})`);
}
