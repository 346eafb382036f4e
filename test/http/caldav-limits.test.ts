// What one CalDAV read may make the service produce, whoever asks (src/caldav/answer.ts,
// docs/caldav.md "Limits"), on both databases, with the limits made small through configuration so
// that the fixtures stay a few kilobytes: a resource named by many hrefs is answered once, hrefs
// past the limit and answers past their responses or bytes are refused with a precondition before
// anything is sent, a streamed answer past its bytes ends with a 507 for the request, and an
// expansion cannot copy a resource past the answer's bytes.
import { connect } from 'node:net';
import { expect, it } from 'vitest';
import type { Role } from '../../src/auth/roles.js';
import { describeEachDatabase } from '../setup/each-database.js';
import { vcalendar } from '../setup/importing.js';
import type { TestServer } from '../setup/server.js';

const MAX_HREFS = 50;
const MAX_RESPONSES = 10;
const MAX_KB = 64;

/**
 * A CalDAV request, by default as the author of the resources: kept lines, which make their size,
 * are shown to those who may edit the event (services/calendar-objects/read.ts keptLinesFor), and the limits hold whoever asks.
 */
async function dav(s: TestServer, method: string, path: string, body?: string, as: Role | null = 'author') {
  const headers: Record<string, string> = { depth: '1' };
  if (as) {
    const user = s.users[as];
    headers.authorization = `Basic ${Buffer.from(`${user.login}:${user.appPassword}`).toString('base64')}`;
  }
  if (body !== undefined)
    headers['content-type'] = method === 'PUT' ? 'text/calendar; charset=utf-8' : 'application/xml; charset=utf-8';
  const response = await fetch(`${s.origin}${path}`, { method, headers, body });
  const bytes = Buffer.from(await response.arrayBuffer());
  return { status: response.status, headers: response.headers, text: bytes.toString('utf8'), bytes: bytes.length };
}

const ALL = '/caldav/calendars/events/';

/** A resource of about `kb` KB: an event whose kept X- lines make its size. */
function resource(uid: string, kb: number, extra: string[] = []) {
  const lines = Array.from({ length: kb * 10 }, (_, i) => `X-FILLER-${i}:${'x'.repeat(86)}`);
  return vcalendar(uid, ['DTSTART:20440601T180000Z', 'DTEND:20440601T200000Z', `SUMMARY:${uid}`, ...extra, ...lines]);
}

const multiget = (hrefs: string[], prop = '<c:calendar-data/>') =>
  `<c:calendar-multiget xmlns:d="DAV:" xmlns:c="urn:ietf:params:xml:ns:caldav"><d:prop><d:getetag/>${prop}</d:prop>${hrefs.map((h) => `<d:href>${h}</d:href>`).join('')}</c:calendar-multiget>`;

const withData = `<d:propfind xmlns:d="DAV:" xmlns:c="urn:ietf:params:xml:ns:caldav"><d:prop><d:getetag/><c:calendar-data/></d:prop></d:propfind>`;

const responses = (xml: string) => [...xml.matchAll(/<d:response>.*?<\/d:response>/gs)].map((m) => m[0]);

describeEachDatabase(
  'CalDAV answers within their limits',
  (s) => {
    it('answers a resource named by many hrefs once, under the first of them, within a small answer', async () => {
      expect((await dav(s, 'PUT', `${ALL}big.ics`, resource('limits-big', 20), 'author')).status).toBe(201);
      const hrefs = [
        ...Array.from({ length: 40 }, (_, i) => `${ALL}big.ics?${i}`),
        `${ALL}%62ig.ics`,
        `${ALL}./big.ics`,
        `${s.origin}${ALL}big.ics`,
        `${ALL}none.ics`,
        `${ALL}none.ics?again`,
      ];
      const answer = await dav(s, 'REPORT', ALL, multiget(hrefs));
      expect(answer.status).toBe(207);
      const found = responses(answer.text);
      expect(found).toHaveLength(2);
      expect(found[0]).toContain(`<d:href>${ALL}big.ics?0</d:href>`);
      expect(found[0]).toContain('X-FILLER-199');
      expect(found[1]).toContain(`<d:href>${ALL}none.ics</d:href>`);
      expect(found[1]).toContain('404');
      // One copy of the 20 KB text, not 43.
      expect(answer.bytes).toBeLessThan(30 * 1024);
    });

    it('refuses a multiget of more hrefs than it takes, with a precondition, even of one resource', async () => {
      const hrefs = Array.from({ length: MAX_HREFS + 1 }, (_, i) => `${ALL}big.ics?${i}`);
      const refused = await dav(s, 'REPORT', ALL, multiget(hrefs, ''));
      expect(refused.status).toBe(403);
      expect(refused.text).toContain('<d:number-of-matches-within-limits/>');
      expect(refused.text).toContain(`at most ${MAX_HREFS} hrefs`);
      expect((await dav(s, 'REPORT', ALL, multiget(hrefs.slice(1), ''))).status).toBe(207);
    });

    it('refuses an answer that would pass its bytes before sending any of it, and a GET of such a resource', async () => {
      expect((await dav(s, 'PUT', `${ALL}huge.ics`, resource('limits-huge', MAX_KB + 6), 'author')).status).toBe(201);
      const get = await dav(s, 'GET', `${ALL}huge.ics`);
      expect(get.status).toBe(403);
      expect(get.text).toContain('<d:number-of-matches-within-limits/>');
      const answer = await dav(s, 'REPORT', ALL, multiget([`${ALL}huge.ics`]));
      expect(answer.status).toBe(403);
      expect(answer.text).toContain(`${MAX_KB} KB`);
      // Its ETag alone fits.
      expect((await dav(s, 'REPORT', ALL, multiget([`${ALL}huge.ics`], ''))).status).toBe(207);
    });

    it('ends a streamed answer that reaches its bytes, texts read counted, with a 507 for the request, never past them', async () => {
      expect((await s.post('/categories', { name: 'Heavy' })).status).toBe(201);
      const heavy = '/caldav/calendars/category-heavy/';
      for (const i of [1, 2, 3, 4])
        expect((await dav(s, 'PUT', `${heavy}h${i}.ics`, resource(`limits-heavy-${i}`, 20), 'author')).status).toBe(
          201,
        );
      const listing = await dav(s, 'PROPFIND', heavy, withData);
      expect(listing.status).toBe(207);
      expect(listing.bytes).toBeLessThanOrEqual(MAX_KB * 1024);
      const found = responses(listing.text);
      const cut = found.at(-1) ?? '';
      expect(cut).toContain(`<d:href>${heavy}</d:href>`);
      expect(cut).toContain('HTTP/1.1 507 Insufficient Storage');
      expect(cut).toContain('<d:number-of-matches-within-limits/>');
      // The collection and two of the four resources fitted; the answer is whole XML.
      expect(found.filter((r) => r.includes('X-FILLER-199'))).toHaveLength(2);
      expect(listing.text.endsWith('</d:multistatus>')).toBe(true);
      // Texts read for what is drawn from them (allprop's getcontentlength) count as if written.
      const all = await dav(s, 'PROPFIND', heavy, '<d:propfind xmlns:d="DAV:"><d:allprop/></d:propfind>');
      expect(all.status).toBe(207);
      expect(responses(all.text).at(-1)).toContain('HTTP/1.1 507 Insufficient Storage');
      expect(responses(all.text).filter((r) => r.includes('getcontentlength')).length).toBeLessThan(4);
      // Cut short, a sync gives back no token that would skip what it left out.
      const sync = await dav(
        s,
        'REPORT',
        heavy,
        '<d:sync-collection xmlns:d="DAV:" xmlns:c="urn:ietf:params:xml:ns:caldav"><d:sync-token/><d:prop><c:calendar-data/></d:prop></d:sync-collection>',
      );
      expect(sync.status).toBe(207);
      expect(sync.text).toContain('HTTP/1.1 507 Insufficient Storage');
      expect(sync.text).not.toContain('<d:sync-token>');
    });

    it("refuses more responses than an answer holds before reading them, in a listing, a query and a sync, counting the collection's own", async () => {
      expect((await s.post('/categories', { name: 'Many' })).status).toBe(201);
      const many = '/caldav/calendars/category-many/';
      for (let i = 0; i < MAX_RESPONSES + 1; i++)
        expect((await dav(s, 'PUT', `${many}m${i}.ics`, resource(`limits-many-${i}`, 0), 'author')).status).toBe(201);
      const query =
        '<c:calendar-query xmlns:d="DAV:" xmlns:c="urn:ietf:params:xml:ns:caldav"><d:prop><d:getetag/></d:prop><c:filter><c:comp-filter name="VCALENDAR"><c:comp-filter name="VEVENT"/></c:comp-filter></c:filter></c:calendar-query>';
      const sync = '<d:sync-collection xmlns:d="DAV:"><d:sync-token/><d:prop><d:getetag/></d:prop></d:sync-collection>';
      for (const [method, body] of [
        ['PROPFIND', withData],
        ['REPORT', query],
        ['REPORT', sync],
      ]) {
        const refused = await dav(s, method, many, body);
        expect(refused.status, body).toBe(403);
        expect(refused.text).toContain('<d:number-of-matches-within-limits/>');
      }
      // Only a collection's own resources count: the events of the whole calendar in the range are more.
      const inRange = query.replace(
        '<c:comp-filter name="VEVENT"/>',
        '<c:comp-filter name="VEVENT"><c:time-range start="20440601T000000Z" end="20440602T000000Z"/></c:comp-filter>',
      );
      const heavy = await dav(s, 'REPORT', '/caldav/calendars/category-heavy/', inRange);
      expect(heavy.status).toBe(207);
      expect(responses(heavy.text)).toHaveLength(4);
    });

    it('expands a series only as far as the answer has room for its copies', async () => {
      const series = resource('limits-daily', 2, ['RRULE:FREQ=DAILY;COUNT=400']);
      expect((await dav(s, 'PUT', `${ALL}daily.ics`, series, 'author')).status).toBe(201);
      const expanded = (start: string, end: string) =>
        multiget([`${ALL}daily.ics`], `<c:calendar-data><c:expand start="${start}" end="${end}"/></c:calendar-data>`);
      const week = await dav(s, 'REPORT', ALL, expanded('20440601T000000Z', '20440608T000000Z'));
      expect(week.status).toBe(207);
      expect(week.text.match(/RECURRENCE-ID:/g)).toHaveLength(7);
      // A year of 2 KB copies is 730 KB: refused, not built.
      const year = await dav(s, 'REPORT', ALL, expanded('20440601T000000Z', '20450601T000000Z'));
      expect(year.status).toBe(403);
      expect(year.text).toContain('<d:number-of-matches-within-limits/>');
      expect(year.bytes).toBeLessThan(2048);
    });

    it('answers a property asked many times once, and refuses more distinct properties than a request may name', async () => {
      expect((await dav(s, 'PUT', `${ALL}twice.ics`, resource('limits-twice', 4), 'author')).status).toBe(201);
      // 30 copies of a 4 KB text would pass the answer's 64 KB.
      const repeated = `<d:propfind xmlns:d="DAV:" xmlns:c="urn:ietf:params:xml:ns:caldav"><d:prop>${'<c:calendar-data/><d:getetag/>'.repeat(30)}</d:prop></d:propfind>`;
      const once = await dav(s, 'PROPFIND', `${ALL}twice.ics`, repeated);
      expect(once.status).toBe(207);
      expect(once.text.match(/<c:calendar-data>/g)).toHaveLength(1);
      expect(once.text.match(/<d:getetag>/g)).toHaveLength(1);
      const props = (n: number) =>
        `<d:propfind xmlns:d="DAV:" xmlns:x="urn:x"><d:prop>${Array.from({ length: n }, (_, i) => `<x:p${i}/>`).join('')}</d:prop></d:propfind>`;
      expect((await dav(s, 'PROPFIND', `${ALL}twice.ics`, props(100), null)).status).toBe(207);
      const refused = await dav(s, 'PROPFIND', `${ALL}twice.ics`, props(101), null);
      expect(refused.status).toBe(403);
      expect(refused.text).toContain('<d:number-of-matches-within-limits/>');
      expect(refused.text).toContain('at most 100 distinct properties');
    });

    it('refuses a time range outside the years 0001 to 9999 with 400 in the DAV shape', async () => {
      const query = (start: string, end: string) =>
        `<c:calendar-query xmlns:d="DAV:" xmlns:c="urn:ietf:params:xml:ns:caldav"><d:prop><d:getetag/></d:prop><c:filter><c:comp-filter name="VCALENDAR"><c:comp-filter name="VEVENT"><c:time-range start="${start}" end="${end}"/></c:comp-filter></c:comp-filter></c:filter></c:calendar-query>`;
      for (const [start, end] of [
        ['00000101T000000Z', '00010101T000000Z'],
        ['00001231T000000Z', '20260101T000000Z'],
      ]) {
        const refused = await dav(s, 'REPORT', ALL, query(start, end), null);
        expect(refused.status, start).toBe(400);
        expect(refused.text).toContain('<c:valid-filter/>');
        expect(refused.text).toContain('in the years 1 to 9999');
      }
      // The first and the last years are there to ask about.
      for (const [start, end] of [
        ['00010101T000000Z', '00020101T000000Z'],
        ['99990101T000000Z', '99991231T235959Z'],
      ])
        expect((await dav(s, 'REPORT', ALL, query(start, end), null)).status, start).toBe(207);
    });
  },
  {
    env: {
      CALDAV_MAX_HREFS: String(MAX_HREFS),
      CALDAV_MAX_RESPONSES: String(MAX_RESPONSES),
      CALDAV_MAX_ANSWER_KB: String(MAX_KB),
      CALDAV_BIG_ANSWER_KB: '8',
    },
  },
);

describeEachDatabase(
  "CalDAV's big answers, a caller's few at once",
  (s) => {
    /** A REPORT whose client reads its answer's first bytes and then nothing more, which holds the answer open. */
    function held(path: string, body: string): Promise<{ head: string; close: () => void }> {
      const user = s.users.author;
      const { hostname, port } = new URL(s.origin);
      return new Promise((resolve, reject) => {
        const socket = connect(Number(port), hostname, () => {
          socket.write(
            [
              `REPORT ${path} HTTP/1.1`,
              `Host: ${hostname}:${port}`,
              'Depth: 1',
              'Content-Type: application/xml; charset=utf-8',
              `Authorization: Basic ${Buffer.from(`${user.login}:${user.appPassword}`).toString('base64')}`,
              `Content-Length: ${Buffer.byteLength(body)}`,
              '',
              body,
            ].join('\r\n'),
          );
        });
        socket.once('data', (first: Buffer) => {
          socket.pause();
          resolve({ head: first.toString('latin1', 0, 200), close: () => socket.destroy() });
        });
        socket.on('error', reject);
      });
    }

    it("refuses a caller's expansion at once while its big answers are being sent, and takes it once one has ended", async () => {
      // 300 copies of a 20 KB occurrence: an answer of 7 MB, more than the sockets between a
      // client that does not read and the service take (some 4 MB), is held open.
      const series = resource('big-daily', 20, ['RRULE:FREQ=DAILY;COUNT=300']);
      expect((await dav(s, 'PUT', `${ALL}big-daily.ics`, series, 'author')).status).toBe(201);
      const small = resource('small-daily', 0, ['RRULE:FREQ=DAILY;COUNT=10']);
      expect((await dav(s, 'PUT', `${ALL}small-daily.ics`, small, 'author')).status).toBe(201);
      const expanded = (name: string, end: string) =>
        multiget(
          [`${ALL}${name}`],
          `<c:calendar-data><c:expand start="20440601T000000Z" end="${end}"/></c:calendar-data>`,
        );
      const holder = await held(ALL, expanded('big-daily.ics', '20450601T000000Z'));
      try {
        expect(holder.head).toMatch(/^HTTP\/1.1 207 /);
        // Even a small expansion could have been a big one: refused before it is walked.
        const refused = await dav(s, 'REPORT', ALL, expanded('small-daily.ics', '20440603T000000Z'));
        expect(refused.status).toBe(429);
        expect(refused.headers.get('retry-after')).toBe('1');
        // What builds nothing big is not held up.
        expect((await dav(s, 'REPORT', ALL, multiget([`${ALL}small-daily.ics`]))).status).toBe(207);
      } finally {
        holder.close();
      }
      await expect
        .poll(async () => (await dav(s, 'REPORT', ALL, expanded('small-daily.ics', '20440603T000000Z'))).status)
        .toBe(207);
    });
  },
  {
    env: {
      CALDAV_MAX_ANSWER_KB: '16384',
      CALDAV_BIG_ANSWER_KB: '8',
      CALDAV_BIG_ANSWERS_PER_CALLER: '1',
      // The walk's clock is not what this tests: on a busy machine 300 copies can take longer than
      // the default 3 s of wall time (test/http/expansion-budget.test.ts tests that bound).
      RECURRENCE_EXPAND_MAX_MS: '60000',
    },
  },
);
