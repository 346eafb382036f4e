// CalDAV (src/caldav, docs/caldav.md) on both databases, spoken by hand: discovery, what each role
// reads and writes (the REST API's permissions), PUT and GET round trips, preconditions, UIDs,
// DELETE to the trash, sync-collection on the change feed, calendar-query with time ranges and
// expansion, multiget, hostile XML, and parallel writers of one resource.
import { createHash } from 'node:crypto';
import { expect, it } from 'vitest';
import { TEXT_VERSION } from '../../src/services/calendar-objects/read.js';
import type { Role } from '../../src/auth/roles.js';
import { describeEachDatabase, itOnPostgres } from '../setup/each-database.js';
import { pruneChanges } from '../../src/db/housekeeping.js';
import { driverOf, registerDriver } from '../../src/db/driver.js';
import { settled } from '../setup/feed.js';
import { receiver } from '../setup/receiver.js';
import { startTestWorker } from '../setup/webhook-worker.js';
import type { TestServer } from '../setup/server.js';

interface DavOptions {
  as?: Role | null;
  body?: string;
  headers?: Record<string, string>;
}

async function dav(s: TestServer, method: string, path: string, options: DavOptions = {}) {
  const role = options.as === undefined ? 'editor' : options.as;
  const headers: Record<string, string> = { ...options.headers };
  if (role) {
    const user = s.users[role];
    headers.authorization = `Basic ${Buffer.from(`${user.login}:${user.appPassword}`).toString('base64')}`;
  }
  if (options.body !== undefined && !headers['content-type'])
    headers['content-type'] = method === 'PUT' ? 'text/calendar; charset=utf-8' : 'application/xml; charset=utf-8';
  const response = await fetch(`${s.origin}${path}`, { method, headers, body: options.body, redirect: 'manual' });
  return { status: response.status, headers: response.headers, text: await response.text() };
}

const HOME = '/caldav/calendars/';
const ALL = `${HOME}events/`;

const propfind = (...props: string[]) =>
  `<?xml version="1.0"?><d:propfind xmlns:d="DAV:" xmlns:c="urn:ietf:params:xml:ns:caldav" xmlns:cs="http://calendarserver.org/ns/"><d:prop>${props.map((p) => `<${p}/>`).join('')}</d:prop></d:propfind>`;

const syncBody = (token: string) =>
  `<d:sync-collection xmlns:d="DAV:"><d:sync-token>${token}</d:sync-token><d:sync-level>1</d:sync-level><d:prop><d:getetag/></d:prop></d:sync-collection>`;

/** The hrefs of a multistatus, each with the status of its first propstat or its own. */
function responses(xml: string): Map<string, string> {
  const found = new Map<string, string>();
  for (const [, body] of xml.matchAll(/<d:response>(.*?)<\/d:response>/gs)) {
    const href = /<d:href>(.*?)<\/d:href>/s.exec(body)?.[1] ?? '';
    const status = /<d:status>HTTP\/1\.1 (\d{3})/.exec(body)?.[1] ?? '';
    found.set(decodeURIComponent(href), status);
  }
  return found;
}

const tokenOf = (xml: string) => /<d:sync-token>(.*?)<\/d:sync-token>/.exec(xml)?.[1] ?? '';

let n = 0;
const uid = () => `caldav-test-${process.pid}-${++n}`;

function vevent(id: string, fields: { summary?: string; start?: string; end?: string; extra?: string[] } = {}) {
  return [
    'BEGIN:VCALENDAR',
    'VERSION:2.0',
    'PRODID:-//tests//EN',
    'BEGIN:VEVENT',
    `UID:${id}`,
    'DTSTAMP:20260101T000000Z',
    `DTSTART:${fields.start ?? '20410601T180000Z'}`,
    `DTEND:${fields.end ?? '20410601T200000Z'}`,
    `SUMMARY:${fields.summary ?? 'From a calendar app'}`,
    ...(fields.extra ?? []),
    'END:VEVENT',
    'END:VCALENDAR',
    '',
  ].join('\r\n');
}

const restEvent = (title: string, extra: object = {}) => ({
  title,
  start_date: '2041-07-01 10:00:00',
  end_date: '2041-07-01 11:00:00',
  ...extra,
});

describeEachDatabase(
  'CalDAV',
  (s, kind) => {
    it('is found from /.well-known/caldav, the principal and its calendar home', async () => {
      const known = await dav(s, 'PROPFIND', '/.well-known/caldav', { as: null });
      expect(known.status).toBe(301);
      expect(known.headers.get('location')).toBe('/caldav/');

      const anonymous = await dav(s, 'PROPFIND', '/caldav/', { as: null, body: propfind('d:current-user-principal') });
      expect(anonymous.status).toBe(401);
      expect(anonymous.headers.get('www-authenticate')).toMatch(/^Basic realm=/);

      const root = await dav(s, 'PROPFIND', '/caldav/', {
        body: propfind('d:current-user-principal'),
        headers: { depth: '0' },
      });
      expect(root.status).toBe(207);
      expect(root.headers.get('dav')).toContain('calendar-access');
      expect(root.text).toContain('<d:current-user-principal><d:href>/caldav/principals/editor/</d:href>');

      const principal = await dav(s, 'PROPFIND', '/caldav/principals/editor/', {
        body: propfind('c:calendar-home-set', 'c:calendar-user-address-set'),
      });
      expect(principal.text).toContain(`<c:calendar-home-set><d:href>${HOME}</d:href>`);
      expect(principal.text).toContain('mailto:editor@example.org');
      // Another user's principal is not shown.
      expect((await dav(s, 'PROPFIND', '/caldav/principals/author/', { body: propfind('d:displayname') })).status).toBe(
        404,
      );

      await s.post('/categories', { name: 'Jazz nights' });
      const home = await dav(s, 'PROPFIND', HOME, {
        headers: { depth: '1' },
        body: propfind(
          'd:resourcetype',
          'd:displayname',
          'c:supported-calendar-component-set',
          'd:sync-token',
          'cs:getctag',
        ),
      });
      const listed = responses(home.text);
      expect([...listed.keys()]).toEqual(expect.arrayContaining([HOME, ALL, `${HOME}category-jazz-nights/`]));
      expect(home.text).toContain('<d:resourcetype><d:collection/><c:calendar/></d:resourcetype>');
      expect(home.text).toContain('<c:comp name="VEVENT"/>');
      expect(home.text).toMatch(/<d:sync-token>urn:calendar-events:sync:[\w-]{12}:\d+-\d+<\/d:sync-token>/);
      expect(home.text).toContain('Events: Jazz nights');
    });

    it('refuses wrong credentials with a challenge, and answers an unknown property 404 in its propstat', async () => {
      const wrong = await fetch(`${s.origin}${ALL}`, {
        method: 'PROPFIND',
        headers: { authorization: `Basic ${Buffer.from('editor:wrong').toString('base64')}` },
      });
      expect(wrong.status).toBe(401);
      expect(wrong.headers.get('www-authenticate')).toContain('Basic');
      const odd = await dav(s, 'PROPFIND', ALL, { body: propfind('d:quota-used-bytes', 'd:displayname') });
      expect(odd.text).toMatch(/<d:quota-used-bytes\/><\/d:prop><d:status>HTTP\/1\.1 404/);
    });

    it('shows each caller the events the REST API lets it read', async () => {
      const published = (await s.post('/events', restEvent('Public concert'))).body;
      const draft = (await s.post('/events', restEvent('Editor draft', { status: 'draft' }))).body;
      const own = (await s.post('/events', restEvent('Contributor draft'), { as: 'contributor' })).body;
      const hrefs = async (as: Role | null) =>
        responses((await dav(s, 'PROPFIND', ALL, { as, headers: { depth: '1' }, body: propfind('d:getetag') })).text);
      const anonymous = await hrefs(null);
      expect(anonymous.has(`${ALL}${published.id}.ics`)).toBe(true);
      expect(anonymous.has(`${ALL}${draft.id}.ics`)).toBe(false);
      expect(anonymous.has(`${ALL}${own.id}.ics`)).toBe(false);
      const contributor = await hrefs('contributor');
      expect(contributor.has(`${ALL}${own.id}.ics`)).toBe(true);
      expect(contributor.has(`${ALL}${draft.id}.ics`)).toBe(false);
      const editor = await hrefs('editor');
      expect(editor.has(`${ALL}${draft.id}.ics`)).toBe(true);
      // Nor by name, nor by multiget.
      expect((await dav(s, 'GET', `${ALL}${draft.id}.ics`, { as: 'subscriber' })).status).toBe(404);
      const multiget = await dav(s, 'REPORT', ALL, {
        as: null,
        body: `<c:calendar-multiget xmlns:d="DAV:" xmlns:c="urn:ietf:params:xml:ns:caldav"><d:prop><d:getetag/></d:prop><d:href>${ALL}${draft.id}.ics</d:href><d:href>${ALL}${published.id}.ics</d:href></c:calendar-multiget>`,
      });
      const got = responses(multiget.text);
      expect(got.get(`${ALL}${draft.id}.ics`)).toBe('404');
      expect(got.get(`${ALL}${published.id}.ics`)).toBe('200');
    });

    it('creates an event from a PUT through the API, maps its place and categories, and keeps what no field holds', async () => {
      const id = uid();
      const body = vevent(id, {
        summary: 'Choir rehearsal',
        extra: [
          'LOCATION:Town Hall',
          'CATEGORIES:Choir',
          'TRANSP:OPAQUE',
          'X-APPLE-TRAVEL-ADVISORY-BEHAVIOR:AUTOMATIC',
          'BEGIN:VALARM',
          'ACTION:DISPLAY',
          'TRIGGER:-PT15M',
          'DESCRIPTION:Reminder',
          'END:VALARM',
        ],
      });
      const put = await dav(s, 'PUT', `${ALL}${id}.ics`, { body, headers: { 'if-none-match': '*' } });
      expect(put.status).toBe(201);
      // Stored other than as sent, so without an ETag (RFC 9110 9.3.4).
      expect(put.headers.get('etag')).toBeNull();
      const got = await dav(s, 'GET', `${ALL}${id}.ics`);
      expect(got.status).toBe(200);
      expect(got.headers.get('etag')).toMatch(/^"[\w-]+"$/);
      expect(got.text).toContain(`UID:${id}\r\n`);
      expect(got.text).toContain('SUMMARY:Choir rehearsal');
      expect(got.text).toContain('LOCATION:Town Hall');
      expect(got.text).toContain('CATEGORIES:Choir');
      expect(got.text).toContain('X-APPLE-TRAVEL-ADVISORY-BEHAVIOR:AUTOMATIC');
      expect(got.text).toMatch(
        /BEGIN:VALARM\r\nACTION:DISPLAY\r\nTRIGGER:-PT15M\r\nDESCRIPTION:Reminder\r\nEND:VALARM\r\nEND:VEVENT/,
      );

      // In XML, iCalendar's CRLF keeps its CR as a reference: a reader turns a literal one into LF.
      const multiget = await dav(s, 'REPORT', ALL, {
        body: `<c:calendar-multiget xmlns:d="DAV:" xmlns:c="urn:ietf:params:xml:ns:caldav"><d:prop><c:calendar-data/></d:prop><d:href>${ALL}${id}.ics</d:href></c:calendar-multiget>`,
      });
      expect(multiget.text).toContain('SUMMARY:Choir rehearsal&#13;\n');
      const list = await s.get(`/events?search=Choir%20rehearsal&start_date=2041-01-01&end_date=2041-12-31`);
      const [event] = list.body.events;
      expect(event.venue.venue).toBe('Town Hall');
      expect(event.categories.map((c: { name: string }) => c.name)).toEqual(['Choir']);

      // A change through the API is a new ETag.
      await s.post(`/events/${event.id}`, { title: 'Choir rehearsal (moved)' });
      const after = await dav(s, 'GET', `${ALL}${id}.ics`);
      expect(after.headers.get('etag')).not.toBe(got.headers.get('etag'));
      expect(after.text).toContain('SUMMARY:Choir rehearsal (moved)');
    });

    it('honours If-Match and If-None-Match, and keeps a resource to its UID', async () => {
      const id = uid();
      const path = `${ALL}${id}.ics`;
      expect((await dav(s, 'PUT', path, { body: vevent(id), headers: { 'if-none-match': '*' } })).status).toBe(201);
      expect((await dav(s, 'PUT', path, { body: vevent(id), headers: { 'if-none-match': '*' } })).status).toBe(412);
      const etag = (await dav(s, 'GET', path)).headers.get('etag') ?? '';
      // If-None-Match compares weakly, If-Match strongly, as the REST API does (domain/entity-tags.ts).
      expect((await dav(s, 'GET', path, { headers: { 'if-none-match': `"other", W/${etag}` } })).status).toBe(304);
      expect((await dav(s, 'PUT', path, { body: vevent(id), headers: { 'if-none-match': `W/${etag}` } })).status).toBe(
        412,
      );
      expect(
        (await dav(s, 'PUT', path, { body: vevent(id, { summary: 'x' }), headers: { 'if-match': `W/${etag}` } }))
          .status,
      ).toBe(412);
      expect(
        (await dav(s, 'PUT', path, { body: vevent(id, { summary: 'x' }), headers: { 'if-match': '"stale"' } })).status,
      ).toBe(412);
      const changed = await dav(s, 'PUT', path, {
        body: vevent(id, { summary: 'Changed' }),
        headers: { 'if-match': etag },
      });
      expect(changed.status).toBe(204);
      expect((await dav(s, 'GET', path)).text).toContain('SUMMARY:Changed');

      // The same UID under another name, or another UID under this name: no-uid-conflict.
      const elsewhere = await dav(s, 'PUT', `${ALL}other-${id}.ics`, { body: vevent(id) });
      expect(elsewhere.status).toBe(409);
      expect(elsewhere.text).toContain('<c:no-uid-conflict/>');
      const renamed = await dav(s, 'PUT', path, { body: vevent(`${id}-renamed`) });
      expect(renamed.status).toBe(409);
      expect((await dav(s, 'GET', `${ALL}other-${id}.ics`)).status).toBe(404);
    });

    it('refuses what it cannot hold with a CalDAV precondition, writing nothing', async () => {
      const todo =
        'BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:x\r\nBEGIN:VTODO\r\nUID:t1\r\nSUMMARY:Task\r\nEND:VTODO\r\nEND:VCALENDAR\r\n';
      const refused = await dav(s, 'PUT', `${ALL}todo.ics`, { body: todo });
      expect(refused.status).toBe(403);
      expect(refused.text).toContain('<c:supported-calendar-component/>');

      const method = vevent(uid()).replace('PRODID:-//tests//EN', 'PRODID:-//tests//EN\r\nMETHOD:REQUEST');
      expect((await dav(s, 'PUT', `${ALL}method.ics`, { body: method })).text).toContain(
        '<c:valid-calendar-object-resource/>',
      );
      const two = vevent(uid()).replace(
        'END:VCALENDAR',
        vevent('another').split('VERSION:2.0\r\nPRODID:-//tests//EN\r\n')[1],
      );
      expect((await dav(s, 'PUT', `${ALL}two.ics`, { body: two })).status).toBe(403);
      const broken = await dav(s, 'PUT', `${ALL}broken.ics`, { body: 'BEGIN:VCALENDAR\r\nthis is no calendar' });
      expect(broken.status).toBe(403);
      expect(broken.text).toContain('<c:valid-calendar-data/>');
      // A DTEND before DTSTART would be dropped by a lenient import: refused instead.
      const id = uid();
      const backwards = await dav(s, 'PUT', `${ALL}${id}.ics`, { body: vevent(id, { end: '20410601T100000Z' }) });
      expect(backwards.status).toBe(403);
      expect(backwards.text).toContain('DTEND before DTSTART');
      expect(
        (await dav(s, 'PUT', `${ALL}json.ics`, { body: '{}', headers: { 'content-type': 'application/json' } })).status,
      ).toBe(415);
      for (const name of ['todo.ics', 'method.ics', 'two.ics', 'broken.ics', `${id}.ics`])
        expect((await dav(s, 'GET', `${ALL}${name}`)).status).toBe(404);
    });

    it('lets each role write as the API does', async () => {
      const anonymous = await dav(s, 'PUT', `${ALL}anon.ics`, { as: null, body: vevent(uid()) });
      expect(anonymous.status).toBe(401);
      expect(anonymous.headers.get('www-authenticate')).toMatch(/^Basic/);
      expect((await dav(s, 'PUT', `${ALL}subscriber.ics`, { as: 'subscriber', body: vevent(uid()) })).status).toBe(403);

      const id = uid();
      expect(
        (await dav(s, 'PUT', `${ALL}${id}.ics`, { as: 'contributor', body: vevent(id, { summary: 'Pending one' }) }))
          .status,
      ).toBe(201);
      const mine = await dav(s, 'GET', `${ALL}${id}.ics`, { as: 'contributor' });
      expect(mine.text).toContain('STATUS:TENTATIVE');
      expect((await dav(s, 'GET', `${ALL}${id}.ics`, { as: null })).status).toBe(404);
      // Not another's event.
      const editors = (await s.post('/events', restEvent('Editor event'))).body;
      const taken = await dav(s, 'PUT', `${ALL}${editors.id}.ics`, {
        as: 'author',
        body: vevent(`${new URL(s.origin).host}?id=${editors.id}`, { summary: 'Hijacked' }),
      });
      expect(taken.status).toBe(403);
      expect((await s.get(`/events/${editors.id}`)).body.title).toBe('Editor event');
    });

    it('never lets a name change hands while its event lives, nor a contributor make a category', async () => {
      const draft = (await s.post('/events', restEvent('Board meeting', { status: 'draft' }))).body;
      const id = uid();
      const hidden = await dav(s, 'PUT', `${ALL}${draft.id}.ics`, { as: 'contributor', body: vevent(id) });
      expect(hidden.status).toBe(403);
      expect((await s.get(`/events/${draft.id}`)).body.title).toBe('Board meeting');
      expect((await dav(s, 'GET', `${ALL}${draft.id}.ics`)).text).toContain('SUMMARY:Board meeting');
      // A published event outside a category's collection is not taken by a name in it either.
      const concert = (await s.post('/events', restEvent('Concert'))).body;
      await s.post('/categories', { name: 'Theatre' });
      const outside = await dav(s, 'PUT', `${HOME}category-theatre/${concert.id}.ics`, {
        as: 'contributor',
        body: vevent(uid()),
      });
      expect(outside.status).toBe(403);
      expect((await dav(s, 'GET', `${ALL}${concert.id}.ics`, { as: null })).status).toBe(200);
      // Numbered names are the service's own.
      expect((await dav(s, 'PUT', `${ALL}99999.ics`, { body: vevent(uid()) })).status).toBe(403);

      const newCategory = await dav(s, 'PUT', `${ALL}${id}.ics`, {
        as: 'contributor',
        body: vevent(id, { extra: ['CATEGORIES:Brand new category'] }),
      });
      expect(newCategory.status).toBe(403);
      const categories = await s.get('/categories?hide_empty=false&per_page=100');
      expect(categories.body.categories.map((c: { name: string }) => c.name)).not.toContain('Brand new category');
      expect(
        (
          await dav(s, 'PUT', `${ALL}${id}.ics`, {
            as: 'contributor',
            body: vevent(id, { extra: ['CATEGORIES:Theatre'] }),
          })
        ).status,
      ).toBe(201);
    });

    it('takes a series with a changed occurrence, and gives the occurrence back to the series when a PUT leaves it out', async () => {
      const id = uid();
      const path = `${ALL}${id}.ics`;
      const master = [
        'BEGIN:VEVENT',
        `UID:${id}`,
        'DTSTAMP:20260101T000000Z',
        'DTSTART:20450102T100000Z',
        'DTEND:20450102T110000Z',
        'SUMMARY:Yoga',
        'RRULE:FREQ=WEEKLY;COUNT=3',
        'END:VEVENT',
      ];
      const moved = [
        'BEGIN:VEVENT',
        `UID:${id}`,
        'DTSTAMP:20260101T000000Z',
        'RECURRENCE-ID:20450109T100000Z',
        'DTSTART:20450109T150000Z',
        'DTEND:20450109T160000Z',
        'SUMMARY:Yoga (afternoon)',
        'BEGIN:VALARM',
        'ACTION:DISPLAY',
        'TRIGGER:-PT5M',
        'DESCRIPTION:Soon',
        'END:VALARM',
        'END:VEVENT',
      ];
      const calendar = (...events: string[][]) =>
        ['BEGIN:VCALENDAR', 'VERSION:2.0', 'PRODID:-//tests//EN', ...events.flat(), 'END:VCALENDAR', ''].join('\r\n');
      expect((await dav(s, 'PUT', path, { body: calendar(master, moved) })).status).toBe(201);
      const both = (await dav(s, 'GET', path)).text;
      expect(both).toContain('RRULE:FREQ=WEEKLY;COUNT=3');
      expect(both).toMatch(/RECURRENCE-ID:20450109T100000Z\r\n(?:.*\r\n)*?END:VEVENT/);
      expect(both).toContain('SUMMARY:Yoga (afternoon)');
      expect(both).toContain('TRIGGER:-PT5M');
      const list = async () =>
        (await s.get('/events?start_date=2045-01-01&end_date=2045-01-31&search=Yoga')).body.events.map(
          (e: { title: string; start_date: string }) => `${e.start_date} ${e.title}`,
        );
      expect(await list()).toContain('2045-01-09 15:00:00 Yoga (afternoon)');

      expect((await dav(s, 'PUT', path, { body: calendar(master) })).status).toBe(204);
      const alone = (await dav(s, 'GET', path)).text;
      expect(alone).not.toContain('RECURRENCE-ID');
      expect(alone).not.toContain('TRIGGER:-PT5M');
      expect(await list()).toEqual([
        '2045-01-02 10:00:00 Yoga',
        '2045-01-09 10:00:00 Yoga',
        '2045-01-16 10:00:00 Yoga',
      ]);
    });

    it('takes back as tags the tags it wrote among CATEGORIES, and drops those a client took out', async () => {
      const concerts = (await s.post('/categories', { name: 'Round-trip concerts' })).body;
      const jazz = (await s.post('/tags', { name: 'round-trip-jazz' })).body;
      const event = (await s.post('/events', restEvent('Tagged', { categories: [concerts.id], tags: [jazz.id] }))).body;
      const path = `${ALL}${event.id}.ics`;
      const got = await dav(s, 'GET', path);
      expect(got.text).toMatch(/CATEGORIES:(Round-trip concerts,round-trip-jazz|round-trip-jazz,Round-trip concerts)/);
      const edited = got.text.replace('SUMMARY:Tagged', 'SUMMARY:Tagged (edited)');
      expect(
        (await dav(s, 'PUT', path, { body: edited, headers: { 'if-match': got.headers.get('etag') ?? '' } })).status,
      ).toBe(204);
      const after = (await s.get(`/events/${event.id}`)).body;
      expect(after.title).toBe('Tagged (edited)');
      expect(after.categories.map((c: { name: string }) => c.name)).toEqual(['Round-trip concerts']);
      expect(after.tags.map((t: { name: string }) => t.name)).toEqual(['round-trip-jazz']);
      const categories = await s.get('/categories?hide_empty=false&per_page=100&search=round-trip');
      expect(categories.body.categories.map((c: { name: string }) => c.name)).toEqual(['Round-trip concerts']);

      const untagged = edited.replace(/CATEGORIES:.*\r\n/, 'CATEGORIES:Round-trip concerts\r\n');
      expect((await dav(s, 'PUT', path, { body: untagged })).status).toBe(204);
      expect((await s.get(`/events/${event.id}`)).body.tags).toEqual([]);
    });

    it('writes only what a client changed of what it was served: an edited title keeps the rest as stored', async () => {
      const venue = (
        await s.post('/venues', {
          venue: 'Full Hall',
          address: '2 Long Road',
          city: 'Lyon',
          zip: '69001',
          phone: '+33 4 00 00 00 00',
        })
      ).body;
      const first = (await s.post('/organizers', { organizer: 'First Org', email: 'first@example.org' })).body;
      const second = (await s.post('/organizers', { organizer: 'Second Org' })).body;
      const stored = (
        await s.post(
          '/events',
          restEvent('Private gala', {
            status: 'private',
            description: '<p>An <strong>evening</strong> of <a href="https://example.org">music</a>.</p>',
            venue: venue.id,
            organizer: [first.id, second.id],
            cost: '25',
          }),
        )
      ).body;
      const path = `${ALL}${stored.id}.ics`;
      const got = await dav(s, 'GET', path);
      const edited = got.text.replace('SUMMARY:Private gala', 'SUMMARY:Private gala (moved)');
      expect(
        (await dav(s, 'PUT', path, { body: edited, headers: { 'if-match': got.headers.get('etag') ?? '' } })).status,
      ).toBe(204);
      const after = (await s.get(`/events/${stored.id}`)).body;
      expect(after.title).toBe('Private gala (moved)');
      expect(after.status).toBe('private');
      expect(after.description).toBe(stored.description);
      expect(after.website).toBe(stored.website);
      expect(after.cost).toBe(stored.cost);
      expect(after.venue.id).toBe(venue.id);
      expect(after.organizer.map((o: { id: number }) => o.id)).toEqual([first.id, second.id]);

      // What the client changes is written.
      const described = edited.replace(/DESCRIPTION:.*\r\n( .*\r\n)*/, 'DESCRIPTION:Now a plain one.\r\n');
      expect((await dav(s, 'PUT', path, { body: described })).status).toBe(204);
      const plain = (await s.get(`/events/${stored.id}`)).body;
      expect(plain.description).toContain('Now a plain one.');
      expect(plain.status).toBe('private');
      expect(plain.organizer.map((o: { id: number }) => o.id)).toEqual([first.id, second.id]);

      // A draft stays a draft when a client edits it, though it was served as TENTATIVE.
      const draft = (await s.post('/events', restEvent('Draft plan', { status: 'draft' }))).body;
      const draftText = (await dav(s, 'GET', `${ALL}${draft.id}.ics`)).text.replace(
        'SUMMARY:Draft plan',
        'SUMMARY:Draft plan 2',
      );
      expect((await dav(s, 'PUT', `${ALL}${draft.id}.ics`, { body: draftText })).status).toBe(204);
      expect((await s.get(`/events/${draft.id}`)).body.status).toBe('draft');
    });

    it("tells webhook subscribers of what CalDAV writes, as of the API's writes", async () => {
      const hook = await receiver();
      const { body: sub } = await s.post('/webhooks', { url: hook.url, events: ['event.*'] });
      const worker = startTestWorker(s);
      try {
        const id = uid();
        await dav(s, 'PUT', `${ALL}${id}.ics`, { body: vevent(id, { summary: 'Announced' }) });
        await dav(s, 'DELETE', `${ALL}${id}.ics`);
        const types = () => hook.received.map((r) => JSON.parse(r.body) as { type: string; data: object });
        for (let i = 0; i < 200 && types().length < 2; i++) await new Promise((resolve) => setTimeout(resolve, 25));
        expect(types().map((m) => m.type)).toEqual(['event.created', 'event.trashed']);
        expect(JSON.stringify(types()[0].data)).toContain('Announced');
      } finally {
        await worker.stop();
        await hook.close();
        await s.request('DELETE', `/webhooks/${sub.id}`);
      }
    });

    it('takes what a client writes in another form as the same, and what it changes as changed', async () => {
      const get = async (id: number) => (await dav(s, 'GET', `${ALL}${id}.ics`)).text;
      const put = (id: number, body: string) => dav(s, 'PUT', `${ALL}${id}.ics`, { body });
      const rest = async (id: number) => (await s.get(`/events/${id}`)).body;

      // A series whose occurrence was changed through the API is written back whole.
      const series = (
        await s.post('/events', {
          title: 'Weekly talk',
          start_date: '2047-07-01 19:00:00',
          end_date: '2047-07-01 21:00:00',
          timezone: 'Europe/Berlin',
          recurrence: ['RRULE:FREQ=WEEKLY;COUNT=4'],
        })
      ).body;
      const occurrences = (await s.get('/events?start_date=2047-07-01&end_date=2047-07-31&search=Weekly%20talk')).body
        .events;
      await s.request('PATCH', `/events/${occurrences[1].id}?scope=this`, { body: { title: 'Weekly talk (guest)' } });
      const seriesText = await get(series.id);
      expect((await put(series.id, seriesText)).status).toBe(204);
      expect(
        (await put(series.id, seriesText.replace('SUMMARY:Weekly talk\r\n', 'SUMMARY:Weekly talks\r\n'))).status,
      ).toBe(204);
      expect((await rest(series.id)).title).toBe('Weekly talks');
      expect((await rest(occurrences[1].id)).title).toBe('Weekly talk (guest)');

      // Subcategories stay themselves whatever order or company CATEGORIES lists them in.
      const arts = (await s.post('/categories', { name: 'Form arts' })).body;
      const music = (await s.post('/categories', { name: 'Form music', parent: arts.id })).body;
      const tagged = (await s.post('/events', restEvent('Categorised', { categories: [arts.id, music.id] }))).body;
      const categorised = await get(tagged.id);
      const reordered = categorised.replace(/CATEGORIES:.*\r\n/, 'CATEGORIES:Form music,Form arts,Form added\r\n');
      expect((await put(tagged.id, reordered)).status).toBe(204);
      const names = (await rest(tagged.id)).categories
        .map((c: { id: number; name: string }) => `${c.id} ${c.name}`)
        .sort();
      expect(names).toEqual(expect.arrayContaining([`${arts.id} Form arts`, `${music.id} Form music`]));
      const all = (await s.get('/categories?hide_empty=false&per_page=100&search=Form%20music')).body.categories;
      expect(all).toHaveLength(1);

      // The venue and organizers it was not shown stay when it changes those it was.
      const one = (await s.post('/venues', { venue: 'Shown hall' })).body;
      const two = (await s.post('/venues', { venue: 'Unshown hall' })).body;
      const mailed = (await s.post('/organizers', { organizer: 'Mailed org', email: 'mailed@example.org' })).body;
      const quiet = (await s.post('/organizers', { organizer: 'Quiet org' })).body;
      const linked = (
        await s.post('/events', restEvent('Linked', { venue: [one.id, two.id], organizer: [quiet.id, mailed.id] }))
      ).body;
      const linkedText = await get(linked.id);
      expect(linkedText).toContain('LOCATION:Shown hall');
      const moved = linkedText
        .replace('LOCATION:Shown hall', 'LOCATION:Elsewhere hall')
        .replace(/ORGANIZER[^\r]*\r\n/, '');
      expect((await put(linked.id, moved)).status).toBe(204);
      const after = await rest(linked.id);
      expect(after.venue.map((v: { venue: string }) => v.venue)).toEqual(['Elsewhere hall', 'Unshown hall']);
      expect(after.organizer.map((o: { id: number }) => o.id)).toEqual([quiet.id]);

      // The same instants in UTC keep the event's zone.
      const tokyo = (
        await s.post('/events', {
          title: 'Tokyo',
          start_date: '2047-03-01 10:00:00',
          end_date: '2047-03-01 11:00:00',
          timezone: 'Asia/Tokyo',
        })
      ).body;
      const utc = (await get(tokyo.id))
        .replace(/DTSTART;TZID=Asia\/Tokyo:20470301T100000/, 'DTSTART:20470301T010000Z')
        .replace(/DTEND;TZID=Asia\/Tokyo:20470301T110000/, 'DTEND:20470301T020000Z');
      expect(utc).toContain('DTSTART:20470301T010000Z');
      expect((await put(tokyo.id, utc)).status).toBe(204);
      expect(await rest(tokyo.id)).toMatchObject({ timezone: 'Asia/Tokyo', start_date: '2047-03-01 10:00:00' });

      // A date written without VALUE=DATE, which the import reads as calendar apps do.
      const dated = uid();
      const bare = vevent(dated, { start: '20470801', end: '20470802' });
      expect((await dav(s, 'PUT', `${ALL}${dated}.ics`, { body: bare })).status).toBe(201);
      expect((await dav(s, 'GET', `${ALL}${dated}.ics`)).text).toContain('DTSTART;VALUE=DATE:20470801');

      // Statuses a client changes are written: a private event made public, a draft confirmed, an
      // event cancelled (still published: called off, not withdrawn) and confirmed again.
      const secret = (await s.post('/events', restEvent('Secret', { status: 'private' }))).body;
      const secretText = await get(secret.id);
      expect(secretText).toContain('CLASS:PRIVATE');
      expect((await put(secret.id, secretText.replace('CLASS:PRIVATE', 'CLASS:PUBLIC'))).status).toBe(204);
      expect((await rest(secret.id)).status).toBe('publish');
      const plan = (await s.post('/events', restEvent('Plan', { status: 'draft' }))).body;
      expect((await put(plan.id, (await get(plan.id)).replace('STATUS:TENTATIVE', 'STATUS:CONFIRMED'))).status).toBe(
        204,
      );
      expect((await rest(plan.id)).status).toBe('publish');
      expect((await put(plan.id, (await get(plan.id)).replace('STATUS:CONFIRMED', 'STATUS:CANCELLED'))).status).toBe(
        204,
      );
      expect(await rest(plan.id)).toMatchObject({ status: 'publish', event_status: 'canceled' });
      expect((await put(plan.id, (await get(plan.id)).replace('STATUS:CANCELLED', 'STATUS:CONFIRMED'))).status).toBe(
        204,
      );
      expect(await rest(plan.id)).toMatchObject({ status: 'publish', event_status: 'scheduled' });
    });

    it('deletes to the trash, honouring If-Match', async () => {
      const id = uid();
      const path = `${ALL}${id}.ics`;
      await dav(s, 'PUT', path, { body: vevent(id, { summary: 'Short-lived' }) });
      expect((await dav(s, 'DELETE', path, { headers: { 'if-match': '"stale"' } })).status).toBe(412);
      expect((await dav(s, 'DELETE', path, { as: 'subscriber' })).status).toBe(403);
      const etag = (await dav(s, 'GET', path)).headers.get('etag') ?? '';
      expect((await dav(s, 'DELETE', path, { headers: { 'if-match': etag } })).status).toBe(204);
      expect((await dav(s, 'GET', path)).status).toBe(404);
      const trashed = await s.get(`/events?search=Short-lived&status=trash&start_date=2041-01-01&end_date=2041-12-31`);
      expect(trashed.body.events).toHaveLength(1);
      // The name and UID are free again.
      expect((await dav(s, 'PUT', path, { body: vevent(id), headers: { 'if-none-match': '*' } })).status).toBe(201);
    });

    it('syncs a collection from the change feed: what changed, what went, and a token that is too old', async () => {
      const start = await dav(s, 'REPORT', ALL, { body: syncBody('') });
      expect(start.status).toBe(207);
      const token = tokenOf(start.text);
      expect(token).toMatch(/^urn:calendar-events:sync:/);

      const venue = (await s.post('/venues', { venue: 'Old Hall' })).body;
      const linked = (await s.post('/events', restEvent('With a venue', { venue: venue.id }))).body;
      const gone = (await s.post('/events', restEvent('To be deleted'))).body;
      await settled(s);
      const first = await dav(s, 'REPORT', ALL, { body: syncBody(token) });
      const changed = responses(first.text);
      expect(changed.get(`${ALL}${linked.id}.ics`)).toBe('200');
      expect(changed.get(`${ALL}${gone.id}.ics`)).toBe('200');
      const next = tokenOf(first.text);
      expect(next).not.toBe(token);

      await s.request('DELETE', `/events/${gone.id}`);
      await s.post(`/venues/${venue.id}`, { venue: 'New Hall' });
      await settled(s);
      const second = await dav(s, 'REPORT', ALL, { body: syncBody(next) });
      const since = responses(second.text);
      // The renamed venue is in the linked event's LOCATION: reported as changed.
      expect(since.get(`${ALL}${linked.id}.ics`)).toBe('200');
      expect(since.get(`${ALL}${gone.id}.ics`)).toBe('404');
      expect(since.size).toBe(2);
      // Nothing since: an empty answer with the same or a later token.
      const quiet = await dav(s, 'REPORT', ALL, { body: syncBody(tokenOf(second.text)) });
      expect(responses(quiet.text).size).toBe(0);

      // A token is the caller's view's: taken anonymously, it does not serve an editor, who sees more.
      const anonymous = tokenOf((await dav(s, 'REPORT', ALL, { as: null, body: syncBody('') })).text);
      expect((await dav(s, 'REPORT', ALL, { as: null, body: syncBody(anonymous) })).status).toBe(207);
      const other = await dav(s, 'REPORT', ALL, { body: syncBody(anonymous) });
      expect(other.status).toBe(403);
      expect(other.text).toContain('<d:valid-sync-token/>');

      // Once the feed is pruned past a token, that token is too old (RFC 6578 3.2).
      await pruneChanges(s.db.prisma, new Date(Date.now() + 1000));
      for (const bad of [token, 'garbage', 'urn:other:1-1', 'urn:calendar-events:sync:18446744073709551615-1']) {
        const refused = await dav(s, 'REPORT', ALL, { body: syncBody(bad) });
        expect(refused.status).toBe(403);
        expect(refused.text).toContain('<d:valid-sync-token/>');
      }
    });

    it('gives each resource one ETag in listings and GETs, which changes with whatever its text shows', async () => {
      const venue = (await s.post('/venues', { venue: 'Riverside' })).body;
      const category = (await s.post('/categories', { name: 'Open air' })).body;
      const single = (await s.post('/events', restEvent('Picnic', { venue: venue.id, categories: [category.id] })))
        .body;
      const series = (
        await s.post('/events', {
          title: 'Morning run',
          start_date: '2042-05-04 07:00:00',
          end_date: '2042-05-04 08:00:00',
          recurrence: ['RRULE:FREQ=WEEKLY;COUNT=3'],
        })
      ).body;
      const listed = async (as: Role | null = 'editor') => {
        const xml = (await dav(s, 'PROPFIND', ALL, { as, headers: { depth: '1' }, body: propfind('d:getetag') })).text;
        const etags = new Map<string, string>();
        for (const [, body] of xml.matchAll(/<d:response>(.*?)<\/d:response>/gs)) {
          const etag = /<d:getetag>(.*?)<\/d:getetag>/.exec(body)?.[1];
          if (etag) etags.set(/<d:href>(.*?)<\/d:href>/.exec(body)?.[1] ?? '', etag.replaceAll('&quot;', '"'));
        }
        return etags;
      };
      const get = (id: number, as: Role | null = 'editor') => dav(s, 'GET', `${ALL}${id}.ics`, { as });
      // Every listed ETag is the one a GET of the resource gives, for each kind of caller.
      for (const as of ['editor', null] as const) {
        for (const [href, etag] of await listed(as))
          expect((await dav(s, 'GET', href, { as })).headers.get('etag'), href).toBe(etag);
      }
      const before = await listed();
      const picnic = `${ALL}${single.id}.ics`;
      const run = `${ALL}${series.id}.ics`;

      await s.post(`/venues/${venue.id}`, { venue: 'Riverside Park' });
      const renamed = await listed();
      expect(renamed.get(picnic)).not.toBe(before.get(picnic));
      expect(renamed.get(run)).toBe(before.get(run));
      const text = await get(single.id);
      expect(text.headers.get('etag')).toBe(renamed.get(picnic));
      expect(text.text).toContain('LOCATION:Riverside Park');

      await s.post(`/categories/${category.id}`, { name: 'Outdoors' });
      expect((await listed()).get(picnic)).not.toBe(renamed.get(picnic));

      // One occurrence changed on its own is an override inside the series' resource.
      const occurrences = await s.get(`/events?start_date=2042-05-01&end_date=2042-05-31&search=Morning%20run`);
      const second = occurrences.body.events.find((e: { start_date: string }) => e.start_date.startsWith('2042-05-11'));
      await s.post(`/events/${second.id}?scope=this`, { title: 'Morning run (long)' });
      const after = await listed();
      expect(after.get(run)).not.toBe(renamed.get(run));
      const seriesText = await get(series.id);
      expect(seriesText.headers.get('etag')).toBe(after.get(run));
      expect(seriesText.text).toContain('SUMMARY:Morning run (long)');
      expect(seriesText.text).toMatch(/RECURRENCE-ID[^:]*:20420511T0[57]0000/);
    });

    it('never serves an older text under a newer ETag when a write lands between reading them', async () => {
      const event = (await s.post('/events', restEvent('Race v1'))).body;
      const path = `${ALL}${event.id}.ics`;
      // The ETags are read on the driver beneath Prisma (queries/calendar-objects.ts versionRows):
      // right after they are, the event changes through the API.
      const original = driverOf(s.db.prisma);
      if (!original) throw new Error('the database opened without a driver beneath Prisma');
      let wrote = false;
      registerDriver(s.db.prisma, async (text, values, options) => {
        const rows = await original(text, values, options);
        if (!wrote && text.includes('md5(concat_ws')) {
          wrote = true;
          await s.post(`/events/${event.id}`, { title: 'Race v2' });
        }
        return rows;
      });
      let first;
      try {
        first = await dav(s, 'GET', path);
      } finally {
        registerDriver(s.db.prisma, original);
      }
      expect(wrote).toBe(true);
      // The newer text under the older ETag: the next look sees the ETag change, and reads again.
      expect(first.text).toContain('SUMMARY:Race v2');
      const second = await dav(s, 'GET', path);
      expect(second.text).toContain('SUMMARY:Race v2');
      expect(second.headers.get('etag')).not.toBe(first.headers.get('etag'));
    });

    it('writes the same text for the same event until TEXT_VERSION says otherwise', async () => {
      // ETags are digests of what a text is made from, not of the text (services/calendar-objects/read.ts): a change to
      // what the serializer writes must raise TEXT_VERSION, or clients keep texts under old ETags.
      const venue = (await s.post('/venues', { venue: 'Pinned Hall', address: '1 Pin Street', city: 'Pinton' })).body;
      const organizer = (await s.post('/organizers', { organizer: 'Pinned Org', email: 'pin@example.org' })).body;
      const category = (await s.post('/categories', { name: 'Pinned' })).body;
      const event = (
        await s.post('/events', {
          title: 'Pinned text; with, specials',
          description: '<p>One <b>line</b></p><p>Two</p>',
          start_date: '2046-03-29 01:30:00',
          end_date: '2046-03-29 04:00:00',
          timezone: 'Europe/Berlin',
          venue: venue.id,
          organizer: [organizer.id],
          categories: [category.id],
          recurrence: ['RRULE:FREQ=WEEKLY;COUNT=3', 'EXDATE;TZID=Europe/Berlin:20460405T013000'],
        })
      ).body;
      const text = (await dav(s, 'GET', `${ALL}${event.id}.ics`)).text
        .replace(new RegExp(new URL(s.origin).host.replaceAll('.', '\\.'), 'g'), 'HOST')
        .replace(/\?id=\d+/g, '?id=N')
        .replace(/^(DTSTAMP|LAST-MODIFIED):.*$/gm, '$1:T')
        .replace(/-\d+\//g, '/');
      const digest = createHash('sha256').update(text).digest('hex').slice(0, 16);
      expect({ TEXT_VERSION, digest }, text).toEqual({ TEXT_VERSION: 3, digest: 'a231feb5f4206817' });
    });

    it('answers calendar-query with a time range, expanded or not', async () => {
      const weekly = (
        await s.post('/events', {
          title: 'Weekly class',
          start_date: '2042-03-02 18:00:00',
          end_date: '2042-03-02 19:00:00',
          timezone: 'Europe/Berlin',
          recurrence: ['RRULE:FREQ=WEEKLY;COUNT=4'],
        })
      ).body;
      const other = (
        await s.post('/events', {
          title: 'Elsewhere in time',
          start_date: '2043-01-01 10:00:00',
          end_date: '2043-01-01 11:00:00',
        })
      ).body;
      const query = (expand: boolean) => `<c:calendar-query xmlns:d="DAV:" xmlns:c="urn:ietf:params:xml:ns:caldav">
      <d:prop><d:getetag/><c:calendar-data>${expand ? '<c:expand start="20420301T000000Z" end="20420317T000000Z"/>' : ''}</c:calendar-data></d:prop>
      <c:filter><c:comp-filter name="VCALENDAR"><c:comp-filter name="VEVENT"><c:time-range start="20420301T000000Z" end="20420317T000000Z"/></c:comp-filter></c:comp-filter></c:filter>
    </c:calendar-query>`;
      const plain = await dav(s, 'REPORT', ALL, { headers: { depth: '1' }, body: query(false) });
      const found = responses(plain.text);
      expect(found.has(`${ALL}${weekly.id}.ics`)).toBe(true);
      expect(found.has(`${ALL}${other.id}.ics`)).toBe(false);
      expect(plain.text).toContain('RRULE:FREQ=WEEKLY;COUNT=4');

      const expanded = await dav(s, 'REPORT', ALL, { headers: { depth: '1' }, body: query(true) });
      const data =
        /<c:calendar-data>(.*?)<\/c:calendar-data>/s.exec(expanded.text.split(`${weekly.id}.ics`)[1])?.[1] ?? '';
      // 2, 9 and 16 March at 18:00 in Berlin (UTC+1), each an occurrence of the series' UID.
      expect(data.match(/RECURRENCE-ID:\d{8}T\d{6}Z/g)).toEqual([
        'RECURRENCE-ID:20420302T170000Z',
        'RECURRENCE-ID:20420309T170000Z',
        'RECURRENCE-ID:20420316T170000Z',
      ]);
      expect(data).not.toContain('RRULE');

      // A daily series from the year 1000, expanded in the year 9000: refused, not walked for minutes.
      // Daily in January only: the walk to 9000 still checks every day, but the store holds some 90
      // occurrences in its window rather than the 1,095 of every day (services/series/window.ts
      // expandSeries), whose writing was two thirds of this test's CPU on PGlite.
      const ancient = uid();
      await dav(s, 'PUT', `${ALL}${ancient}.ics`, {
        body: vevent(ancient, {
          start: '10000101T090000Z',
          end: '10000101T100000Z',
          extra: ['RRULE:FREQ=DAILY;BYMONTH=1'],
        }),
      });
      const far = (body: string) =>
        `<c:calendar-multiget xmlns:d="DAV:" xmlns:c="urn:ietf:params:xml:ns:caldav"><d:prop><c:calendar-data>${body}</c:calendar-data></d:prop><d:href>${ALL}${ancient}.ics</d:href></c:calendar-multiget>`;
      const tooMany = await dav(s, 'REPORT', ALL, {
        body: far('<c:expand start="90000101T000000Z" end="90010101T000000Z"/>'),
      });
      expect(tooMany.status).toBe(403);
      expect(tooMany.text).toContain('<c:max-instances/>');
      const week = await dav(s, 'REPORT', ALL, {
        body: far('<c:expand start="10000101T000000Z" end="10000108T000000Z"/>'),
      });
      expect(week.text.match(/RECURRENCE-ID:/g)).toHaveLength(7);

      const todos = await dav(s, 'REPORT', ALL, {
        body: '<c:calendar-query xmlns:d="DAV:" xmlns:c="urn:ietf:params:xml:ns:caldav"><d:prop><d:getetag/></d:prop><c:filter><c:comp-filter name="VCALENDAR"><c:comp-filter name="VTODO"/></c:comp-filter></c:filter></c:calendar-query>',
      });
      expect(responses(todos.text).size).toBe(0);
      const textMatch = await dav(s, 'REPORT', ALL, {
        body: '<c:calendar-query xmlns:d="DAV:" xmlns:c="urn:ietf:params:xml:ns:caldav"><d:prop><d:getetag/></d:prop><c:filter><c:comp-filter name="VCALENDAR"><c:comp-filter name="VEVENT"><c:prop-filter name="SUMMARY"><c:text-match>x</c:text-match></c:prop-filter></c:comp-filter></c:comp-filter></c:filter></c:calendar-query>',
      });
      expect(textMatch.status).toBe(403);
      expect(textMatch.text).toContain('<c:supported-filter/>');
    });

    it('puts an event into a category by its collection', async () => {
      await s.post('/categories', { name: 'Workshops' });
      const id = uid();
      const path = `${HOME}category-workshops/${id}.ics`;
      expect((await dav(s, 'PUT', path, { body: vevent(id, { summary: 'Pottery' }) })).status).toBe(201);
      expect((await dav(s, 'GET', path)).text).toContain('CATEGORIES:Workshops');
      const listed = responses(
        (
          await dav(s, 'PROPFIND', `${HOME}category-workshops/`, {
            headers: { depth: '1' },
            body: propfind('d:getetag'),
          })
        ).text,
      );
      expect(listed.has(path)).toBe(true);
      expect((await dav(s, 'PROPFIND', `${HOME}category-none-such/`, { body: propfind('d:getetag') })).status).toBe(
        404,
      );
    });

    it('answers hostile or unknown XML with a 4xx, and stays up', async () => {
      const laughs = `<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">]><d:propfind xmlns:d="DAV:"><d:prop><d:displayname>&lol2;</d:displayname></d:prop></d:propfind>`;
      expect((await dav(s, 'PROPFIND', ALL, { body: laughs })).status).toBe(400);
      const external = `<?xml version="1.0"?><!DOCTYPE x [<!ENTITY e SYSTEM "file:///etc/passwd">]><d:propfind xmlns:d="DAV:"><d:prop><d:displayname>&e;</d:displayname></d:prop></d:propfind>`;
      const refused = await dav(s, 'PROPFIND', ALL, { body: external });
      expect(refused.status).toBe(400);
      expect(refused.text).not.toContain('root:');
      const deep = `${'<a xmlns="DAV:">'.repeat(5000)}${'</a>'.repeat(5000)}`;
      expect((await dav(s, 'PROPFIND', ALL, { body: deep })).status).toBe(400);
      expect((await dav(s, 'PROPFIND', ALL, { body: '<d:propfind xmlns:d="DAV:"><d:prop>' })).status).toBe(400);
      expect(
        (await dav(s, 'PROPFIND', ALL, { body: `<d:propfind xmlns:d="DAV:">${' '.repeat(600 * 1024)}</d:propfind>` }))
          .status,
      ).toBe(413);
      expect(
        (
          await dav(s, 'PUT', `${ALL}huge.ics`, {
            body: vevent(uid(), { extra: [`X-BIG:${'a'.repeat(1100 * 1024)}`] }),
          })
        ).status,
      ).toBe(413);
      const unknown = await dav(s, 'REPORT', ALL, { body: '<x:free-busy-query xmlns:x="urn:example"/>' });
      expect(unknown.status).toBe(403);
      expect(unknown.text).toContain('<d:supported-report/>');
      const infinite = await dav(s, 'PROPFIND', HOME, { headers: { depth: 'infinity' }, body: propfind('d:getetag') });
      expect(infinite.status).toBe(403);
      expect(infinite.text).toContain('propfind-finite-depth');
      const broken = await dav(s, 'GET', `${ALL}%E0%A4%A.ics`);
      expect(broken.status).toBe(400);
      expect(broken.text).toContain('<d:error');
      for (const path of [`${ALL}%00.ics`, `${HOME}category-%00/`, '/caldav/principals/%00/'])
        expect((await dav(s, 'PROPFIND', path, { body: propfind('d:getetag') })).status, path).toBe(400);
      const hrefs = ['%00.ics', 'x/../y.ics', 'http://elsewhere.example/a.ics', 'none.ics', 'none.ics'].map(
        (h) => `<d:href>${h.startsWith('http') ? h : ALL + h}</d:href>`,
      );
      const multiget = await dav(s, 'REPORT', ALL, {
        body: `<c:calendar-multiget xmlns:d="DAV:" xmlns:c="urn:ietf:params:xml:ns:caldav"><d:prop><d:getetag/></d:prop>${hrefs.join('')}</c:calendar-multiget>`,
      });
      expect(multiget.status).toBe(207);
      expect([...responses(multiget.text).values()]).toEqual(['404', '404', '404', '404']);
      const impossible = await dav(s, 'REPORT', ALL, {
        body: '<c:calendar-query xmlns:d="DAV:" xmlns:c="urn:ietf:params:xml:ns:caldav"><d:prop><d:getetag/></d:prop><c:filter><c:comp-filter name="VCALENDAR"><c:comp-filter name="VEVENT"><c:time-range start="20269999T999999Z"/></c:comp-filter></c:comp-filter></c:filter></c:calendar-query>',
      });
      expect(impossible.status).toBe(400);
      expect((await dav(s, 'PROPFIND', '/caldav/', { body: propfind('d:displayname') })).status).toBe(207);
    });

    itOnPostgres(
      kind,
      'lets one of two writers with the same If-Match through, and one creator of a name',
      'writers run one at a time on one connection',
      async () => {
        const id = uid();
        const path = `${ALL}${id}.ics`;
        await dav(s, 'PUT', path, { body: vevent(id) });
        const etag = (await dav(s, 'GET', path)).headers.get('etag') ?? '';
        const writes = await Promise.all(
          ['One', 'Two', 'Three', 'Four'].map((summary) =>
            dav(s, 'PUT', path, { body: vevent(id, { summary }), headers: { 'if-match': etag } }),
          ),
        );
        expect(writes.map((w) => w.status).sort()).toEqual([204, 412, 412, 412]);

        const fresh = uid();
        const creates = await Promise.all(
          [1, 2, 3, 4].map(() =>
            dav(s, 'PUT', `${ALL}${fresh}.ics`, {
              body: vevent(fresh, { summary: `Race ${fresh}` }),
              headers: { 'if-none-match': '*' },
            }),
          ),
        );
        expect(creates.map((c) => c.status).sort()).toEqual([201, 412, 412, 412]);
        // One UID under four names at once: one resource, the others told of the conflict.
        const shared = uid();
        const named = await Promise.all(
          [1, 2, 3, 4].map((i) =>
            dav(s, 'PUT', `${ALL}${shared}-${i}.ics`, { body: vevent(shared, { summary: `Race ${shared}` }) }),
          ),
        );
        expect(named.map((c) => c.status).sort()).toEqual([201, 409, 409, 409]);
        // Those that lost made no event of their own.
        for (const race of [fresh, shared]) {
          const found = await s.get(
            `/events?search=${encodeURIComponent(`Race ${race}`)}&start_date=2041-01-01&end_date=2041-12-31`,
          );
          expect(found.body.events.map((e: { title: string }) => e.title)).toEqual([`Race ${race}`]);
        }
      },
    );
  },
  // Webhooks go to a receiver on loopback here.
  { env: { WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true' } },
);
