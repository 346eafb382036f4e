// Nothing of a submission is public before an editor approves it (docs/decisions.md, "Public
// submissions"), on both databases: a submission with a title, venue and organizer nobody else
// uses is looked for at every door that shows events (the REST reads and lists, search, the
// iCalendar feeds, CalDAV, the public pages, the change feed, kept answers) by anonymous callers and
// accounts below editor; then the editors' integrations are told (`event.submitted` to a webhook),
// and its approval and rejection reach them as what they are: a publication, a trashing.
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Role } from '../../src/auth/roles.js';
import type { WebhookWorker } from '../../src/webhooks/worker.js';
import { describeEachDatabase } from '../setup/each-database.js';
import { changesSince } from '../setup/feed.js';
import { receiver } from '../setup/receiver.js';
import type { TestServer } from '../setup/server.js';
import { submit } from '../setup/submissions.js';
import { startTestWorker } from '../setup/webhook-worker.js';

const SECRETS = ['Quorvath lanterns', 'Ysolde Gardens', 'Brask Collective'];
const shown = (text: string) => SECRETS.filter((secret) => text.includes(secret));

const basic = (s: TestServer, role: Role) =>
  `Basic ${Buffer.from(`${s.users[role].login}:${s.users[role].appPassword}`).toString('base64')}`;

const until = async (check: () => boolean, ms = 15_000) => {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
};

// Anonymous callers, and the accounts below editor that see most: their own items (contributor), and publishing (author).
const READERS = [null, 'contributor', 'author'] as const;

describeEachDatabase(
  'Submissions before approval, at every door',
  (s) => {
    let hook: Awaited<ReturnType<typeof receiver>>;
    let worker: WebhookWorker;
    let submission: { id: number; event: { id: number; slug: string }; new: { venue: number; organizer: number } };

    beforeAll(async () => {
      hook = await receiver();
      const subscribed = await s.post('/webhooks', { url: hook.url, events: ['event.*', 'venue.*'] });
      expect(subscribed.status, subscribed.text).toBe(201);
      worker = startTestWorker(s);
      // Read before, so that a kept answer of each exists when the submission is written.
      for (const path of ['/events', '/venues', '/organizers']) await s.get(path, { as: null });
      const r = await submit(s, {
        title: 'Quorvath lanterns',
        start_date: '2044-10-03 19:00',
        end_date: '2044-10-03 22:00',
        venue: { venue: 'Ysolde Gardens', city: 'Lyon' },
        organizer: { organizer: 'Brask Collective' },
      });
      expect(r.status, r.text).toBe(202);
      submission = (await s.get(`/submissions/${r.body.id}`, { as: 'editor' })).body;
    });
    afterAll(async () => {
      await worker?.stop();
      await hook?.close();
    });

    it('is in no REST read, list or search below editor', async () => {
      const { event } = submission;
      for (const as of READERS) {
        for (const path of [
          `/events/${event.id}`,
          `/events/by-slug/${event.slug}`,
          `/venues/${submission.new.venue}`,
          `/organizers/${submission.new.organizer}`,
        ]) {
          const r = await s.get(path, { as });
          expect(r.status, `${path} as ${as}`).not.toBe(200);
          expect(shown(r.text)).toEqual([]);
        }
        for (const path of [
          '/events?per_page=50&start_date=2044-10-01&end_date=2044-10-31',
          '/events?search=Quorvath',
          '/venues?per_page=50',
          '/venues?search=Ysolde',
          '/organizers?per_page=50',
          '/events?per_page=50&status=pending',
        ]) {
          const r = await s.get(path, { as });
          expect(shown(r.text), `${path} as ${as}`).toEqual([]);
        }
      }
    });

    it('is in no iCalendar feed, nor in CalDAV', async () => {
      for (const as of READERS) {
        const feed = await s.get('/events.ics?start_date=2044-10-01&end_date=2044-10-31', { as });
        expect(shown(feed.text)).toEqual([]);
        expect((await s.get(`/events/${submission.event.id}.ics`, { as })).status).not.toBe(200);
      }
      for (const role of ['subscriber', 'author'] as const) {
        const report = await fetch(`${s.origin}/caldav/calendars/events/`, {
          method: 'REPORT',
          headers: { authorization: basic(s, role), depth: '1', 'content-type': 'application/xml; charset=utf-8' },
          body: `<c:calendar-query xmlns:d="DAV:" xmlns:c="urn:ietf:params:xml:ns:caldav"><d:prop><c:calendar-data/></d:prop>
          <c:filter><c:comp-filter name="VCALENDAR"><c:comp-filter name="VEVENT"><c:time-range start="20441001T000000Z" end="20441101T000000Z"/></c:comp-filter></c:comp-filter></c:filter></c:calendar-query>`,
        });
        const text = await report.text();
        expect(report.status, text).toBe(207);
        expect(shown(text)).toEqual([]);
        const one = await fetch(`${s.origin}/caldav/calendars/events/${submission.event.id}.ics`, {
          headers: { authorization: basic(s, role) },
        });
        expect(one.status).toBe(404);
      }
    });

    it('is on no public page', async () => {
      const pages = [
        `/event/${submission.event.slug}/`,
        `/venue/${(await s.get(`/venues/${submission.new.venue}`, { as: 'editor' })).body.slug}/`,
      ];
      for (const page of pages) {
        const r = await fetch(`${s.origin}${page}`);
        expect(r.status, page).toBe(404);
        expect(shown(await r.text())).toEqual([]);
      }
    });

    it('is not in the change feed below editor, and is `submitted` to editors', async () => {
      const ids = [
        `event${submission.event.id}`,
        `venue${submission.new.venue}`,
        `organizer${submission.new.organizer}`,
      ];
      for (const as of READERS) {
        const changes = await changesSince(s, '0-0', as);
        expect(changes.filter((c) => ids.includes(`${c.type}${c.id}`))).toEqual([]);
      }
      const editors = await changesSince(s, '0-0', 'editor');
      const theirs = editors.filter((c) => ids.includes(`${c.type}${c.id}`));
      expect(theirs.map((c) => c.action)).toEqual(['submitted', 'submitted', 'submitted']);
    });

    it("tells the editors' integrations, then its approval as a publication", async () => {
      await until(() => hook.received.some((r) => JSON.parse(r.body).type === 'event.submitted'));
      const submitted = hook.received.map((r) => JSON.parse(r.body) as { type: string; data: { id: number } });
      expect(submitted.filter((m) => m.type === 'event.submitted').map((m) => m.data.id)).toContain(
        submission.event.id,
      );
      expect(submitted.filter((m) => m.type === 'venue.submitted').map((m) => m.data.id)).toContain(
        submission.new.venue,
      );
      const approved = await s.post(`/submissions/${submission.id}/approve`, {}, { as: 'editor' });
      expect(approved.status).toBe(200);
      await until(() =>
        hook.received.some((r) => {
          const m = JSON.parse(r.body) as { type: string; data: { id: number } };
          return m.type === 'event.updated' && m.data.id === submission.event.id;
        }),
      );
      // Now it is public: read, listed, and shown on its page.
      expect((await s.get(`/events/${submission.event.id}`, { as: null })).status).toBe(200);
      const listed = await s.get('/events?per_page=50&start_date=2044-10-01&end_date=2044-10-31', { as: null });
      expect(shown(listed.text)).toContain('Quorvath lanterns');
      expect((await fetch(`${s.origin}/event/${submission.event.slug}/`)).status).toBe(200);
    });

    it('reaches integrations as a trashing when rejected', async () => {
      const r = await submit(s, { title: 'Rejected at once' });
      const one = (await s.get(`/submissions/${r.body.id}`, { as: 'editor' })).body as { event: { id: number } };
      await s.post(`/submissions/${r.body.id}/reject`, { reason: 'Not here.' }, { as: 'editor' });
      await until(() =>
        hook.received.some((m) => {
          const body = JSON.parse(m.body) as { type: string; data: { id: number } };
          return body.type === 'event.trashed' && body.data.id === one.event.id;
        }),
      );
    });
  },
  {
    env: {
      SUBMISSIONS: 'anyone',
      SUBMISSION_POW_COST: '20',
      TRUST_PROXY: 'loopback',
      WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
    },
  },
);
