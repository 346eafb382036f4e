// CalDAV writes against the other doors, on both databases (docs/caldav.md, docs/decisions.md
// "CalDAV"): a UID is one event's (the site's own form is the site's, an imported item's identity
// is its source's, so no door takes over another account's event), the lines kept for an event's
// editor are shown to its editors only, at every CalDAV read, and a PUT that carries more than a
// resource may hold is refused up front, naming the limit. The limits are set low here
// (CALDAV_MAX_*), so that the refusals need small bodies.
import { expect, it } from 'vitest';
import type { Role } from '../../src/auth/roles.js';
import { describeEachDatabase, itOnPostgres } from '../setup/each-database.js';
import { importCalendarAs } from '../setup/importing.js';
import type { TestServer } from '../setup/server.js';

const ALL = '/caldav/calendars/events/';

async function dav(s: TestServer, method: string, path: string, as: Role | null, body?: string) {
  const headers: Record<string, string> = {};
  if (as) {
    const user = s.users[as];
    headers.authorization = `Basic ${Buffer.from(`${user.login}:${user.appPassword}`).toString('base64')}`;
  }
  if (body !== undefined) headers['content-type'] = method === 'PUT' ? 'text/calendar' : 'application/xml';
  const response = await fetch(`${s.origin}${path}`, { method, headers, body });
  return { status: response.status, etag: response.headers.get('etag'), text: await response.text() };
}

let n = 0;
const uid = () => `identity-${process.pid}-${++n}@example.org`;

const calendar = (...events: string[][]) =>
  ['BEGIN:VCALENDAR', 'VERSION:2.0', 'PRODID:-//tests//EN', ...events.flat(), 'END:VCALENDAR', ''].join('\r\n');

const vevent = (id: string, summary: string, extra: string[] = []) => [
  'BEGIN:VEVENT',
  `UID:${id}`,
  'DTSTAMP:20260101T000000Z',
  'DTSTART:20440601T180000Z',
  'DTEND:20440601T200000Z',
  `SUMMARY:${summary}`,
  ...extra,
  'END:VEVENT',
];

/** A daily series with `changed` of its occurrences changed (RECURRENCE-IDs). */
function series(id: string, changed: number) {
  const day = (i: number) => `202406${String(i + 1).padStart(2, '0')}`;
  const overrides = Array.from({ length: changed }, (_, i) => [
    'BEGIN:VEVENT',
    `UID:${id}`,
    'DTSTAMP:20260101T000000Z',
    `RECURRENCE-ID:${day(i)}T180000Z`,
    `DTSTART:${day(i)}T190000Z`,
    `DTEND:${day(i)}T200000Z`,
    `SUMMARY:Moved ${i}`,
    'END:VEVENT',
  ]);
  return calendar(
    ['BEGIN:VEVENT', `UID:${id}`, 'DTSTAMP:20260101T000000Z', 'DTSTART:20240601T180000Z', 'DTEND:20240601T190000Z'],
    ['SUMMARY:Daily', 'RRULE:FREQ=DAILY;COUNT=20', 'END:VEVENT'],
    ...overrides,
  );
}

/** The UIDs of a calendar's VEVENTs, in order. */
const uidsOf = (text: string) => [...text.matchAll(/^UID:(.*)\r$/gm)].map((m) => m[1]);

describeEachDatabase(
  'CalDAV identities, kept lines and limits',
  (s, kind) => {
    const importFeed = (text: string) => importCalendarAs(s, 'administrator', text);
    const idOf = async (title: string) => (await s.db.prisma.event.findFirstOrThrow({ where: { title } })).id;
    const feedUids = async () => uidsOf((await s.get('/events.ics?start_date=2044-01-01&end_date=2044-12-31')).text);

    it("refuses a new resource with a UID of the site's own form, so the next event keeps its UID alone", async () => {
      const before = (
        await s.post('/events', { title: 'Before', start_date: '2044-06-01 09:00:00', end_date: '2044-06-01 10:00:00' })
      ).body;
      const [host] = String(before.global_id).split('?');
      const next = `${host}?id=${Number(before.id) + 1}`;
      const squat = await dav(s, 'PUT', `${ALL}squat.ics`, 'author', calendar(vevent(next, 'Squatter')));
      expect(squat.status).toBe(403);
      expect(squat.text).toContain('<c:valid-calendar-object-resource/>');
      expect(squat.text).toContain("site's own");

      const made = (
        await s.post('/events', {
          title: 'Official',
          start_date: '2044-06-02 09:00:00',
          end_date: '2044-06-02 10:00:00',
        })
      ).body;
      expect(made.global_id).toBe(next);
      const uids = await feedUids();
      expect(uids.filter((u) => u === next)).toHaveLength(1);
      expect(new Set(uids).size).toBe(uids.length);
      // Its editor's client writes it back under its UID.
      const path = `${ALL}${made.id}.ics`;
      const served = await dav(s, 'GET', path, 'administrator');
      const put = await dav(
        s,
        'PUT',
        path,
        'administrator',
        served.text.replace('SUMMARY:Official', 'SUMMARY:Renamed'),
      );
      expect(put.status).toBe(204);
      expect((await s.get(`/events/${made.id}`)).body.title).toBe('Renamed');
    });

    it("keeps an import's items apart from a CalDAV client's of the same UID, in both orders", async () => {
      // A contributor's client takes the feed's UID first.
      const taken = uid();
      const put = await dav(s, 'PUT', `${ALL}mine.ics`, 'contributor', calendar(vevent(taken, 'Mine')));
      expect(put.status).toBe(201);
      const mine = { id: (await s.db.prisma.davObject.findFirstOrThrow({ where: { name: 'mine.ics' } })).eventId };
      await s.post(`/events/${mine.id}`, { description: '<p>My <b>own</b> words</p>' });

      const imported = await importFeed(calendar(vevent(taken, 'Official concert')));
      expect(imported.counts.event.created).toBe(1);
      const after = (await s.get(`/events/${mine.id}`)).body;
      expect([after.title, after.status, after.author, after.description]).toEqual([
        'Mine',
        'pending',
        String(s.users.contributor.id),
        '<p>My <b>own</b> words</p>',
      ]);
      const official = (await s.get(`/events/${await idOf('Official concert')}`)).body;
      expect([official.status, official.author]).toEqual(['publish', String(s.users.administrator.id)]);
      // The feed's UIDs stay one per event: the client's resource keeps the UID it wrote.
      const uids = await feedUids();
      expect(new Set(uids).size).toBe(uids.length);
      expect((await dav(s, 'GET', `${ALL}mine.ics`, 'contributor')).text).toContain(`UID:${taken}\r\n`);
      // The next run updates its own event only.
      await importFeed(calendar(vevent(taken, 'Official concert, moved')));
      expect((await s.get(`/events/${official.id}`)).body.title).toBe('Official concert, moved');
      expect((await s.get(`/events/${mine.id}`)).body.title).toBe('Mine');

      // The other order: an imported UID is not a way into the imported event.
      const feed = uid();
      await importFeed(calendar(vevent(feed, 'Imported first')));
      const first = { id: await idOf('Imported first') };
      const squat = await dav(s, 'PUT', `${ALL}squat-${n}.ics`, 'author', calendar(vevent(feed, 'Squatted')));
      expect(squat.status).toBe(409);
      expect(squat.text).toContain('<c:no-uid-conflict/>');
      const byName = await dav(s, 'PUT', `${ALL}${first.id}.ics`, 'author', calendar(vevent(feed, 'Squatted')));
      expect(byName.status).toBe(403);
      expect((await s.get(`/events/${first.id}`)).body.title).toBe('Imported first');
    });

    itOnPostgres(
      kind,
      'gives a UID to one event when an import and a client write it at once',
      'writers run one at a time on one connection',
      async () => {
        for (let round = 0; round < 12; round++) {
          const id = uid();
          const [put] = await Promise.all([
            dav(s, 'PUT', `${ALL}race-${n}.ics`, 'author', calendar(vevent(id, `Race client ${n}`))),
            importFeed(calendar(vevent(id, `Race import ${n}`))),
          ]);
          expect([201, 409]).toContain(put.status);
          const exported = await s.db.prisma.$queryRaw<{ count: bigint }[]>`
            SELECT count(*) FROM imported_items WHERE kind = 'event' AND exported AND external_id = ${id}`;
          expect(Number(exported[0].count)).toBe(1);
        }
        const uids = await feedUids();
        expect(new Set(uids).size).toBe(uids.length);
      },
    );

    it('refuses a UID whose keys would not fit, at both doors, without a 5xx', async () => {
      // 990 characters fit a UID; with `#` and a RECURRENCE-ID they would not fit its occurrence's key.
      const long = 'u'.repeat(990);
      const put = await dav(s, 'PUT', `${ALL}long-uid.ics`, 'author', series(long, 1));
      expect(put.status).toBe(403);
      expect(put.text).toContain('<c:valid-calendar-data/>');
      expect(put.text).toMatch(/UID is longer than 900 characters/);

      const summary = await importFeed(calendar(vevent('v'.repeat(1200), 'Too long an ID'), vevent(uid(), 'Next one')));
      expect(summary.counts.event).toMatchObject({ created: 1, skipped: 1 });
      expect(summary.skipped[0].reason).toMatch(/longer than 1,000 characters/);
    });

    it('shows the lines kept for an editor to those who may edit the event, at every CalDAV read', async () => {
      const id = uid();
      const kept = [
        'ATTENDEE;CN=Jane Private:mailto:jane.private@example.com',
        'X-PRIVATE-NOTE:door code 4711',
        'BEGIN:VALARM',
        'ACTION:DISPLAY',
        'TRIGGER:-PT15M',
        'DESCRIPTION:Reminder',
        'END:VALARM',
      ];
      const path = `${ALL}kept-${n}.ics`;
      expect((await dav(s, 'PUT', path, 'author', calendar(vevent(id, 'Kept lines', kept)))).status).toBe(201);
      const secret = /jane\.private|door code|VALARM/;

      const own = await dav(s, 'GET', path, 'author');
      expect(own.text).toMatch(secret);
      expect((await dav(s, 'GET', path, 'editor')).text).toMatch(secret);
      const readers: (Role | null)[] = [null, 'subscriber', 'contributor'];
      for (const as of readers) {
        const got = await dav(s, 'GET', path, as);
        expect(got.status, String(as)).toBe(200);
        expect(got.text, String(as)).toContain('SUMMARY:Kept lines');
        expect(got.text, String(as)).not.toMatch(secret);
        expect(got.etag, String(as)).not.toBe(own.etag);
      }
      const report = (body: string) => dav(s, 'REPORT', ALL, null, body);
      const multiget = await report(
        `<c:calendar-multiget xmlns:d="DAV:" xmlns:c="urn:ietf:params:xml:ns:caldav"><d:prop><d:getetag/><c:calendar-data/></d:prop><d:href>${path}</d:href></c:calendar-multiget>`,
      );
      const query = await report(`<c:calendar-query xmlns:d="DAV:" xmlns:c="urn:ietf:params:xml:ns:caldav">
        <d:prop><d:getetag/><c:calendar-data/></d:prop>
        <c:filter><c:comp-filter name="VCALENDAR"><c:comp-filter name="VEVENT"><c:time-range start="20440601T000000Z" end="20440602T000000Z"/></c:comp-filter></c:comp-filter></c:filter>
      </c:calendar-query>`);
      const sync = await report(
        `<d:sync-collection xmlns:d="DAV:" xmlns:c="urn:ietf:params:xml:ns:caldav"><d:sync-token/><d:sync-level>1</d:sync-level><d:prop><d:getetag/><c:calendar-data/></d:prop></d:sync-collection>`,
      );
      for (const answer of [multiget, query, sync]) {
        expect(answer.status).toBe(207);
        expect(answer.text).toContain('SUMMARY:Kept lines');
        expect(answer.text).not.toMatch(secret);
      }
      const event = { id: await idOf('Kept lines') };
      expect((await s.get(`/events/${event.id}.ics`, { as: null })).text).not.toMatch(secret);

      // A contributor edits, and so sees, its event while it is unpublished only.
      const pending = `${ALL}kept-pending-${n}.ics`;
      const note = calendar(vevent(uid(), 'Kept pending', ['X-PRIVATE-NOTE:door code 4711']));
      expect((await dav(s, 'PUT', pending, 'contributor', note)).status).toBe(201);
      expect((await dav(s, 'GET', pending, 'contributor')).text).toMatch(secret);
      await s.post(`/events/${await idOf('Kept pending')}`, { status: 'publish' });
      expect((await dav(s, 'GET', pending, 'contributor')).text).not.toMatch(secret);
      expect((await dav(s, 'GET', pending, 'editor')).text).toMatch(secret);
    });

    it('refuses a PUT that carries more than a resource may hold, up front, naming the limit', async () => {
      const refused = async (body: string, limit: RegExp) => {
        const id = /UID:(.*)\r/.exec(body)?.[1] ?? '';
        const put = await dav(s, 'PUT', `${ALL}big-${n}-${Math.random()}.ics`, 'author', body);
        expect(put.status).toBe(403);
        expect(put.text).toContain('<c:max-resource-size/>');
        expect(put.text).toMatch(limit);
        const stored = await s.db.prisma.importedItem.count({ where: { externalId: { startsWith: id } } });
        expect(stored).toBe(0);
      };
      await refused(series(uid(), 4), /at most 3 changed occurrences \(CALDAV_MAX_OVERRIDES\)/);
      const lines = Array.from({ length: 21 }, (_, i) => `X-NOTE-${i}:${i}`);
      await refused(calendar(vevent(uid(), 'Many lines', lines)), /at most 20 kept lines \(CALDAV_MAX_KEPT_LINES\)/);
      const long = [`X-LONG:${'x'.repeat(3000)}`];
      await refused(calendar(vevent(uid(), 'Long line', long)), /at most 2 KB of kept lines \(CALDAV_MAX_KEPT_KB\)/);
      // At the limits, taken.
      expect((await dav(s, 'PUT', `${ALL}fits-${n}.ics`, 'author', series(uid(), 3))).status).toBe(201);
      const fit = calendar(vevent(uid(), 'Fits', lines.slice(1)));
      expect((await dav(s, 'PUT', `${ALL}fits-${n}-lines.ics`, 'author', fit)).status).toBe(201);
    });

    it('refuses a PUT that names more venues, organizers and categories than a resource may, before making any', async () => {
      const named = (categories: string[]) => [
        `CATEGORIES:${categories.join(',')}`,
        'LOCATION:Names Hall',
        'ORGANIZER;CN=Names Organizer:mailto:names@example.org',
      ];
      // Seven distinct names across the series and its changed occurrence, one of them twice.
      const master = vevent(uid(), 'Many names', ['RRULE:FREQ=DAILY;COUNT=3', ...named(['Names A', 'Names B'])]);
      const id = /UID:(.*)/.exec(master[1])?.[1] ?? '';
      const override = [
        'BEGIN:VEVENT',
        `UID:${id}`,
        'DTSTAMP:20260101T000000Z',
        'RECURRENCE-ID:20440602T180000Z',
        'DTSTART:20440602T190000Z',
        'DTEND:20440602T200000Z',
        'SUMMARY:Moved',
        'CATEGORIES:names a,Names C,Names D',
        'LOCATION:Names Annex',
        'END:VEVENT',
      ];
      const put = await dav(s, 'PUT', `${ALL}names-${n}.ics`, 'author', calendar(master, override));
      expect(put.status).toBe(403);
      expect(put.text).toContain('<c:max-resource-size/>');
      expect(put.text).toMatch(
        /at most 6 venues, organizers and categories by name \(CALDAV_MAX_NAMES\); this one has 7/,
      );
      expect(await s.db.prisma.term.count({ where: { name: { startsWith: 'Names ' } } })).toBe(0);
      expect(await s.db.prisma.venue.count({ where: { name: { startsWith: 'Names ' } } })).toBe(0);
      // Six are taken.
      const fits = calendar(
        master,
        override.filter((line) => !line.startsWith('LOCATION')),
      );
      expect((await dav(s, 'PUT', `${ALL}names-${n}.ics`, 'author', fits)).status).toBe(201);
    });

    it('refuses a PUT whose VTIMEZONE repeats more often than a zone does, before reading it', async () => {
      const id = uid();
      // ical.js would make each hour's change to 2032, five years past the event: some 26,000.
      const zone = ['BEGIN:VTIMEZONE', 'TZID:Custom/Zone', 'BEGIN:STANDARD', 'DTSTART:20300101T000000'].concat([
        'RRULE:FREQ=HOURLY',
        'TZOFFSETFROM:+0100',
        'TZOFFSETTO:+0100',
        'END:STANDARD',
        'END:VTIMEZONE',
      ]);
      const event = vevent(id, 'Zoned').map((line) =>
        line.replace(/^(DTSTART|DTEND):/, '$1;TZID=Custom/Zone:').replace(/Z$/, ''),
      );
      const put = await dav(s, 'PUT', `${ALL}zoned-${n}.ics`, 'author', calendar(zone, event));
      expect(put.status).toBe(403);
      expect(put.text).toContain('<c:valid-calendar-data/>');
      expect(put.text).toContain("repeats HOURLY: a zone's rules repeat YEARLY or MONTHLY");
      expect(await s.db.prisma.importedItem.count({ where: { externalId: id } })).toBe(0);
    });
  },
  { env: { CALDAV_MAX_OVERRIDES: '3', CALDAV_MAX_KEPT_LINES: '20', CALDAV_MAX_KEPT_KB: '2', CALDAV_MAX_NAMES: '6' } },
);
