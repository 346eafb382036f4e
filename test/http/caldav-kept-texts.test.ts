// CalDAV's kept texts (src/caldav/kept-texts.ts): a resource's text is sent again only while its
// ETag stays the same. Whatever changes it (the REST API, a venue it shows, a CalDAV PUT) and
// through whichever instance, the next multiget, calendar-query or GET has the new text, on both
// databases and across two instances on PostgreSQL.
import { expect, it } from 'vitest';
import { describeEachDatabase, itOnPostgres } from '../setup/each-database.js';
import { secondInstance } from '../setup/second-instance.js';
import type { TestServer } from '../setup/server.js';

const ALL = '/caldav/calendars/events/';

function basic(s: TestServer): string {
  const user = s.users.editor;
  return `Basic ${Buffer.from(`${user.login}:${user.appPassword}`).toString('base64')}`;
}

async function dav(s: TestServer, origin: string, method: string, path: string, body: string, type: string) {
  const headers: Record<string, string> = { authorization: basic(s), 'content-type': type };
  const response = await fetch(`${origin}${path}`, { method, headers, body: method === 'GET' ? undefined : body });
  return { status: response.status, text: await response.text(), etag: response.headers.get('etag') ?? '' };
}

/** Each resource's calendar-data and ETag in a multiget of these events, by href. */
async function multiget(s: TestServer, ids: number[], origin = s.origin) {
  const hrefs = ids.map((id) => `<d:href>${ALL}${id}.ics</d:href>`).join('');
  const body = `<c:calendar-multiget xmlns:d="DAV:" xmlns:c="urn:ietf:params:xml:ns:caldav"><d:prop><d:getetag/><c:calendar-data/></d:prop>${hrefs}</c:calendar-multiget>`;
  const answer = await dav(s, origin, 'REPORT', ALL, body, 'application/xml; charset=utf-8');
  expect(answer.status).toBe(207);
  const found = new Map<number, { etag: string; text: string }>();
  for (const [, response] of answer.text.matchAll(/<d:response>(.*?)<\/d:response>/gs)) {
    const id = Number(/(\d+)\.ics<\/d:href>/.exec(response)?.[1]);
    const etag = /<d:getetag>(.*?)<\/d:getetag>/.exec(response)?.[1] ?? '';
    const text = (/<c:calendar-data>(.*?)<\/c:calendar-data>/s.exec(response)?.[1] ?? '')
      .replaceAll('&#13;', '\r')
      .replaceAll('&quot;', '"')
      .replaceAll('&lt;', '<')
      .replaceAll('&gt;', '>')
      .replaceAll('&amp;', '&');
    found.set(id, { etag: etag.replaceAll('&quot;', '"'), text });
  }
  return found;
}

const event = (title: string, extra: object = {}) => ({
  title,
  start_date: '2043-03-01 10:00:00',
  end_date: '2043-03-01 11:00:00',
  status: 'publish',
  ...extra,
});

// One public address for both instances: UIDs and ETags are made from it (src/http/urls.ts).
const env = { PUBLIC_URL: 'https://events.example.org/' };

describeEachDatabase(
  'CalDAV kept texts',
  (s, kind) => {
    it('sends the new text at the next multiget after a change through the REST API, to a venue it shows, or through CalDAV', async () => {
      const venue = (await s.post('/venues', { venue: 'Kept hall' })).body;
      const one = (await s.post('/events', event('Kept one', { venue: [venue.id] }))).body;
      const two = (await s.post('/events', event('Kept two'))).body;
      const first = await multiget(s, [one.id, two.id]);
      expect(first.get(one.id)?.text).toContain('SUMMARY:Kept one');
      expect(first.get(one.id)?.text).toContain('LOCATION:Kept hall');
      // Asked again with nothing changed: the same text under the same ETag.
      expect(await multiget(s, [one.id, two.id])).toEqual(first);

      // Through the REST API.
      expect((await s.post(`/events/${one.id}`, { title: 'Kept one, renamed' })).status).toBe(200);
      const renamed = await multiget(s, [one.id, two.id]);
      expect(renamed.get(one.id)?.text).toContain('SUMMARY:Kept one\\, renamed');
      expect(renamed.get(one.id)?.etag).not.toBe(first.get(one.id)?.etag);
      expect(renamed.get(two.id)).toEqual(first.get(two.id));

      // A venue it shows, changed on its own.
      expect((await s.post(`/venues/${venue.id}`, { venue: 'Kept hall, moved' })).status).toBe(200);
      const moved = await multiget(s, [one.id]);
      expect(moved.get(one.id)?.text).toContain('LOCATION:Kept hall\\, moved');

      // Through CalDAV: a PUT of the text with a new SUMMARY, then a multiget, a GET and a calendar-query.
      const path = `${ALL}${two.id}.ics`;
      const served = await dav(s, s.origin, 'GET', path, '', 'text/plain');
      const changed = served.text.replace(/SUMMARY:[^\r]*/, 'SUMMARY:Kept two, from a phone');
      const put = await dav(s, s.origin, 'PUT', path, changed, 'text/calendar; charset=utf-8');
      expect(put.status).toBe(204);
      const after = await multiget(s, [two.id]);
      expect(after.get(two.id)?.text).toContain('SUMMARY:Kept two\\, from a phone');
      expect(after.get(two.id)?.etag).not.toBe(first.get(two.id)?.etag);
      const got = await dav(s, s.origin, 'GET', path, '', 'text/plain');
      expect(got.text).toBe(after.get(two.id)?.text);
      expect(got.etag).toBe(after.get(two.id)?.etag);
      const query = await dav(
        s,
        s.origin,
        'REPORT',
        ALL,
        '<c:calendar-query xmlns:d="DAV:" xmlns:c="urn:ietf:params:xml:ns:caldav"><d:prop><c:calendar-data/></d:prop><c:filter><c:comp-filter name="VCALENDAR"><c:comp-filter name="VEVENT"/></c:comp-filter></c:filter></c:calendar-query>',
        'application/xml; charset=utf-8',
      );
      expect(query.text).toContain('SUMMARY:Kept two\\, from a phone');
      expect(query.text).not.toContain('SUMMARY:Kept two&#13;');
    });

    it('keeps each reader to its own view: a subscriber is not sent the text an editor was', async () => {
      const draft = (await s.post('/events', event('Kept draft', { status: 'draft' }))).body;
      expect((await multiget(s, [draft.id])).get(draft.id)?.text).toContain('SUMMARY:Kept draft');
      const user = s.users.subscriber;
      const answer = await fetch(`${s.origin}${ALL}${draft.id}.ics`, {
        headers: { authorization: `Basic ${Buffer.from(`${user.login}:${user.appPassword}`).toString('base64')}` },
      });
      expect(answer.status).toBe(404);
    });

    itOnPostgres(
      kind,
      'sends the new text at the next multiget on an instance that kept the old one, after a change through another',
      'two pools on one database',
      async () => {
        const one = (await s.post('/events', event('Across instances'))).body;
        const instance = await secondInstance(s, env);
        try {
          const other = new URL(instance.base).origin;
          const before = await multiget(s, [one.id]);
          expect((await multiget(s, [one.id], other)).get(one.id)).toEqual(before.get(one.id));
          // Changed through the second instance, through the REST API and then through CalDAV.
          const changed = await fetch(`${instance.base}/events/${one.id}`, {
            method: 'POST',
            headers: { authorization: `Bearer ${s.users.editor.appPassword}`, 'content-type': 'application/json' },
            body: JSON.stringify({ title: 'Across instances, renamed' }),
          });
          expect(changed.status).toBe(200);
          const renamed = await multiget(s, [one.id]);
          expect(renamed.get(one.id)?.text).toContain('SUMMARY:Across instances\\, renamed');
          const path = `${ALL}${one.id}.ics`;
          const text = renamed.get(one.id)?.text.replace(/SUMMARY:[^\r]*/, 'SUMMARY:Across instances, put') ?? '';
          expect((await dav(s, other, 'PUT', path, text, 'text/calendar; charset=utf-8')).status).toBe(204);
          const put = await multiget(s, [one.id]);
          expect(put.get(one.id)?.text).toContain('SUMMARY:Across instances\\, put');
          expect((await multiget(s, [one.id], other)).get(one.id)).toEqual(put.get(one.id));
        } finally {
          await instance.close();
        }
      },
    );
  },
  { env },
);
