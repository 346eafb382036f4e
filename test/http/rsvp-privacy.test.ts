// Privacy at every door (issue 53, docs/decisions.md "RSVP"), on both databases: RSVPs with names
// and e-mail addresses nobody else uses, then every door that shows events, their feeds and their
// logs is read as the callers that are not the RSVPs' organisers (and as those too where the door
// shows no RSVP to anyone): the names and addresses are at the RSVP resource, for its organisers
// and its owner, and nowhere else.
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createApp } from '../../src/app.js';
import type { Role } from '../../src/auth/roles.js';
import { loadConfig } from '../../src/config.js';
import { answerLookups } from '../../src/metrics/registry.js';
import type { WebhookWorker } from '../../src/webhooks/worker.js';
import { describeEachDatabase } from '../setup/each-database.js';
import { changesSince } from '../setup/feed.js';
import { receiver } from '../setup/receiver.js';
import type { TestResponse, TestServer } from '../setup/server.js';
import { startTestWorker } from '../setup/webhook-worker.js';

const NS = '/calendar/events/v1';
/** The organiser's RSVP for someone, and the subscriber's own under a name of its choosing. */
const TAKEN = { name: 'Zephyrine Quillfeather', email: 'zq.privacy-7731@attendee.example' };
const OWN_NAME = 'Orlaith Vantablack';
const SECRETS = [TAKEN.name, TAKEN.email, OWN_NAME, 'Quillfeather', 'zq.privacy-7731', 'Vantablack'];

/** The secrets a text shows (none, for every door but the RSVP resource's organisers). */
const shown = (text: string) => SECRETS.filter((secret) => text.toLowerCase().includes(secret.toLowerCase()));

const until = async (check: () => boolean, ms = 10_000) => {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
};

const basic = (s: TestServer, role: Role) =>
  `Basic ${Buffer.from(`${s.users[role].login}:${s.users[role].appPassword}`).toString('base64')}`;

async function dav(s: TestServer, method: string, path: string, role: Role, body?: string) {
  const headers: Record<string, string> = { authorization: basic(s, role), depth: '1' };
  if (body) headers['content-type'] = 'application/xml; charset=utf-8';
  const r = await fetch(`${s.origin}${path}`, { method, headers, body });
  return { status: r.status, text: await r.text() };
}

const ok = (r: Pick<TestResponse, 'status' | 'text'>, status = 200) => {
  expect(r.status, r.text).toBe(status);
  return r.text;
};

describeEachDatabase(
  'RSVP privacy at every door',
  (s) => {
    let event: { id: number; slug: string; url: string };
    let taken: { id: number };
    let own: { id: number };
    let hook: Awaited<ReturnType<typeof receiver>>;
    let worker: WebhookWorker;

    beforeAll(async () => {
      hook = await receiver();
      // Subscriptions without attendee data: events only, and every change there is.
      for (const events of [['event.*'], ['*']]) {
        expect((await s.post('/webhooks', { url: hook.url, events })).status).toBe(201);
      }
      worker = startTestWorker(s);
      const created = await s.post(
        '/events',
        {
          title: 'Privacy workshop',
          start_date: '2045-02-10 18:00',
          end_date: '2045-02-10 20:00',
          status: 'publish',
          venue: { venue: 'Privacy Hall', city: 'Lyon' },
          rsvp: { open: true, capacity: 1 },
        },
        { as: 'author' },
      );
      event = created.body;
      taken = (await s.post(`/events/${event.id}/rsvps`, TAKEN, { as: 'author' })).body;
      own = (await s.post(`/events/${event.id}/rsvps`, { name: OWN_NAME }, { as: 'subscriber' })).body;
      // The subscriber waits (one seat); cancelling the first seats it: a promotion, another write.
      await s.request('DELETE', `/events/${event.id}/rsvps/${taken.id}`, { as: 'author' });
      await s.post(`/events/${event.id}/rsvps`, { ...TAKEN, guests: 0 }, { as: 'author' });
    });
    afterAll(async () => {
      await worker?.stop();
      await hook?.close();
    });

    it('is at the RSVP resource for its organisers, and its owner sees its own only', async () => {
      const all = await s.get(`/events/${event.id}/rsvps`, { as: 'author' });
      expect(shown(all.text).sort()).toEqual([...SECRETS].sort());
      const statuses = all.body.rsvps.map((r: { id: number; status: string }) => [r.id, r.status]);
      expect(statuses.sort()).toEqual(
        [
          [taken.id, 'waiting'],
          [own.id, 'going'],
        ].sort(),
      );
      const mine = await s.get(`/events/${event.id}/rsvps`, { as: 'subscriber' });
      expect(mine.body.rsvps.map((r: { id: number }) => r.id)).toEqual([own.id]);
      expect(shown(mine.text)).toEqual([OWN_NAME, 'Vantablack']);
      for (const as of [null, 'contributor'] as const) {
        expect(shown(ok(await s.get(`/events/${event.id}/rsvps`, { as })))).toEqual([]);
        const one = await s.get(`/events/${event.id}/rsvps/${taken.id}`, { as });
        expect([401, 404]).toContain(one.status);
        expect(shown(one.text)).toEqual([]);
      }
    });

    it('is not in the event, read or listed, anonymous or by another account', async () => {
      for (const as of [null, 'subscriber', 'contributor'] as const) {
        const single = await s.get(`/events/${event.id}`, { as });
        expect(single.body.rsvp).toMatchObject({ going: 1, waiting: 1, remaining: 0 });
        expect(shown(ok(single))).toEqual([]);
        expect(shown(ok(await s.get(`/events/by-slug/${event.slug}`, { as })))).toEqual([]);
        const listed = await s.get('/events?start_date=2045-02-01&end_date=2045-02-28&_embed=true', { as });
        expect(listed.body.events.map((e: { id: number }) => e.id)).toContain(event.id);
        expect(shown(ok(listed))).toEqual([]);
      }
    });

    it("is not in a batch's answers, of events or of another's RSVPs", async () => {
      const rsvps = `${NS}/events/${event.id}/rsvps`;
      const batch = (as: Role, requests: unknown[]) => s.post('/batch/v1', { requests }, { fromRoot: true, as });
      const mine = await batch('subscriber', [
        { method: 'PATCH', path: `${rsvps}/${taken.id}`, body: { guests: 0 } },
        { method: 'DELETE', path: `${rsvps}/${taken.id}` },
        { method: 'PATCH', path: `${rsvps}/${own.id}`, body: { guests: 0 } },
        { method: 'POST', path: rsvps, body: {} },
        { method: 'PATCH', path: `${NS}/events/${event.id}`, body: { featured: true } },
      ]);
      expect(mine.status, mine.text).toBe(207);
      const answers = mine.body.responses as { status: number; body: unknown }[];
      expect(answers.map((r) => r.status)).toEqual([404, 404, 200, 409, 403]);
      expect(shown(JSON.stringify(answers[2].body))).toEqual([OWN_NAME, 'Vantablack']);
      expect(shown(JSON.stringify(answers.filter((_, i) => i !== 2)))).toEqual([]);
      // The organiser's batch answers the event with its counts, no names.
      const organiser = await batch('author', [
        { method: 'PATCH', path: `${NS}/events/${event.id}`, body: { featured: true } },
      ]);
      expect(organiser.body.responses[0].body.rsvp).toMatchObject({ going: 1, waiting: 1 });
      expect(shown(organiser.text)).toEqual([]);
    });

    it('is not in iCalendar: the event, the feeds, and CalDAV, even for an administrator', async () => {
      for (const as of [null, 'administrator'] as const) {
        expect(shown(ok(await s.get(`/events/${event.id}.ics`, { as })))).toEqual([]);
        expect(shown(ok(await s.get('/events.ics?start_date=2045-02-01&end_date=2045-02-28', { as })))).toEqual([]);
      }
      const ics = await dav(s, 'GET', `/caldav/calendars/events/${event.id}.ics`, 'administrator');
      expect(ics.text).toContain('SUMMARY:Privacy workshop');
      expect(shown(ics.text)).toEqual([]);
      const report = await dav(
        s,
        'REPORT',
        '/caldav/calendars/events/',
        'administrator',
        `<c:calendar-query xmlns:d="DAV:" xmlns:c="urn:ietf:params:xml:ns:caldav"><d:prop><d:getetag/><c:calendar-data/></d:prop>
        <c:filter><c:comp-filter name="VCALENDAR"><c:comp-filter name="VEVENT"><c:time-range start="20450201T000000Z" end="20450301T000000Z"/></c:comp-filter></c:comp-filter></c:filter></c:calendar-query>`,
      );
      expect(report.status, report.text).toBe(207);
      expect(report.text).toContain('Privacy workshop');
      expect(shown(report.text)).toEqual([]);
    });

    it("is not in the change feed for anyone but an administrator, the event's organisers included", async () => {
      for (const as of [null, 'subscriber', 'author', 'editor'] as const) {
        const changes = await changesSince(s, '0-0', as);
        expect(changes.some((c) => c.type === 'event' && c.id === event.id)).toBe(true);
        expect(changes.filter((c) => c.type === 'rsvp')).toEqual([]);
        expect(shown(JSON.stringify(changes))).toEqual([]);
      }
      const admin = await changesSince(s, '0-0');
      expect(admin.filter((c) => c.type === 'rsvp').map((c) => c.id)).toEqual(
        expect.arrayContaining([taken.id, own.id]),
      );
    });

    it('is not in webhook messages of subscriptions without attendee data', async () => {
      // The event's creation and its RSVP writes, each to both subscriptions.
      await until(() => hook.received.filter((r) => r.body.includes('"changed":["rsvp"]')).length >= 2, 15_000);
      await new Promise((resolve) => setTimeout(resolve, 300));
      const types = new Set(hook.received.map((r) => JSON.parse(r.body).type as string));
      expect([...types].sort()).toEqual(['event.created', 'event.updated', 'venue.created']);
      expect(shown(hook.received.map((r) => r.body).join('\n'))).toEqual([]);
      const stored = await s.db.prisma.webhookDelivery.findMany({ select: { payload: true } });
      expect(shown(stored.map((d) => d.payload).join('\n'))).toEqual([]);
    });

    it('is not in kept answers: RSVP reads are never kept, and an organiser’s list never reaches another', async () => {
      const path = `/events/${event.id}/rsvps`;
      const lookups = async () => (await answerLookups.get()).values.reduce((sum, v) => sum + v.value, 0);
      expect(shown(ok(await s.get(path, { as: 'author' })))).not.toEqual([]);
      const before = await lookups();
      for (let i = 0; i < 3; i++) {
        const anonymous = await s.get(path, { as: null });
        expect(anonymous.body).toMatchObject({ rsvps: [], total: 0 });
      }
      // Not even looked up: nothing of an RSVP route is kept to be sent again.
      expect(await lookups()).toBe(before);
      await s.get(`/events/${event.id}`, { as: null });
      expect(await lookups()).toBe(before + 1);
      expect(shown(ok(await s.get(path, { as: 'contributor' })))).toEqual([]);
    });

    it('is not on the public pages', async () => {
      const page = await fetch(event.url);
      const html = await page.text();
      expect(page.status).toBe(200);
      expect(html).toContain('Privacy workshop');
      expect(html).toContain('"maximumAttendeeCapacity":1');
      expect(shown(html)).toEqual([]);
    });

    it('is not in the request log, nor in the log of a failed request', async () => {
      const lines: string[] = [];
      const sink = new Writable({
        write(chunk, _encoding, done) {
          lines.push(String(chunk));
          done();
        },
      });
      const logger = pino({ level: 'info' }, sink);
      const app = createApp({
        config: { ...loadConfig({ REST_PREFIX: '/wp-json' }), port: 0 },
        db: s.db,
        logger,
        onServerError: (err, req) => {
          logger.error({ err, method: req.method, url: req.url }, 'request failed');
        },
      });
      const server = app.listen(0, '127.0.0.1');
      await new Promise((resolve) => server.once('listening', resolve));
      const api = `http://127.0.0.1:${(server.address() as AddressInfo).port}/wp-json${NS}`;
      const send = (method: string, path: string, body?: unknown) =>
        fetch(`${api}${path}`, {
          method,
          headers: { authorization: `Bearer ${s.users.author.appPassword}`, 'content-type': 'application/json' },
          body: body === undefined ? undefined : JSON.stringify(body),
        });
      try {
        const logged = { name: 'Leopold Marginalia', email: 'lm.logged-5519@attendee.example' };
        const created = await send('POST', `/events/${event.id}/rsvps`, logged);
        expect(created.status).toBe(201);
        const { id } = (await created.json()) as { id: number };
        // Refused: the same address again (409, whose message names it to the organiser), a bad
        // field beside the name (400), another's address taken (409).
        expect((await send('POST', `/events/${event.id}/rsvps`, logged)).status).toBe(409);
        expect((await send('POST', `/events/${event.id}/rsvps`, { ...logged, guests: 'many' })).status).toBe(400);
        expect((await send('PATCH', `/events/${event.id}/rsvps/${id}`, { email: TAKEN.email })).status).toBe(409);
        expect((await send('GET', `/events/${event.id}/rsvps`)).status).toBe(200);
        expect((await send('DELETE', `/events/${event.id}/rsvps/${id}`)).status).toBe(200);
        await new Promise((resolve) => setTimeout(resolve, 50));
        const log = lines.join('');
        expect(log).toContain(`/events/${event.id}/rsvps`);
        for (const secret of [...SECRETS, logged.name, logged.email, 'Marginalia', 'lm.logged-5519']) {
          expect(log).not.toContain(secret);
        }
      } finally {
        await new Promise((resolve) => server.close(resolve));
      }
    });
  },
  { env: { WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true' } },
);
