// The service's CalDAV beside Radicale (Debian's, started as test/setup/dav-clients.ts starts it for
// the client tests), on the same calendar: the service on PostgreSQL is seeded (calendar.ts), its
// whole calendar read back through its own CalDAV and written into Radicale, then both are asked
// the same things, one request at a time as a phone asks: discovery, a full sync, an incremental
// sync after ten changes, a multiget of 50 and the PUT of a new event. Each figure is the median
// and slowest of several runs; the ratio is the service's median over Radicale's (below 1, the
// service is faster).
import { readdirSync, readFileSync } from 'node:fs';
import http from 'node:http';
import { performance } from 'node:perf_hooks';
import { basicAuth, type Radicale, startRadicale } from '../../test/setup/dav-clients.js';
import { scaledCalendar } from './calendar.js';
import { createPostgres, seed } from './fixtures.js';
import { cpuSeconds } from './load.js';
import { startService } from './service.js';
import { API } from './settings.js';

/**
 * BENCH_CALDAV_SIZES: the calendars compared, comma-separated numbers of events. 1,000 unless told:
 * filling Radicale with 10,000 takes it about two minutes on two shared cores (docs/performance.md).
 */
export const CALDAV_SIZES = (process.env.BENCH_CALDAV_SIZES || '1000')
  .split(',')
  .map((size) => Number(size.trim()))
  .filter((size) => size > 0);

const DAV = 'xmlns:d="DAV:" xmlns:c="urn:ietf:params:xml:ns:caldav" xmlns:cs="http://calendarserver.org/ns/"';
/** The list of calendars as DAVx5 and Apple Calendar ask for it in a calendar home. */
const CALENDAR_LIST = `<d:propfind ${DAV}><d:prop><d:resourcetype/><d:displayname/><c:calendar-description/><c:supported-calendar-component-set/><d:current-user-privilege-set/><d:sync-token/><cs:getctag/></d:prop></d:propfind>`;
const propfind = (prop: string) => `<d:propfind ${DAV}><d:prop>${prop}</d:prop></d:propfind>`;
const syncBody = (token: string) =>
  `<d:sync-collection ${DAV}><d:sync-token>${token}</d:sync-token><d:sync-level>1</d:sync-level><d:prop><d:getetag/></d:prop></d:sync-collection>`;
const multigetBody = (hrefs: string[]) =>
  `<c:calendar-multiget ${DAV}><d:prop><d:getetag/><c:calendar-data/></d:prop>${hrefs.map((href) => `<d:href>${href}</d:href>`).join('')}</c:calendar-multiget>`;

// Both servers' multistatus, whatever prefix each gives the DAV: and CalDAV namespaces.
const RESPONSE = /<(?:\w+:)?response[\s>][\s\S]*?<\/(?:\w+:)?response>/g;
const hrefOf = (xml: string) => /<(?:\w+:)?href>([^<]*)</.exec(xml)?.[1] ?? '';
const unescapeXml = (text: string) =>
  text.replace(/&(lt|gt|amp|quot|apos|#x?[0-9a-fA-F]+);/g, (_, name: string) => {
    if (name.startsWith('#x')) return String.fromCodePoint(parseInt(name.slice(2), 16));
    if (name.startsWith('#')) return String.fromCodePoint(Number(name.slice(1)));
    return { lt: '<', gt: '>', amp: '&', quot: '"', apos: "'" }[name] ?? '';
  });

/** One CalDAV server as a client sees it: where it starts, who signs in, how ten events change. */
interface Side {
  name: string;
  origin: string;
  auth: string;
  /** Where discovery starts (the address the user types). */
  root: string;
  /** The calendar the scenarios read and write: its path. */
  collection: string;
  /** Its process, whose CPU time is counted. */
  pid(): number;
  change(hrefs: string[]): Promise<void>;
}

interface Timing {
  medianMs: number;
  maxMs: number;
  /** CPU time of the server's process per request (/proc; PostgreSQL's own not counted). */
  cpuMs: number;
  /** What the last answer held: its responses (resources, or calendars for discovery) and size. */
  responses: number;
  bytes: number;
}

/** The process this one started under that name (startRadicale keeps its child to itself); 0 for none. */
function childNamed(name: string): number {
  for (const entry of readdirSync('/proc').filter((e) => /^\d+$/.test(e))) {
    try {
      // pid (comm) state ppid ...
      const [, comm, ppid] = /^\d+ \((.*)\) \S+ (\d+)/.exec(readFileSync(`/proc/${entry}/stat`, 'utf8')) ?? [];
      if (comm === name && Number(ppid) === process.pid) return Number(entry);
    } catch {
      // It ended while the folder was read.
    }
  }
  return 0;
}

type Results = Record<'discovery' | 'full' | 'incremental' | 'multiget' | 'put', Timing>;

const RUNS = { discovery: 11, full: 3, incremental: 11, multiget: 11, put: 11 };
/**
 * Untimed runs of each scenario first, on both sides: what is measured is a server that has
 * answered such requests before, as one in service has. The service's code runs in V8's interpreter
 * until it has run often enough to be compiled, and a multiget keeps the texts it wrote: without
 * these, the first multiget of 50 took 36 ms and the eleven 12.7 ms of the service's CPU each on
 * average, against 8.2 ms with them (1,000 events; docs/performance.md "CalDAV beside Radicale").
 * Radicale, on CPython, has no such start to make.
 */
const WARM_UPS = { discovery: 3, full: 1, incremental: 3, multiget: 5, put: 3 };

// node:http rather than fetch: Radicale closes the connection after each answer, and undici
// (Node 24's fetch) fails the whole process when that close meets a big answer it is still
// reading under backpressure (nodejs/undici#5360).
const agent = new http.Agent({ keepAlive: true });

/** One request, its answer read whole. */
function send(url: string, method: string, headers: Record<string, string>, body = '') {
  return new Promise<{ status: number; text: string; etag: string }>((resolve, reject) => {
    const request = http.request(url, { method, headers, agent }, (answer) => {
      const chunks: Buffer[] = [];
      answer.on('data', (chunk: Buffer) => chunks.push(chunk));
      answer.on('end', () => {
        resolve({
          status: answer.statusCode ?? 0,
          text: Buffer.concat(chunks).toString('utf8'),
          etag: answer.headers.etag ?? '',
        });
      });
      answer.on('error', reject);
    });
    request.on('error', reject);
    request.end(body);
  });
}

const ask = (side: Side, method: string, path: string, body: string, headers: Record<string, string> = {}) =>
  send(
    `${side.origin}${path}`,
    method,
    { authorization: side.auth, 'content-type': 'application/xml; charset=utf-8', ...headers },
    body,
  );

async function dav(side: Side, method: string, path: string, body: string, depth: string): Promise<string> {
  const answer = await ask(side, method, path, body, { depth });
  if (answer.status !== 207)
    throw new Error(`${side.name}: ${method} ${path} answered ${answer.status}: ${answer.text.slice(0, 300)}`);
  return answer.text;
}

async function timed(
  side: Side,
  runs: number,
  warmUps: number,
  once: (run: number) => Promise<string>,
): Promise<Timing> {
  // Numbered after the timed runs, so that each run (a PUT's name) is another.
  for (let run = runs; run < runs + warmUps; run++) await once(run);
  const times: number[] = [];
  let last = '';
  const cpuBefore = cpuSeconds(side.pid());
  for (let run = 0; run < runs; run++) {
    const started = performance.now();
    last = await once(run);
    times.push(performance.now() - started);
  }
  times.sort((a, b) => a - b);
  return {
    medianMs: times[Math.floor(times.length / 2)],
    maxMs: times[times.length - 1],
    cpuMs: ((cpuSeconds(side.pid()) - cpuBefore) * 1000) / runs,
    responses: last.match(RESPONSE)?.length ?? 0,
    bytes: Buffer.byteLength(last),
  };
}

/** current-user-principal, then calendar-home-set, then the calendars of the home, Depth 1. */
async function discover(side: Side): Promise<string> {
  const root = await dav(side, 'PROPFIND', side.root, propfind('<d:current-user-principal/>'), '0');
  const principal = /current-user-principal>\s*<(?:\w+:)?href>([^<]*)</.exec(root)?.[1];
  if (!principal) throw new Error(`${side.name}: no current-user-principal in ${root.slice(0, 300)}`);
  const found = await dav(side, 'PROPFIND', principal, propfind('<c:calendar-home-set/>'), '0');
  const home = /calendar-home-set>\s*<(?:\w+:)?href>([^<]*)</.exec(found)?.[1];
  if (!home) throw new Error(`${side.name}: no calendar-home-set in ${found.slice(0, 300)}`);
  return dav(side, 'PROPFIND', home, CALENDAR_LIST, '1');
}

const hrefsOf = (multistatus: string) => (multistatus.match(RESPONSE) ?? []).map(hrefOf);
const tokenOf = (multistatus: string) => /<(?:\w+:)?sync-token>([^<]*)</.exec(multistatus)?.[1] ?? '';

/** The text of a new event, a different one each run. */
function newEvent(uid: string): string {
  const day = new Date(Date.now() + 30 * 86_400_000).toISOString().slice(0, 10).replaceAll('-', '');
  return [
    'BEGIN:VCALENDAR',
    'VERSION:2.0',
    'PRODID:-//calendar-events bench//EN',
    'BEGIN:VEVENT',
    `UID:${uid}`,
    'DTSTAMP:20260101T000000Z',
    `DTSTART:${day}T180000Z`,
    `DTEND:${day}T200000Z`,
    'SUMMARY:Written by the CalDAV benchmark',
    'LOCATION:Hall 1',
    'END:VEVENT',
    'END:VCALENDAR',
    '',
  ].join('\r\n');
}

/**
 * Every scenario, each on one side and then the other, so that passing load on a shared machine
 * weighs on both; the PUTs, which add events, last. One discovery each first, untimed: the
 * service verifies an application password once per process (scrypt, src/auth/secrets.ts).
 */
async function scenarios(sides: Side[]): Promise<Results[]> {
  const results = sides.map(() => ({}) as Results);
  const each = async (key: keyof Results, runs: number, once: (side: Side, run: number) => Promise<string>) => {
    for (const [i, side] of sides.entries())
      results[i][key] = await timed(side, runs, WARM_UPS[key], (run) => once(side, run));
  };
  for (const side of sides) await discover(side);
  await each('discovery', RUNS.discovery, discover);
  await each('full', RUNS.full, (side) => dav(side, 'REPORT', side.collection, syncBody(''), '1'));
  const listings = await Promise.all(sides.map((side) => dav(side, 'REPORT', side.collection, syncBody(''), '1')));
  const hrefs = new Map(sides.map((side, i) => [side, hrefsOf(listings[i])]));
  const tokens = new Map(sides.map((side, i) => [side, tokenOf(listings[i])]));
  for (const side of sides) await side.change(hrefs.get(side)?.slice(0, 10) ?? []);
  await each('incremental', RUNS.incremental, async (side) => {
    const answer = await dav(side, 'REPORT', side.collection, syncBody(tokens.get(side) ?? ''), '1');
    const changes = answer.match(RESPONSE)?.length ?? 0;
    if (changes < 10) throw new Error(`${side.name}: the incremental sync gave ${changes} of 10 changes`);
    return answer;
  });
  // Fifty resources from all over the calendar, as a client fetches what a sync listed.
  const fifty = (side: Side) => {
    const all = hrefs.get(side) ?? [];
    const step = Math.max(1, Math.floor(all.length / 50));
    return all.filter((_, i) => i % step === 0).slice(0, 50);
  };
  await each('multiget', RUNS.multiget, (side) => dav(side, 'REPORT', side.collection, multigetBody(fifty(side)), '1'));
  await each('put', RUNS.put, async (side, run) => {
    const name = `bench-${side.name}-${process.pid}-${run}`;
    const answer = await ask(side, 'PUT', `${side.collection}${name}.ics`, newEvent(`${name}@bench.example.org`), {
      'content-type': 'text/calendar; charset=utf-8',
      'if-none-match': '*',
    });
    if (answer.status !== 201) throw new Error(`${side.name}: PUT answered ${answer.status}: ${answer.text}`);
    return answer.text;
  });
  return results;
}

/**
 * The service's whole calendar as one iCalendar text: every resource read through its CalDAV (a
 * sync for the names, multigets of a thousand for the texts), each zone's text once.
 */
async function exportCalendar(service: Side): Promise<{ text: string; resources: number }> {
  const hrefs = hrefsOf(await dav(service, 'REPORT', service.collection, syncBody(''), '1'));
  const zones = new Set<string>();
  const events: string[] = [];
  for (let i = 0; i < hrefs.length; i += 1000) {
    const answer = await dav(service, 'REPORT', service.collection, multigetBody(hrefs.slice(i, i + 1000)), '1');
    for (const [, data] of answer.matchAll(/<(?:\w+:)?calendar-data[^>]*>([^<]*)</g)) {
      const text = unescapeXml(data);
      for (const [block] of text.matchAll(/^BEGIN:VTIMEZONE\r?\n[\s\S]*?^END:VTIMEZONE\r?\n/gm)) zones.add(block);
      for (const [block] of text.matchAll(/^BEGIN:VEVENT\r?\n[\s\S]*?^END:VEVENT\r?\n/gm)) events.push(block);
    }
  }
  const text = [
    'BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//calendar-events bench//EN\r\n',
    ...zones,
    ...events,
    'END:VCALENDAR\r\n',
  ].join('');
  return { text, resources: hrefs.length };
}

/**
 * Fills Radicale's calendar with the service's. In one PUT of the whole collection, which Radicale
 * stores as one file per UID: a PUT per event costs Radicale a read of every item already there
 * (its UID check, storage/__init__.py `has_uid`) under its one storage lock, so ten thousand of
 * them would take the better part of an hour, concurrently or not.
 */
async function fillRadicale(radicale: Radicale, calendar: string): Promise<number> {
  const started = performance.now();
  const answer = await send(
    radicale.calendarUrl,
    'PUT',
    { authorization: basicAuth(radicale.user, radicale.password), 'content-type': 'text/calendar' },
    calendar,
  );
  if (answer.status !== 201) throw new Error(`Radicale answered ${answer.status} to the calendar's PUT`);
  return performance.now() - started;
}

/** Ten events changed on Radicale as a client changes them: read, a new SUMMARY, PUT with If-Match. */
function radicaleSide(radicale: Radicale): Side {
  const pid = childNamed('radicale');
  const side: Side = {
    name: 'Radicale',
    origin: radicale.url,
    auth: basicAuth(radicale.user, radicale.password),
    root: '/',
    collection: new URL(radicale.calendarUrl).pathname,
    pid: () => pid,
    async change(hrefs) {
      for (const href of hrefs) {
        const current = await send(`${radicale.url}${href}`, 'GET', { authorization: side.auth });
        const etag = current.etag;
        const text = current.text.replace(/^SUMMARY:.*$/m, `SUMMARY:Changed for the benchmark at ${Date.now()}`);
        const answer = await ask(side, 'PUT', href, text, { 'content-type': 'text/calendar', 'if-match': etag });
        if (answer.status !== 201) throw new Error(`Radicale answered ${answer.status} to a change`);
      }
    },
  };
  return side;
}

const NAMES: [keyof Results, string][] = [
  ['discovery', 'discovery (principal, home, calendars)'],
  ['full', 'full sync (sync-collection, ETags)'],
  ['incremental', 'incremental sync, 10 changes'],
  ['multiget', 'multiget of 50'],
  ['put', 'PUT of a new event'],
];

function report(events: number, service: Results, radicale: Results) {
  const cell = (t: Timing) =>
    `${t.medianMs.toFixed(1).padStart(7)} (${t.maxMs.toFixed(1).padStart(7)}) ${t.cpuMs.toFixed(1).padStart(6)}`;
  console.log(
    `${'events'.padStart(6)}  ${'scenario'.padEnd(40)} ${'service: median (slowest), CPU ms'.padEnd(33)} ${'Radicale: median (slowest), CPU ms'.padEnd(34)} ÷ Radicale  responses, KiB (service / Radicale)`,
  );
  for (const [key, name] of NAMES) {
    const [s, r] = [service[key], radicale[key]];
    console.log(
      `${events.toLocaleString('en').padStart(6)}  ${name.padEnd(40)} ${cell(s).padEnd(33)} ${cell(r).padEnd(34)} ${(s.medianMs / r.medianMs).toFixed(2).padStart(10)}  ${s.responses} / ${r.responses}, ${(s.bytes / 1024).toFixed(0)} / ${(r.bytes / 1024).toFixed(0)}`,
    );
  }
}

/** The comparison on a calendar of `events` events: the service on a fresh PostgreSQL database, a fresh Radicale. */
export async function compareWithRadicale(events: number): Promise<void> {
  const database = await createPostgres(`radicale_${events}`);
  try {
    const fixtures = await seed({ kind: 'postgresql', url: database.url }, scaledCalendar(events));
    const server = await startService({ kind: 'postgresql', url: database.url });
    try {
      const service: Side = {
        name: 'service',
        origin: server.url,
        auth: basicAuth('bench', fixtures.bearer),
        root: '/caldav/',
        collection: '/caldav/calendars/events/',
        pid: () => server.process.pid ?? 0,
        async change() {
          // Through the API, as an editor changes an event; the feed gives a change once no older
          // transaction is still running, a moment after it commits.
          for (const id of fixtures.eventIds.slice(0, 10)) {
            const answer = await send(
              `${server.url}${API}/events/${id}`,
              'POST',
              { authorization: `Bearer ${fixtures.bearer}`, 'content-type': 'application/json' },
              JSON.stringify({ excerpt: `Changed for the CalDAV benchmark at ${Date.now()}` }),
            );
            if (answer.status !== 200) throw new Error(`The API answered ${answer.status} to a change`);
          }
          await new Promise((resolve) => setTimeout(resolve, 500));
        },
      };
      const radicale = await startRadicale();
      try {
        const exported = await exportCalendar(service);
        const fillMs = await fillRadicale(radicale, exported.text);
        console.log(
          `  (Radicale filled with the service's ${exported.resources.toLocaleString('en')} resources, ${(Buffer.byteLength(exported.text) / 2 ** 20).toFixed(1)} MB, in one PUT of ${(fillMs / 1000).toFixed(1)} s)`,
        );
        const [onService, onRadicale] = await scenarios([service, radicaleSide(radicale)]);
        report(events, onService, onRadicale);
      } finally {
        await radicale.close();
      }
    } finally {
      await server.stop();
    }
  } finally {
    await database.drop();
  }
}
