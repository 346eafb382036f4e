// RSVPs in the change feed and webhooks (docs/decisions.md, "RSVP"), on both databases: an RSVP
// write is an update of its event that names `rsvp`, net of its transaction, with counts only; the
// RSVP itself is a change to administrators and to webhook subscriptions allowed attendee data,
// and to no one else. And the counts in the event's JSON-LD.
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { DEFAULT_CURRENCY } from '../../src/lib/cost.js';
import { startWebhooks, type WebhookWorker } from '../../src/webhooks/worker.js';
import { openRsvpEvent, rsvpFor } from '../setup/rsvp-events.js';
import { describeEachDatabase } from '../setup/each-database.js';
import { changesSince, feedEnd } from '../setup/feed.js';
import { receiver } from '../setup/receiver.js';
import type { TestServer } from '../setup/server.js';
import { startTestWorker } from '../setup/webhook-worker.js';

const NS = '/calendar/events/v1';

/** An event open to RSVP (test/setup/rsvp-events.ts) on this file's day, unless `body` moves it. */
const openEvent = (s: TestServer, rsvp: Record<string, unknown> = {}, body: Record<string, unknown> = {}) =>
  openRsvpEvent(s, rsvp, { start_date: '2044-06-10 19:00', end_date: '2044-06-10 21:00', ...body });

const until = async (check: () => boolean, ms = 10_000) => {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
};

describeEachDatabase(
  'RSVPs in the feed and webhooks',
  (s) => {
    it('is an update of its event naming rsvp, with counts and no names, and an RSVP change to administrators only', async () => {
      const event = await openEvent(s, { capacity: 5 });
      const cursor = await feedEnd(s);
      const taken = await rsvpFor(s, event.id, 'feedperson');
      for (const as of [null, 'subscriber', 'editor', 'author'] as const) {
        const changes = await changesSince(s, cursor, as);
        expect(changes.map((c) => [c.type, c.id, c.action, c.changed])).toEqual([
          ['event', event.id, 'updated', ['rsvp']],
        ]);
        expect(changes[0].object.rsvp).toMatchObject({ going: 1, remaining: 4 });
        expect(JSON.stringify(changes)).not.toContain('feedperson');
      }
      const admin = await changesSince(s, cursor);
      expect(admin.map((c) => [c.type, c.id, c.action])).toEqual([
        ['rsvp', taken.id, 'created'],
        ['event', event.id, 'updated'],
      ]);
      expect(admin[0].object).toMatchObject({ id: taken.id, event: event.id, name: 'feedperson', status: 'going' });
      // The event's fields are not news: a name changed moves no counts, and the event has no change.
      const renamed = await feedEnd(s);
      await s.request('PATCH', `/events/${event.id}/rsvps/${taken.id}`, {
        body: { name: 'feedperson2' },
        as: 'author',
      });
      expect(await changesSince(s, renamed, null)).toEqual([]);
      expect((await changesSince(s, renamed)).map((c) => [c.type, c.action])).toEqual([['rsvp', 'updated']]);
      // Cancelled: a tombstone for no one (it is kept, cancelled), an update of the RSVP and of the counts.
      const cancelled = await feedEnd(s);
      await s.request('DELETE', `/events/${event.id}/rsvps/${taken.id}`, { as: 'author' });
      const after = await changesSince(s, cancelled);
      expect(after.map((c) => [c.type, c.action, c.changed])).toEqual([
        ['rsvp', 'updated', []],
        ['event', 'updated', ['rsvp']],
      ]);
      expect(after[0].object.status).toBe('cancelled');
    });

    it('is one change of the event for a promotion, and none for RSVPs taken and undone in one batch', async () => {
      const event = await openEvent(s, { capacity: 1 });
      const first = await rsvpFor(s, event.id, 'promofirst');
      const waits = await rsvpFor(s, event.id, 'promowaits');
      const cursor = await feedEnd(s);
      await s.request('DELETE', `/events/${event.id}/rsvps/${first.id}`, { as: 'author' });
      const changes = await changesSince(s, cursor);
      expect(changes.filter((c) => c.type === 'event')).toMatchObject([{ id: event.id, changed: ['rsvp'] }]);
      expect(changes.filter((c) => c.type === 'rsvp')).toHaveLength(2);

      const batched = await feedEnd(s);
      const path = `${NS}/events/${event.id}/rsvps`;
      const r = await s.post(
        '/batch/v1',
        {
          validation: 'require-all-validate',
          requests: [
            { method: 'POST', path, body: { name: 'netzero', email: 'netzero@example.org' } },
            { method: 'POST', path: `${NS}/events/${event.id}`, body: { title: 'Renamed in the batch' } },
          ],
        },
        { fromRoot: true, as: 'author' },
      );
      expect(r.status, r.text).toBe(207);
      const id = r.body.responses[0].body.id as number;
      const undo = await s.post(
        '/batch/v1',
        { requests: [{ method: 'DELETE', path: `${path}/${id}` }] },
        { fromRoot: true, as: 'author' },
      );
      expect(undo.status, undo.text).toBe(207);
      // Two transactions: the first moved the counts (a waiting RSVP), the second put them back.
      const [one, two] = (await changesSince(s, batched, null)).map((c) => c.changed);
      expect([one, two]).toEqual([['rsvp'], ['rsvp']]);

      // Net of the transaction: a seat given up and taken again in one batch moves no count.
      const net = await feedEnd(s);
      const both = await s.post(
        '/batch/v1',
        {
          validation: 'require-all-validate',
          requests: [
            { method: 'PATCH', path: `${NS}/events/${event.id}`, body: { featured: true } },
            { method: 'DELETE', path: `${path}/${waits.id}` },
            { method: 'POST', path, body: { name: 'promowaits', email: 'promowaits@example.org' } },
          ],
        },
        { fromRoot: true, as: 'author' },
      );
      expect(both.status, both.text).toBe(207);
      expect(both.body.responses[2].body).toMatchObject({ id: waits.id, status: 'going' });
      expect((await changesSince(s, net, null)).map((c) => [c.id, c.changed])).toEqual([[event.id, []]]);
    });

    it('names both a status and a seat changed in one batch, in either order', async () => {
      const event = await openEvent(s, { capacity: 5 });
      const rsvps = `${NS}/events/${event.id}/rsvps`;
      const status = { method: 'PATCH', path: `${NS}/events/${event.id}`, body: { event_status: 'postponed' } };
      for (const [n, requests] of [
        [1, [status, { method: 'POST', path: rsvps, body: { name: 'bothone', email: 'bothone@example.org' } }]],
        [2, [{ method: 'POST', path: rsvps, body: { name: 'bothtwo', email: 'bothtwo@example.org' } }, status]],
      ] as const) {
        if (n === 2) await s.post(`/events/${event.id}`, { event_status: 'scheduled' });
        const cursor = await feedEnd(s);
        const r = await s.post(
          '/batch/v1',
          { validation: 'require-all-validate', requests },
          { fromRoot: true, as: 'author' },
        );
        expect(r.status, r.text).toBe(207);
        expect((await changesSince(s, cursor, null)).map((c) => c.changed)).toEqual([['event_status', 'rsvp']]);
      }
    });

    it("is an update of the series for a date that follows it, and the date's own counts move", async () => {
      const series = await openEvent(s, { capacity: 3 }, { recurrence: ['RRULE:FREQ=WEEKLY;COUNT=2'] });
      const dates = await s.get(`/events?post_parent=${series.id}&start_date=2044-06-01&end_date=2044-07-30`);
      const date = dates.body.events[1];
      const cursor = await feedEnd(s);
      await rsvpFor(s, date.id, 'seriesperson');
      const changes = await changesSince(s, cursor, null);
      expect(changes.map((c) => [c.id, c.changed])).toEqual([[series.id, ['rsvp']]]);
      expect((await s.get(`/events/${date.id}`)).body.rsvp.going).toBe(1);
    });

    it('names rsvp when the capacity changes, and shows the capacity in the JSON-LD while open', async () => {
      const event = await openEvent(s, { capacity: 4 });
      await rsvpFor(s, event.id, 'ldperson', { guests: 0 });
      const page = await s.get(`/events/${event.id}`, { as: null });
      expect(page.body.json_ld).toMatchObject({ maximumAttendeeCapacity: 4, remainingAttendeeCapacity: 3 });
      const cursor = await feedEnd(s);
      await s.post(`/events/${event.id}`, { rsvp: { capacity: 6, open: false } });
      const [change] = await changesSince(s, cursor, null);
      expect(change.changed).toEqual(['rsvp']);
      const closed = (await s.get(`/events/${event.id}`, { as: null })).body.json_ld;
      expect(closed.maximumAttendeeCapacity).toBe(6);
      expect(closed).not.toHaveProperty('remainingAttendeeCapacity');
      const unlimited = await openEvent(s);
      const ld = (await s.get(`/events/${unlimited.id}`, { as: null })).body.json_ld;
      expect(ld).not.toHaveProperty('maximumAttendeeCapacity');
      expect(ld).not.toHaveProperty('remainingAttendeeCapacity');
      // The public page carries the same JSON-LD.
      const html = await fetch(page.body.url);
      expect(await html.text()).toContain('"maximumAttendeeCapacity":6');
    });

    describeWebhooks(s);
  },
  { env: { WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true' } },
);

function describeWebhooks(s: TestServer) {
  let hook: Awaited<ReturnType<typeof receiver>>;
  let workers: WebhookWorker[] = [];
  beforeAll(async () => {
    hook = await receiver();
  });
  afterAll(() => hook.close());
  afterEach(async () => {
    await Promise.all(workers.map((w) => w.stop()));
    workers = [];
    hook.received.length = 0;
    for (const w of (await s.get('/webhooks')).body.webhooks) await s.request('DELETE', `/webhooks/${w.id}`);
  });

  it('refuses rsvp.* without attendee_data, on create and on update, and keeps it with it', async () => {
    const refused = await s.post('/webhooks', { url: hook.url, events: ['rsvp.*'] });
    expect(refused.status, refused.text).toBe(400);
    expect(refused.body.data.params).toHaveProperty('events');
    const all = await s.post('/webhooks', { url: hook.url, events: ['*'] });
    expect(all.status, all.text).toBe(201);
    expect(all.body.attendee_data).toBe(false);
    expect((await s.request('PATCH', `/webhooks/${all.body.id}`, { body: { events: ['rsvp.created'] } })).status).toBe(
      400,
    );
    const allowed = await s.post('/webhooks', { url: hook.url, events: ['rsvp.created'], attendee_data: true });
    expect(allowed.status, allowed.text).toBe(201);
    expect(allowed.body).toMatchObject({ attendee_data: true, events: ['rsvp.created'] });
    const withdraw = await s.request('PATCH', `/webhooks/${allowed.body.id}`, { body: { attendee_data: false } });
    expect(withdraw.status, withdraw.text).toBe(400);
    expect((await s.get(`/webhooks/${allowed.body.id}`)).body.attendee_data).toBe(true);
    const both = await s.request('PATCH', `/webhooks/${allowed.body.id}`, {
      body: { attendee_data: false, events: ['event.*'] },
    });
    expect(both.body).toMatchObject({ attendee_data: false, events: ['event.*'] });
    expect((await s.request('PATCH', '/webhooks/987654', { body: { attendee_data: false } })).status).toBe(404);
  });

  it('sends RSVP changes only to subscriptions allowed attendee data; the others get the counts', async () => {
    const counts = await receiver();
    try {
      await s.post('/webhooks', { url: counts.url, events: ['*'] });
      await s.post('/webhooks', { url: hook.url, events: ['rsvp.*', 'event.updated'], attendee_data: true });
      const event = await openEvent(s, { capacity: 2 });
      workers.push(startTestWorker(s));
      const rsvp = await rsvpFor(s, event.id, 'hookedperson');
      await until(() => hook.received.length >= 2 && counts.received.some((r) => r.body.includes('"event.updated"')));
      await new Promise((resolve) => setTimeout(resolve, 300));
      const types = (h: typeof hook) => h.received.map((r) => JSON.parse(r.body).type as string);
      // Up to four messages of a subscription are in flight at once: they may come in any order.
      expect(types(hook).sort()).toEqual(['event.updated', 'rsvp.created']);
      const message = JSON.parse(hook.received.find((r) => r.body.includes('"rsvp.created"'))!.body);
      expect(message.data).toMatchObject({
        type: 'rsvp',
        id: rsvp.id,
        action: 'created',
        object: { id: rsvp.id, event: event.id, name: 'hookedperson', email: 'hookedperson@example.org' },
      });
      expect(types(counts).sort()).toEqual(['event.created', 'event.updated']);
      const updated = JSON.parse(counts.received.find((r) => r.body.includes('"event.updated"'))!.body);
      expect(updated.data).toMatchObject({ id: event.id, changed: ['rsvp'], object: { rsvp: { going: 1 } } });
      expect(counts.received.map((r) => r.body).join('')).not.toContain('hookedperson');
      // The person's name corrected: the messages stored with the old one go, and the new one is sent.
      const stored = () => s.db.prisma.webhookDelivery.findMany({ where: { rsvpId: rsvp.id } });
      expect((await stored()).map((d) => d.payload).join('')).toContain('"name":"hookedperson"');
      await s.request('PATCH', `/events/${event.id}/rsvps/${rsvp.id}`, { body: { name: 'Hooked Anew' }, as: 'author' });
      await until(() => hook.received.some((r) => r.body.includes('"name":"Hooked Anew"')));
      const after = (await stored()).map((d) => d.payload).join('');
      expect(after).toContain('"name":"Hooked Anew"');
      expect(after).not.toContain('"name":"hookedperson"');
    } finally {
      await counts.close();
    }
  });

  it('forgets an RSVP message while it is being sent, and the attempt ends quietly', async () => {
    // A receiver that holds its first request until told to answer.
    let release: () => void = () => undefined;
    let held = false;
    const slow = http.createServer((req, res) => {
      req.resume();
      held = true;
      release = () => res.writeHead(200).end();
    });
    await new Promise<void>((resolve) => slow.listen(0, '127.0.0.1', resolve));
    const errors: unknown[] = [];
    const url = `http://127.0.0.1:${(slow.address() as AddressInfo).port}/hook`;
    try {
      await s.post('/webhooks', { url, events: ['rsvp.created'], attendee_data: true });
      workers.push(
        startWebhooks(
          s.db,
          {
            payload: {
              urls: { site: s.origin, root: `${s.origin}/wp-json`, base: s.base },
              siteZone: 'UTC',
              currency: DEFAULT_CURRENCY,
            },
            delivery: { allowPrivateTargets: true, timeoutSeconds: 2, retryBaseMs: 20 },
            pollMs: 50,
          },
          (err) => errors.push(err),
        ),
      );
      const event = await openEvent(s);
      const rsvp = await rsvpFor(s, event.id, 'heldperson');
      await until(() => held);
      // Erased meanwhile (here: deleted with its event): its message goes while the attempt runs.
      expect((await s.request('DELETE', `/events/${event.id}?force=true`)).status).toBe(200);
      expect(await s.db.prisma.webhookDelivery.count({ where: { rsvpId: rsvp.id } })).toBe(0);
      release();
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(errors).toEqual([]);
    } finally {
      slow.closeAllConnections();
      await new Promise((resolve) => slow.close(resolve));
    }
  });
}
