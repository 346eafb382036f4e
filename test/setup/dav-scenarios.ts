// What real clients do with a CalDAV server, as scenarios that run against any target: vdirsyncer
// syncs the collection to a folder ("here"), plain CalDAV requests change it on the server ("there"),
// khal reads the folder. The server side is written with nothing but PUT, GET, DELETE and PROPFIND,
// so the same scenarios check Radicale and our own server, and their reports can be put side by side.
import { randomBytes } from 'node:crypto';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { expect } from 'vitest';
import { basicAuth, type DavRequest, khalList, run, type RunResult, type Vdir, vdirsyncerPair } from './dav-clients.js';

export interface DavTarget {
  /** Names the report: test-artifacts/dav-clients-<name>.json. */
  name: string;
  /** Where vdirsyncer starts discovery (well-known, principal, calendar home set). */
  davUrl: string;
  user: string;
  password: string;
  /** The collection's name as vdirsyncer sees it (the last segment of its URL); all collections when absent. */
  collection?: string;
  /** The collection's absolute URL, for the server-side changes. */
  calendarUrl: string;
  /** When vdirsyncer talks through a recording proxy (startRecordingProxy), its requests go into the report. */
  recorder?: { take(): DavRequest[] };
  /**
   * Cancels the date `day` (2027-05-11) of the series titled `title` the way the target's own users
   * do (this service: its REST API); without it, a client's CalDAV PUT of an override with
   * STATUS:CANCELLED (Radicale, which has no other door).
   */
  cancelDate?: (title: string, day: string) => Promise<void>;
}

// ---- iCalendar text -------------------------------------------------------------------------------

const BERLIN = [
  'BEGIN:VTIMEZONE',
  'TZID:Europe/Berlin',
  'BEGIN:DAYLIGHT',
  'TZOFFSETFROM:+0100',
  'TZOFFSETTO:+0200',
  'TZNAME:CEST',
  'DTSTART:19700329T020000',
  'RRULE:FREQ=YEARLY;BYMONTH=3;BYDAY=-1SU',
  'END:DAYLIGHT',
  'BEGIN:STANDARD',
  'TZOFFSETFROM:+0200',
  'TZOFFSETTO:+0100',
  'TZNAME:CET',
  'DTSTART:19701025T030000',
  'RRULE:FREQ=YEARLY;BYMONTH=10;BYDAY=-1SU',
  'END:STANDARD',
  'END:VTIMEZONE',
];

/** A VEVENT in Europe/Berlin; `start` and `end` are local times (20250318T100000). */
const zoned = (uid: string, summary: string, start: string, end: string, extra: string[] = []) => [
  'BEGIN:VEVENT',
  `UID:${uid}`,
  `DTSTAMP:${stamp()}`,
  `DTSTART;TZID=Europe/Berlin:${start}`,
  `DTEND;TZID=Europe/Berlin:${end}`,
  `SUMMARY:${summary}`,
  ...extra,
  'END:VEVENT',
];

const allDay = (uid: string, summary: string, date: string, nextDate: string) => [
  'BEGIN:VEVENT',
  `UID:${uid}`,
  `DTSTAMP:${stamp()}`,
  `DTSTART;VALUE=DATE:${date}`,
  `DTEND;VALUE=DATE:${nextDate}`,
  `SUMMARY:${summary}`,
  'END:VEVENT',
];

const stamp = () => new Date().toISOString().replace(/[-:]/g, '').replace(/\.\d+/, '');

const calendar = (...components: string[][]) =>
  [
    'BEGIN:VCALENDAR',
    'VERSION:2.0',
    'PRODID:-//calendar-events-service//dav-scenarios//EN',
    ...components.flat(),
    'END:VCALENDAR',
    '',
  ].join('\r\n');

const summaryOf = (ics: string) => /^SUMMARY:(.*)$/m.exec(ics.replace(/\r\n[ \t]/g, ''))?.[1]?.trim();

// ---- the server side, over plain CalDAV ----------------------------------------------------------

export interface StoredObject {
  status: number;
  etag?: string;
  text: string;
}

/** GET, PUT, DELETE and PROPFIND on the target's collection; `name` is relative to it, or a path. */
export function serverSide(target: DavTarget) {
  const auth = { authorization: basicAuth(target.user, target.password) };
  const url = (name: string) => new URL(name, target.calendarUrl).href;
  const etagOf = (response: Response) => response.headers.get('etag') ?? undefined;
  return {
    url,
    async get(name: string): Promise<StoredObject> {
      const response = await fetch(url(name), { headers: auth });
      return { status: response.status, etag: etagOf(response), text: await response.text() };
    },
    async put(name: string, ics: string, condition: { ifMatch?: string; ifNoneMatch?: '*' } = {}) {
      const headers: Record<string, string> = { ...auth, 'content-type': 'text/calendar; charset=utf-8' };
      if (condition.ifMatch) headers['if-match'] = condition.ifMatch;
      if (condition.ifNoneMatch) headers['if-none-match'] = condition.ifNoneMatch;
      const response = await fetch(url(name), { method: 'PUT', headers, body: ics });
      await response.arrayBuffer();
      return { status: response.status, etag: etagOf(response) };
    },
    async remove(name: string, ifMatch?: string) {
      const response = await fetch(url(name), {
        method: 'DELETE',
        headers: ifMatch ? { ...auth, 'if-match': ifMatch } : auth,
      });
      await response.arrayBuffer();
      return response.status;
    },
    /** The hrefs of the collection's members (PROPFIND, Depth 1), the collection itself left out. */
    async list(): Promise<string[]> {
      const response = await fetch(target.calendarUrl, {
        method: 'PROPFIND',
        headers: { ...auth, depth: '1', 'content-type': 'application/xml; charset=utf-8' },
        body: '<?xml version="1.0"?><d:propfind xmlns:d="DAV:"><d:prop><d:getetag/></d:prop></d:propfind>',
      });
      const xml = await response.text();
      if (response.status !== 207) throw new Error(`PROPFIND ${target.calendarUrl}: ${response.status}`);
      const collection = new URL(target.calendarUrl).pathname;
      return [...xml.matchAll(/<(?:[\w-]+:)?href>([^<]+)<\/(?:[\w-]+:)?href>/g)]
        .map((match) => new URL((match[1] ?? '').trim(), target.calendarUrl).pathname)
        .filter((href) => href !== collection);
    },
    /** The stored object whose UID is `uid`, found by listing and reading the collection. */
    async findByUid(uid: string): Promise<(StoredObject & { href: string }) | undefined> {
      for (const href of await this.list()) {
        const stored = await this.get(href);
        if (stored.text.includes(`\nUID:${uid}\r`) || stored.text.includes(`\nUID:${uid}\n`))
          return { href, ...stored };
      }
      return undefined;
    },
  };
}

// ---- running and reporting ---------------------------------------------------------------------

interface StepRecord {
  step: string;
  ms: number;
  code?: number;
}

export interface ScenarioRecord {
  name: string;
  ok: boolean;
  ms: number;
  error?: string;
  steps: StepRecord[];
  /** vdirsyncer's requests (when the target has a recorder): what it relies on the server for. */
  requests: DavRequest[];
}

interface Context {
  target: DavTarget;
  server: ReturnType<typeof serverSide>;
  /** Distinguishes this run's UIDs and titles from whatever the collection holds already. */
  tag: string;
  step: <T>(name: string, work: () => Promise<T>) => Promise<T>;
  /** A vdirsyncer pair on the target, discovered and synced once; closed after the scenario. */
  pair: (options?: { conflictResolution?: 'a wins' | 'b wins' }) => Promise<Vdir>;
  sync: (vdir: Vdir, name: string) => Promise<RunResult>;
  /** The local file that holds `uid`. */
  localFile: (vdir: Vdir, uid: string) => Promise<{ name: string; text: string } | undefined>;
  /** khal's list of the days, this run's events only, in khal's `format` (default `{start} {title}`). */
  khal: (vdir: Vdir, from: string, to: string, format?: string) => Promise<string[]>;
}

interface Scenario {
  name: string;
  run(context: Context): Promise<void>;
}

/**
 * The scenarios for the target that `target()` returns once the tests run (it is usually started in
 * a beforeAll): `cases` to register as tests in order, `write()` to save the report afterwards.
 */
export function scenarios(target: () => DavTarget) {
  const records: ScenarioRecord[] = [];
  const tag = randomBytes(3).toString('hex');
  const cases = SCENARIOS.map((scenario) => ({
    name: scenario.name,
    run: () => runScenario(scenario, target(), tag, records),
  }));
  return { cases, records, write: () => writeReport(target(), records) };
}

async function runScenario(scenario: Scenario, target: DavTarget, tag: string, records: ScenarioRecord[]) {
  const record: ScenarioRecord = { name: scenario.name, ok: false, ms: 0, steps: [], requests: [] };
  records.push(record);
  target.recorder?.take();
  const vdirs: Vdir[] = [];
  const started = performance.now();
  const step = async <T>(name: string, work: () => Promise<T>): Promise<T> => {
    const at = performance.now();
    const result = await work();
    const code = (result as Partial<RunResult> | undefined)?.code;
    record.steps.push({ step: name, ms: Math.round(performance.now() - at), ...(code === undefined ? {} : { code }) });
    return result;
  };
  const sync = async (vdir: Vdir, name: string) => {
    const result = await step(name, () => vdir.sync());
    expect(result.code, `${name}: ${result.stdout}${result.stderr}`).toBe(0);
    return result;
  };
  const context: Context = {
    target,
    server: serverSide(target),
    tag,
    step,
    sync,
    async pair(options = {}) {
      const { davUrl, user, password, collection } = target;
      const vdir = await vdirsyncerPair({ davUrl, user, password, collection, ...options });
      vdirs.push(vdir);
      const discovered = await step('discover', () => vdir.discover());
      expect(discovered.code, discovered.stdout + discovered.stderr).toBe(0);
      await sync(vdir, 'first sync');
      return vdir;
    },
    async localFile(vdir, uid) {
      for (const [name, text] of await vdir.files()) {
        if (new RegExp(`^UID:${uid}\\r?$`, 'm').test(text)) return { name, text };
      }
      return undefined;
    },
    async khal(vdir, from, to, format) {
      const listed = await step('khal list', () => khalList(vdir.dir, { from, to }, format));
      return listed.split('\n').filter((line) => line.includes(tag));
    },
  };
  try {
    await scenario.run(context);
    record.ok = true;
  } catch (error) {
    record.error = error instanceof Error ? error.message : String(error);
    throw error;
  } finally {
    record.ms = Math.round(performance.now() - started);
    record.requests = target.recorder?.take() ?? [];
    await Promise.all(vdirs.map((vdir) => vdir.close()));
  }
}

async function writeReport(target: DavTarget, records: ScenarioRecord[]): Promise<string> {
  const env = { PATH: process.env.PATH, HOME: process.env.HOME };
  const version = async (program: string) => (await run(program, ['--version'], { env })).stdout.trim();
  // How often vdirsyncer sent each kind of request: the shape of its traffic at a glance.
  const requestKinds: Record<string, number> = {};
  for (const request of records.flatMap((record) => record.requests)) {
    const kind = [
      request.method,
      request.xml?.root,
      request.ifMatch && 'If-Match',
      request.ifNoneMatch && 'If-None-Match',
    ]
      .filter(Boolean)
      .join(' ');
    requestKinds[kind] = (requestKinds[kind] ?? 0) + 1;
  }
  const report = {
    target: target.name,
    at: new Date().toISOString(),
    clients: { vdirsyncer: await version('vdirsyncer'), khal: await version('khal') },
    passed: records.filter((record) => record.ok).length,
    failed: records.filter((record) => !record.ok).length,
    ms: records.reduce((sum, record) => sum + record.ms, 0),
    requestKinds,
    scenarios: records,
  };
  const file = path.join('test-artifacts', `dav-clients-${target.name}.json`);
  await fsp.mkdir('test-artifacts', { recursive: true });
  await fsp.writeFile(file, `${JSON.stringify(report, null, 2)}\n`);
  return file;
}

// ---- the scenarios ---------------------------------------------------------------------------------

// A replaced resource is 200 or 204 by RFC 9110; Radicale 3.1 answers 201 to every successful PUT.
const UPDATED = [200, 201, 204];

const SCENARIOS: Scenario[] = [
  {
    name: 'a. an event created here is on the server after a sync',
    async run({ tag, pair, sync, server }) {
      const vdir = await pair();
      const uid = `a-zoned-${tag}`;
      // A UID with characters vdirsyncer will not put in a URL: it uploads under a random name.
      const awkwardUid = `a-awkward-${tag}@example.org`;
      await vdir.write(`${uid}.ics`, calendar(BERLIN, zoned(uid, `Here ${tag}`, '20250602T090000', '20250602T100000')));
      await vdir.write('awkward.ics', calendar(allDay(awkwardUid, `Awkward ${tag}`, '20250603', '20250604')));
      await sync(vdir, 'sync up');

      const stored = await server.get(`${uid}.ics`);
      expect(stored.status).toBe(200);
      expect(summaryOf(stored.text)).toBe(`Here ${tag}`);
      expect(stored.text).toMatch(/^DTSTART;TZID=Europe\/Berlin:20250602T090000\r?$/m);
      expect(stored.text).toContain('TZID:Europe/Berlin');
      const awkward = await server.findByUid(awkwardUid);
      expect(awkward?.href).toMatch(/\/[0-9a-f-]{36}\.ics$/);
      expect(summaryOf(awkward?.text ?? '')).toBe(`Awkward ${tag}`);
    },
  },
  {
    name: 'b. events created on the server are here after a sync, and khal lists them on their days',
    async run({ tag, pair, sync, server, localFile, khal }) {
      const vdir = await pair();
      const dayUid = `b-allday-${tag}`;
      const zonedUid = `b-zoned-${tag}`;
      expect(
        (
          await server.put(`${dayUid}.ics`, calendar(allDay(dayUid, `All day ${tag}`, '20250506', '20250507')), {
            ifNoneMatch: '*',
          })
        ).status,
      ).toBe(201);
      const evening = calendar(BERLIN, zoned(zonedUid, `Evening ${tag}`, '20250701T183000', '20250701T200000'));
      expect((await server.put(`${zonedUid}.ics`, evening, { ifNoneMatch: '*' })).status).toBe(201);
      await sync(vdir, 'sync down');

      const day = await localFile(vdir, dayUid);
      expect(day?.name).toBe(`${dayUid}.ics`);
      expect(summaryOf(day?.text ?? '')).toBe(`All day ${tag}`);
      expect(summaryOf((await localFile(vdir, zonedUid))?.text ?? '')).toBe(`Evening ${tag}`);
      // khal reads in UTC: 18:30 in Berlin in summer is 16:30.
      expect(await khal(vdir, '2025-05-05', '2025-05-07')).toEqual([`2025-05-06 All day ${tag}`]);
      expect(await khal(vdir, '2025-07-01', '2025-07-01')).toEqual([`2025-07-01 16:30 Evening ${tag}`]);
      expect(await khal(vdir, '2025-05-07', '2025-05-08')).toEqual([]);
    },
  },
  {
    name: 'c. a change on either side reaches the other after a sync',
    async run({ tag, pair, sync, server, localFile }) {
      const vdir = await pair();
      const uid = `c-${tag}`;
      const event = (summary: string) => calendar(BERLIN, zoned(uid, summary, '20250805T140000', '20250805T150000'));
      const created = await server.put(`${uid}.ics`, event(`Before ${tag}`), { ifNoneMatch: '*' });
      expect(created.status).toBe(201);
      await sync(vdir, 'sync down');
      expect(summaryOf((await localFile(vdir, uid))?.text ?? '')).toBe(`Before ${tag}`);

      const current = await server.get(`${uid}.ics`);
      expect(current.etag).toBeTruthy();
      const changed = await server.put(`${uid}.ics`, event(`Changed there ${tag}`), { ifMatch: current.etag! });
      expect(UPDATED).toContain(changed.status);
      await sync(vdir, 'sync a change there');
      const local = await localFile(vdir, uid);
      expect(summaryOf(local?.text ?? '')).toBe(`Changed there ${tag}`);

      await vdir.write(local!.name, event(`Changed here ${tag}`));
      await sync(vdir, 'sync a change here');
      const stored = await server.get(`${uid}.ics`);
      expect(summaryOf(stored.text)).toBe(`Changed here ${tag}`);
      expect(stored.etag).not.toBe(current.etag);
    },
  },
  {
    name: 'd. a deletion on either side reaches the other after a sync',
    async run({ tag, pair, sync, server, localFile }) {
      const vdir = await pair();
      const hereUid = `d-here-${tag}`;
      await vdir.write(`${hereUid}.ics`, calendar(allDay(hereUid, `Deleted here ${tag}`, '20250910', '20250911')));
      await sync(vdir, 'sync up');
      expect((await server.get(`${hereUid}.ics`)).status).toBe(200);
      // A server that stores the event other than as sent answers the PUT without an ETag (RFC 9110
      // 9.3.4), and the next sync brings its version down; a deletion before that would meet a
      // change on the server, which vdirsyncer resolves by keeping the event.
      await sync(vdir, 'sync the stored version down');
      await vdir.remove(`${hereUid}.ics`);
      await sync(vdir, 'sync a deletion here');
      expect((await server.get(`${hereUid}.ics`)).status).toBe(404);

      const thereUid = `d-there-${tag}`;
      const ics = calendar(BERLIN, zoned(thereUid, `Deleted there ${tag}`, '20250911T080000', '20250911T083000'));
      expect((await server.put(`${thereUid}.ics`, ics, { ifNoneMatch: '*' })).status).toBe(201);
      await sync(vdir, 'sync down');
      expect(await localFile(vdir, thereUid)).toBeDefined();
      const stored = await server.get(`${thereUid}.ics`);
      expect([200, 204]).toContain(await server.remove(`${thereUid}.ics`, stored.etag));
      await sync(vdir, 'sync a deletion there');
      expect(await localFile(vdir, thereUid)).toBeUndefined();
    },
  },
  {
    name: 'e. a change on both sides is a conflict, which "a wins" and "b wins" resolve',
    async run({ tag, pair, sync, server, localFile, step }) {
      const vdir = await pair();
      const uid = `e-${tag}`;
      const event = (summary: string) => calendar(BERLIN, zoned(uid, summary, '20251014T110000', '20251014T120000'));
      await vdir.write(`${uid}.ics`, event(`Original ${tag}`));
      await sync(vdir, 'sync up');
      const changeBoth = async (round: string) => {
        await vdir.write(`${uid}.ics`, event(`Here ${round} ${tag}`));
        const current = await server.get(`${uid}.ics`);
        expect(UPDATED).toContain(
          (await server.put(`${uid}.ics`, event(`There ${round} ${tag}`), { ifMatch: current.etag! })).status,
        );
      };

      await changeBoth('1');
      const conflicted = await step('sync a conflict', () => vdir.sync());
      expect(conflicted.code).not.toBe(0);
      expect(conflicted.stdout + conflicted.stderr).toMatch(/conflict/i);
      // Neither side was overwritten.
      expect(summaryOf((await server.get(`${uid}.ics`)).text)).toBe(`There 1 ${tag}`);
      expect(summaryOf((await localFile(vdir, uid))?.text ?? '')).toBe(`Here 1 ${tag}`);

      await vdir.setConflictResolution('a wins');
      await sync(vdir, 'sync with "a wins"');
      expect(summaryOf((await localFile(vdir, uid))?.text ?? '')).toBe(`There 1 ${tag}`);
      expect(summaryOf((await server.get(`${uid}.ics`)).text)).toBe(`There 1 ${tag}`);

      await changeBoth('2');
      await vdir.setConflictResolution('b wins');
      await sync(vdir, 'sync with "b wins"');
      expect(summaryOf((await server.get(`${uid}.ics`)).text)).toBe(`Here 2 ${tag}`);
      expect(summaryOf((await localFile(vdir, uid))?.text ?? '')).toBe(`Here 2 ${tag}`);
    },
  },
  {
    name: 'f. a recurring event with an exception and an override survives a round trip through the server',
    async run({ tag, pair, sync, server, localFile, khal }) {
      const vdir = await pair();
      const uid = `f-weekly-${tag}`;
      // Tuesdays 10:00 in Berlin across the switch to summer time (30 March): 18 March, 25 March
      // (excluded), 1 April (moved to Wednesday 15:00), 8 April.
      const ics = calendar(
        BERLIN,
        zoned(uid, `Weekly ${tag}`, '20250318T100000', '20250318T110000', [
          'RRULE:FREQ=WEEKLY;COUNT=4',
          'EXDATE;TZID=Europe/Berlin:20250325T100000',
        ]),
        zoned(uid, `Weekly moved ${tag}`, '20250402T150000', '20250402T160000', [
          'RECURRENCE-ID;TZID=Europe/Berlin:20250401T100000',
        ]),
      );
      await vdir.write(`${uid}.ics`, ics);
      await sync(vdir, 'sync up');
      const stored = await server.get(`${uid}.ics`);
      expect(stored.status).toBe(200);
      expect(stored.text.match(/^BEGIN:VEVENT\r?$/gm)).toHaveLength(2);

      const fresh = await pair();
      const down = await localFile(fresh, uid);
      expect(down?.text).toMatch(/^RRULE:FREQ=WEEKLY;COUNT=4\r?$/m);
      expect(down?.text).toMatch(/^EXDATE;TZID=Europe\/Berlin:20250325T100000\r?$/m);
      expect(down?.text).toMatch(/^RECURRENCE-ID;TZID=Europe\/Berlin:20250401T100000\r?$/m);
      expect(down?.text).toContain('BEGIN:VTIMEZONE');
      // In UTC: 09:00 in winter time, 08:00 in summer time; the override at 15:00 summer time is 13:00.
      expect(await khal(fresh, '2025-03-17', '2025-04-20')).toEqual([
        `2025-03-18 09:00 Weekly ${tag}`,
        `2025-04-02 13:00 Weekly moved ${tag}`,
        `2025-04-08 08:00 Weekly ${tag}`,
      ]);
    },
  },
  {
    name: 'g. a weekly series with one date cancelled there is here with that date cancelled, and khal says so',
    async run({ tag, target, pair, sync, server, localFile, khal, step }) {
      const vdir = await pair();
      const uid = `g-weekly-${tag}`;
      const title = `Choir ${tag}`;
      // Tuesdays 10:00 in Berlin (summer time, 08:00 UTC): 4, 11 and 18 May 2027; the 11th is cancelled.
      const ics = calendar(
        BERLIN,
        zoned(uid, title, '20270504T100000', '20270504T110000', ['RRULE:FREQ=WEEKLY;COUNT=3']),
      );
      expect((await server.put(`${uid}.ics`, ics, { ifNoneMatch: '*' })).status).toBe(201);
      await sync(vdir, 'sync the series down');
      await step('cancel one date there', () =>
        (target.cancelDate ?? cancelOverCaldav(server, uid))(title, '2027-05-11'),
      );
      await sync(vdir, 'sync the cancelled date down');

      const down = await localFile(vdir, uid);
      expect(down?.text).toMatch(/^RECURRENCE-ID;TZID=Europe\/Berlin:20270511T100000\r?$/m);
      expect(down?.text.match(/^STATUS:CANCELLED\r?$/gm)).toHaveLength(1);
      expect(await khal(vdir, '2027-05-03', '2027-05-19', '{start} {cancelled}{title}')).toEqual([
        `2027-05-04 08:00 ${title}`,
        `2027-05-11 08:00 CANCELLED ${title}`,
        `2027-05-18 08:00 ${title}`,
      ]);
    },
  },
];

/**
 * A date cancelled as a CalDAV client cancels it: the series' resource put back with an override of
 * that date (RECURRENCE-ID) that says STATUS:CANCELLED, as calendar apps write one.
 */
function cancelOverCaldav(server: ReturnType<typeof serverSide>, uid: string) {
  return async (title: string, day: string) => {
    const stored = await server.get(`${uid}.ics`);
    const local = `${day.replace(/-/g, '')}T100000`;
    const override = zoned(uid, title, local, local.replace('T10', 'T11'), [
      `RECURRENCE-ID;TZID=Europe/Berlin:${local}`,
      'STATUS:CANCELLED',
    ]);
    const text = stored.text.replace(/END:VCALENDAR\r?\n?$/, `${override.join('\r\n')}\r\nEND:VCALENDAR\r\n`);
    expect(UPDATED).toContain((await server.put(`${uid}.ics`, text, { ifMatch: stored.etag! })).status);
  };
}
