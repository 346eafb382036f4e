// `npm run files-touched`: which files of src/ one request runs code in, for the walks of
// docs/architecture.md (a REST PATCH of an event, a CalDAV PUT, an import of one item).
//
// How: V8's precise coverage (node:inspector, Profiler.startPreciseCoverage with call counts) is on
// before any module of src/ loads. The app runs in this process on an in-memory PGlite (as
// test/setup/server.ts starts it) and the importer is called as test/setup/importing.ts calls it.
// Each path is taken once to warm up (first-use work: compiled validators, lazily built caches),
// then the counts are reset (takePreciseCoverage resets them) around one more request of its kind,
// and a file counts when a function in it other than the module's top level ran during that request.
// Files are found by what ran, not from a list, so the script measures any layout of src/. An idle
// window is measured first: what runs there runs on its own (timers: metrics/event-loop.ts samples
// every 20 ms), is printed once and not counted in the requests' lists.
// ICAL.parse's calls are counted the same way, from the coverage of node_modules/ical.js.
import inspector from 'node:inspector/promises';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const session = new inspector.Session();
session.connect();
await session.post('Profiler.enable');
await session.post('Profiler.startPreciseCoverage', { callCount: true, detailed: true });

// Loaded only now, so that every function of src/ is compiled with coverage on.
const { createApp } = await import('../src/app.js');
const { createUser, issueAppPassword } = await import('../src/auth/accounts.js');
const { loadConfig } = await import('../src/config.js');
const { openDatabase } = await import('../src/db/client.js');
const { importIcs } = await import('../src/import/commands.js');
const { plainProgress } = await import('../src/import/progress.js');

/** Time for what a request does after its answer is sent (response listeners) to run in the window. */
const SETTLE_MS = 200;

interface Measured {
  files: string[];
  icalParses: number;
}

/** Files that run with no request at all (set from the idle window). */
let background = new Set<string>();

/** The files of src/ in which a function ran during `run`, and how often ICAL.parse ran. */
async function measure(run: () => Promise<unknown>): Promise<Measured> {
  await session.post('Profiler.takePreciseCoverage');
  await run();
  await sleep(SETTLE_MS);
  const { result } = await session.post('Profiler.takePreciseCoverage');
  const files: string[] = [];
  let icalParses = 0;
  for (const script of result) {
    if (!script.url.startsWith('file:')) continue;
    const file = path.relative(root, fileURLToPath(script.url.replace(/\?.*$/, '')));
    // The module's top level is the one function that starts at offset 0; it ran when the module loaded.
    const ran = script.functions.some((f) => f.ranges[0].startOffset > 0 && f.ranges.some((r) => r.count > 0));
    if (file.startsWith(`src${path.sep}`) && ran && !background.has(file)) files.push(file);
    if (file.includes(`node_modules${path.sep}ical.js${path.sep}`)) {
      icalParses += script.functions.find((f) => f.functionName === 'parse')?.ranges[0].count ?? 0;
    }
  }
  return { files: files.sort(), icalParses };
}

function print(title: string, { files, icalParses }: Measured) {
  // A layer is a folder of src/ (docs/architecture.md, "Layers"); the files directly in src/ count as one.
  const layers = [...new Set(files.map((file) => file.split(path.sep)[1].replace(/^.*\.ts$/, '*.ts')))].sort();
  console.log(`\n${title}\n  ${files.length} files of src/ in ${layers.length} folders; ICAL.parse ran ${icalParses}x`);
  console.log(`  folders: ${layers.map((layer) => `src/${layer}`).join(' ')}`);
  for (const file of files) console.log(`  ${file}`);
}

const config = { ...loadConfig({ REST_PREFIX: '/wp-json' }), port: 0 };
const db = await openDatabase({ dataDir: 'memory://' });
const editor = await createUser(db.prisma, { login: 'editor', password: 'editor-password', role: 'editor' });
const { password: appPassword } = await issueAppPassword(db.prisma, 'editor', 'files-touched');
const app = createApp({ config, db });
await app.ready();
await app.warmUp();
const server = app.listen(0, '127.0.0.1');
await new Promise((resolve) => server.once('listening', resolve));
const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

/** A request as the editor (Bearer for REST, Basic for CalDAV), refused unless it answers `expect`. */
async function send(
  method: string,
  url: string,
  expect: number[],
  body?: string,
  headers: Record<string, string> = {},
) {
  const basic = Buffer.from(`editor:${appPassword}`).toString('base64');
  const response = await fetch(`${origin}${url}`, {
    method,
    body,
    headers: { authorization: url.startsWith('/caldav/') ? `Basic ${basic}` : `Bearer ${appPassword}`, ...headers },
  });
  const text = await response.text();
  if (!expect.includes(response.status)) throw new Error(`${method} ${url}: ${response.status} ${text.slice(0, 300)}`);
  return { etag: response.headers.get('etag') ?? '', text };
}

const EVENTS = '/wp-json/calendar/events/v1/events';
const json = { 'content-type': 'application/json' };
const patchTitle = (id: number, title: string) =>
  send('PATCH', `${EVENTS}/${id}`, [200], JSON.stringify({ title }), json);

/** A calendar of one VEVENT. */
const vcalendar = (uid: string, summary: string) =>
  [
    'BEGIN:VCALENDAR',
    'VERSION:2.0',
    'PRODID:-//files-touched//EN',
    'BEGIN:VEVENT',
    `UID:${uid}`,
    'DTSTAMP:20260101T000000Z',
    'DTSTART:20420601T180000Z',
    'DTEND:20420601T200000Z',
    `SUMMARY:${summary}`,
    'END:VEVENT',
    'END:VCALENDAR',
    '',
  ].join('\r\n');
const COLLECTION = '/caldav/calendars/events/';
const ics = { 'content-type': 'text/calendar; charset=utf-8' };
const putNew = (name: string) =>
  send('PUT', `${COLLECTION}${name}.ics`, [201, 204], vcalendar(`${name}@files-touched`, name), {
    ...ics,
    'if-none-match': '*',
  });
/** A changed SUMMARY under the ETag the resource has now (read before, outside the measured window). */
async function putChange(name: string, summary: string) {
  const { etag } = await send('GET', `${COLLECTION}${name}.ics`, [200]);
  return () =>
    send('PUT', `${COLLECTION}${name}.ics`, [200, 204], vcalendar(`${name}@files-touched`, summary), {
      ...ics,
      'if-match': etag,
    });
}

const importOne = async (uid: string, summary: string) => {
  const summaryOf = await importIcs(
    {
      ctx: {
        db: db.prisma,
        caller: { id: editor.id, login: editor.login, role: editor.role },
        siteZone: 'UTC',
        now: new Date(),
      },
      dryRun: false,
    },
    vcalendar(uid, summary),
    plainProgress({ write: () => undefined }),
    new AbortController().signal,
  );
  if (summaryOf.skipped.length > 0) throw new Error(`import of ${uid} skipped: ${JSON.stringify(summaryOf.skipped)}`);
};

const idle = await measure(() => sleep(300));
background = new Set(idle.files);
console.log(`Not counted below, run with no request (an idle window): ${idle.files.join(' ') || 'nothing'}`);

const created = await send(
  'POST',
  EVENTS,
  [201],
  JSON.stringify({ title: 'Seed', start_date: '2042-06-01 18:00:00', end_date: '2042-06-01 20:00:00' }),
  json,
);
const id = (JSON.parse(created.text) as { id: number }).id;
await patchTitle(id, 'Warm');
print(`1. REST PATCH ${EVENTS}/{id} (title), editor`, await measure(() => patchTitle(id, 'Measured')));

await putNew('warm');
print('2a. CalDAV PUT creating a resource (If-None-Match: *), editor', await measure(() => putNew('measured')));
const warmChange = await putChange('warm', 'Warm, changed');
await warmChange();
const change = await putChange('measured', 'Measured, changed');
print('2b. CalDAV PUT changing SUMMARY (If-Match), editor', await measure(() => change()));

await importOne('warm-import@files-touched', 'Warm');
print(
  '3a. Import of an .ics of one new VEVENT (importIcs), editor',
  await measure(() => importOne('import@files-touched', 'New')),
);
await importOne('warm-import@files-touched', 'Warm, changed');
print(
  '3b. Import of the same VEVENT, SUMMARY changed',
  await measure(() => importOne('import@files-touched', 'Changed')),
);

server.close();
await app.close();
await db.close();
session.disconnect();
