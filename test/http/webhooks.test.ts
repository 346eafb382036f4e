// Webhooks: administrators subscribe a URL to kinds of change; every such change reaches it as a
// message signed per the Standard Webhooks specification (verified here with the `standardwebhooks`
// library), retried until the receiver answers 2xx, never followed through a redirect; a receiver
// that keeps failing disables its subscription; several workers on one database send each attempt
// once. The receiver is a real HTTP server on loopback.
import { Webhook } from 'standardwebhooks';
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import { purgeExpired } from '../../src/db/housekeeping.js';
import { DEFAULT_CURRENCY } from '../../src/lib/cost.js';
import { dispatchChanges } from '../../src/webhooks/dispatch.js';
import { PER_SUBSCRIPTION } from '../../src/webhooks/deliver.js';
import { startWebhooks, type WebhookWorker } from '../../src/webhooks/worker.js';
import { describeEachDatabase, itOnPostgres } from '../setup/each-database.js';
import { photo } from '../setup/images.js';
import { receiver } from '../setup/receiver.js';
import { startTestWorker } from '../setup/webhook-worker.js';

const until = async (check: () => boolean, ms = 10_000) => {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
};

const event = (title: string) => ({ title, start_date: '2046-01-01 20:00', end_date: '2046-01-01 21:00' });

describeEachDatabase(
  'webhooks',
  (s, kind) => {
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
      hook.answer(() => ({ status: 200 }));
      for (const w of (await s.get('/webhooks')).body.webhooks) await s.request('DELETE', `/webhooks/${w.id}`);
    });

    it('keeps delivering to a healthy receiver while many others hang', async () => {
      const hanging = await Promise.all(Array.from({ length: 20 }, () => receiver()));
      try {
        for (const h of hanging) {
          h.answer(() => undefined); // never answers: each attempt runs into its timeout (4 s here)
          expect((await s.post('/webhooks', { url: h.url, events: ['tag.*'] })).status).toBe(201);
        }
        expect((await s.post('/webhooks', { url: hook.url, events: ['tag.*'] })).status).toBe(201);
        for (let i = 0; i < 10; i++) await s.post('/tags', { name: `Busy night ${kind} ${i}` });
        const started = Date.now();
        workers.push(startTestWorker(s));
        await until(() => hook.received.length >= 10, 3_000);
        // Well within one timeout of the hanging ones: none of them held the healthy one's turn.
        expect(Date.now() - started).toBeLessThan(3_000);
        // No hanging receiver has more than its share of attempts in flight.
        for (const h of hanging) expect(h.received.length).toBeLessThanOrEqual(PER_SUBSCRIPTION);
      } finally {
        await Promise.all(workers.map((w) => w.stop()));
        workers = [];
        await Promise.all(hanging.map((h) => h.close()));
      }
    }, 30_000);

    it('lets administrators manage subscriptions, and shows the secret only once', async () => {
      const created = await s.post('/webhooks', { url: hook.url, events: ['event.*'], description: 'cache' });
      expect(created.status).toBe(201);
      expect(created.body.secret).toMatch(/^whsec_[A-Za-z0-9+/=]{40,}$/);
      expect(created.headers.get('location')).toBe(created.body.rest_url);
      const read = await s.get(`/webhooks/${created.body.id}`);
      expect(read.body).not.toHaveProperty('secret');
      expect(JSON.stringify((await s.get('/webhooks')).body)).not.toContain(created.body.secret);
      expect(
        (await s.request('PATCH', `/webhooks/${created.body.id}`, { body: { enabled: false } })).body.enabled,
      ).toBe(false);
      for (const role of ['editor', null] as const) {
        expect((await s.get('/webhooks', { as: role })).status).toBe(role ? 403 : 401);
        expect((await s.post('/webhooks', { url: hook.url, events: ['*'] }, { as: role })).status).toBe(
          role ? 403 : 401,
        );
      }
      expect((await s.post('/webhooks', { url: hook.url, events: ['event.renamed'] })).status).toBe(400);
      expect((await s.post('/webhooks', { url: 'ftp://example.org/x', events: ['*'] })).status).toBe(400);
      expect((await s.post('/webhooks', { url: 'http://user:pw@93.184.215.14/', events: ['*'] })).status).toBe(400);
      const deleted = await s.request('DELETE', `/webhooks/${created.body.id}`);
      expect(deleted.body.id).toBe(created.body.id);
      // The URL is kept as it will be called: a scheme in capitals is still http.
      const capitals = await s.post('/webhooks', { url: hook.url.replace('http://', 'HTTP://'), events: ['*'] });
      expect(capitals.body.url).toBe(hook.url);
      // A disabled subscription sends nothing, a test message neither.
      await s.request('PATCH', `/webhooks/${capitals.body.id}`, { body: { enabled: false } });
      const ping = await s.post(`/webhooks/${capitals.body.id}/ping`);
      expect([ping.status, ping.body.code]).toEqual([409, 'rest_webhook_disabled']);
      expect((await s.get(`/webhooks/${created.body.id}`)).status).toBe(404);
    });

    it('sends each change of the kinds asked for, signed so that the library verifies it', async () => {
      const { body: sub } = await s.post('/webhooks', { url: hook.url, events: ['event.created', 'venue.*'] });
      workers.push(startTestWorker(s));
      const { body: created } = await s.post('/events', event('Hooked'));
      await s.post('/tags', { name: 'not-wanted' });
      await until(() => hook.received.length >= 1);
      const [message] = hook.received;
      const verified = new Webhook(sub.secret).verify(message.body, {
        'webhook-id': String(message.headers['webhook-id']),
        'webhook-timestamp': String(message.headers['webhook-timestamp']),
        'webhook-signature': String(message.headers['webhook-signature']),
      }) as { type: string; data: { type: string; id: number; action: string; object: { title: string } } };
      expect(verified.type).toBe('event.created');
      expect(verified.data).toMatchObject({
        type: 'event',
        id: created.id,
        action: 'created',
        object: { title: 'Hooked' },
      });
      // A forged body does not verify.
      expect(() =>
        new Webhook(sub.secret).verify(message.body.replace('Hooked', 'Forged'), {
          'webhook-id': String(message.headers['webhook-id']),
          'webhook-timestamp': String(message.headers['webhook-timestamp']),
          'webhook-signature': String(message.headers['webhook-signature']),
        }),
      ).toThrow();
      await new Promise((resolve) => setTimeout(resolve, 300));
      // The tag was not asked for; the event's update was not either.
      expect(hook.received.map((r) => JSON.parse(r.body).type)).toEqual(['event.created']);
    });

    it('tells of a cancellation as an event.updated that says what changed', async () => {
      await s.post('/webhooks', { url: hook.url, events: ['event.updated'] });
      const { body: created } = await s.post('/events', event('Called off by hook'));
      workers.push(startTestWorker(s));
      await s.post(`/events/${created.id}`, { event_status: 'canceled', event_status_reason: 'Flood' });
      await until(() => hook.received.length >= 1);
      const message = JSON.parse(hook.received[0].body);
      expect(message).toMatchObject({
        type: 'event.updated',
        data: {
          id: created.id,
          action: 'updated',
          changed: ['event_status', 'event_status_reason'],
          object: { event_status: 'canceled', event_status_reason: 'Flood' },
        },
      });
    });

    it("sends the media library's changes to those who ask for them", async () => {
      await s.post('/webhooks', { url: hook.url, events: ['media.*'] });
      workers.push(startTestWorker(s));
      const upload = await s.request('POST', '/media', {
        raw: { contentType: 'image/png', data: await photo(40, 30, { format: 'png' }) },
      });
      await s.request('PATCH', `/media/${upload.body.id}`, { body: { alt_text: 'A square' } });
      await s.post('/events', event('Not media'));
      await until(() => hook.received.length >= 2);
      await new Promise((resolve) => setTimeout(resolve, 300));
      const messages = hook.received.map(
        (r) => JSON.parse(r.body) as { type: string; data: { id: number; object: { alt_text: string } } },
      );
      expect(messages.map((m) => [m.type, m.data.id])).toEqual([
        ['media.created', upload.body.id],
        ['media.updated', upload.body.id],
      ]);
      expect(messages[1].data.object.alt_text).toBe('A square');
    });

    it('rotates a secret with an overlap: messages verify with the old and the new secrets, then the new one only', async () => {
      const { body: sub } = await s.post('/webhooks', { url: hook.url, events: ['tag.created'] });
      workers.push(startTestWorker(s));
      const verifies = (secret: string, message: (typeof hook.received)[number]) => {
        try {
          new Webhook(secret).verify(message.body, {
            'webhook-id': String(message.headers['webhook-id']),
            'webhook-timestamp': String(message.headers['webhook-timestamp']),
            'webhook-signature': String(message.headers['webhook-signature']),
          });
          return true;
        } catch {
          return false;
        }
      };
      const next = async (name: string) => {
        const count = hook.received.length;
        await s.post('/tags', { name: `${name} ${kind}` });
        await until(() => hook.received.length > count);
        return hook.received[count];
      };
      const first = await s.post(`/webhooks/${sub.id}/secret`, { overlap_seconds: 3600 });
      expect(first.status).toBe(200);
      expect(first.body.secret).toMatch(/^whsec_/);
      expect(first.body.secret).not.toBe(sub.secret);
      expect(first.body.previous_secrets_valid_until_utc).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/);
      expect((await s.get(`/webhooks/${sub.id}`)).body).not.toHaveProperty('secret');
      // Two rotations at once: neither drops a secret the other kept.
      const [second, third] = await Promise.all([
        s.post(`/webhooks/${sub.id}/secret`, {}),
        s.post(`/webhooks/${sub.id}/secret`, { overlap_seconds: 600 }),
      ]);
      const during = await next('During the overlap');
      expect(String(during.headers['webhook-signature']).split(' ')).toHaveLength(4);
      for (const secret of [sub.secret, first.body.secret, second.body.secret, third.body.secret]) {
        expect(verifies(secret, during)).toBe(true);
      }
      // A leaked secret: dropped at once with the others.
      const fresh = await s.post(`/webhooks/${sub.id}/secret`, { overlap_seconds: 0 });
      expect(fresh.body.previous_secrets_valid_until_utc).toBeNull();
      const after = await next('After the overlap');
      expect(verifies(fresh.body.secret, after)).toBe(true);
      for (const secret of [sub.secret, first.body.secret, second.body.secret, third.body.secret]) {
        expect(verifies(secret, after)).toBe(false);
      }
      expect((await s.post(`/webhooks/${sub.id}/secret`, { overlap_seconds: 604801 })).status).toBe(400);
      // No body at all: the default overlap.
      const plain = await s.post(`/webhooks/${sub.id}/secret`);
      expect([plain.status, plain.body.previous_secrets_valid_until_utc === null]).toEqual([200, false]);
      expect((await s.post(`/webhooks/999999/secret`, {})).status).toBe(404);
      expect((await s.post(`/webhooks/${sub.id}/secret`, {}, { as: 'editor' })).status).toBe(403);
    });

    it('retries a failing receiver until it answers 2xx: three failures, then the fourth attempt, then nothing', async () => {
      await s.post('/webhooks', { url: hook.url, events: ['venue.created'] });
      hook.answer((_r, n) => (n <= 3 ? { status: 503, body: 'busy' } : { status: 204 }));
      workers.push(startTestWorker(s));
      const { body: venue } = await s.post('/venues', { venue: 'Retried Hall' });
      await until(() => hook.received.length >= 4);
      await new Promise((resolve) => setTimeout(resolve, 500));
      expect(hook.received).toHaveLength(4);
      expect(new Set(hook.received.map((r) => r.headers['webhook-id'])).size).toBe(1);
      expect(JSON.parse(hook.received[3].body).data.id).toBe(venue.id);
      const subs = (await s.get('/webhooks')).body.webhooks;
      const deliveries = (await s.get(`/webhooks/${subs[0].id}/deliveries`)).body;
      expect(deliveries.total).toBe(1);
      expect(deliveries.deliveries[0]).toMatchObject({ state: 'delivered', attempts: 4 });
      expect(deliveries.deliveries[0].attempt_log.map((a: { status_code: number }) => a.status_code)).toEqual([
        503, 503, 503, 204,
      ]);
      expect(deliveries.deliveries[0].attempt_log[0].response_excerpt).toBe('busy');
    });

    it('does not follow redirects, keeps only the start of an answer, and pings on demand', async () => {
      const { body: sub } = await s.post('/webhooks', { url: hook.url, events: ['tag.created'] });
      hook.answer((_r, n) => {
        if (n === 1) return { status: 307, headers: { location: 'http://169.254.169.254/latest/meta-data/' } };
        if (n === 2) return { status: 500, body: 'nul \u0000 byte' };
        return { status: 200, body: 'x'.repeat(5000) };
      });
      workers.push(startTestWorker(s));
      const ping = await s.post(`/webhooks/${sub.id}/ping`);
      expect([ping.status, ping.body.event_type, ping.body.state]).toEqual([202, 'webhook.ping', 'pending']);
      await until(() => hook.received.length >= 3);
      expect(JSON.parse(hook.received[0].body).type).toBe('webhook.ping');
      let log: { status_code: number; response_excerpt: string }[] = [];
      for (let i = 0; i < 50 && log.length < 3; i++) {
        await new Promise((resolve) => setTimeout(resolve, 20));
        log = (await s.get(`/webhooks/${sub.id}/deliveries`)).body.deliveries[0].attempt_log;
      }
      expect(log.map((a) => a.status_code)).toEqual([307, 500, 200]);
      // An answer the database could not store as it is (NUL) is kept with the NUL replaced.
      expect(log[1].response_excerpt).toBe('nul \uFFFD byte');
      expect(log[2].response_excerpt.length).toBeLessThanOrEqual(1024);
    });

    it('gives up on a receiver that does not answer within the time limit, and tries again later', async () => {
      const { body: sub } = await s.post('/webhooks', { url: hook.url, events: ['tag.created'] });
      hook.answer((_r, n) => (n === 1 ? undefined : { status: 204 }));
      workers.push(startTestWorker(s));
      await s.post(`/webhooks/${sub.id}/ping`);
      await until(() => hook.received.length >= 2);
      let delivery = (await s.get(`/webhooks/${sub.id}/deliveries`)).body.deliveries[0];
      for (let i = 0; i < 50 && delivery.state !== 'delivered'; i++) {
        await new Promise((resolve) => setTimeout(resolve, 20));
        delivery = (await s.get(`/webhooks/${sub.id}/deliveries`)).body.deliveries[0];
      }
      expect(delivery.attempt_log.map((a: { status_code: number | null }) => a.status_code)).toEqual([null, 204]);
      expect(delivery.attempt_log[0].error).toMatch(/no answer within 2000 ms/);
      expect(delivery.attempt_log[0].latency_ms).toBeGreaterThanOrEqual(1900);
    });

    it('disables a subscription whose receiver fails for good, and sends again once it is enabled', async () => {
      const { body: sub } = await s.post('/webhooks', { url: hook.url, events: ['organizer.created'] });
      hook.answer(() => ({ status: 500 }));
      workers.push(startTestWorker(s, 0.2));
      await s.post('/organizers', { organizer: 'Never reached' });
      await until(() => hook.received.length >= 10);
      let read = (await s.get(`/webhooks/${sub.id}`)).body;
      for (let i = 0; i < 50 && read.enabled; i++) {
        await new Promise((resolve) => setTimeout(resolve, 50));
        read = (await s.get(`/webhooks/${sub.id}`)).body;
      }
      expect(read.enabled).toBe(false);
      expect(read.disabled_reason).toMatch(/failed 10 times/);
      expect(hook.received).toHaveLength(10);
      const [failed] = (await s.get(`/webhooks/${sub.id}/deliveries`)).body.deliveries;
      expect(failed).toMatchObject({ state: 'failed', attempts: 10 });
      // Nothing is sent while it is disabled; once enabled, the next change is.
      await s.post('/organizers', { organizer: 'While disabled' });
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(hook.received).toHaveLength(10);
      hook.answer(() => ({ status: 200 }));
      const enabled = await s.request('PATCH', `/webhooks/${sub.id}`, { body: { enabled: true } });
      expect([enabled.body.enabled, enabled.body.disabled_reason]).toEqual([true, null]);
      await s.post('/organizers', { organizer: 'After enabling' });
      await until(() => hook.received.some((r) => r.body.includes('After enabling')));
    });

    it('forgets messages sent or given up once the retention has passed, and keeps those still to send', async () => {
      const { body: sub } = await s.post('/webhooks', { url: hook.url, events: ['tag.created'] });
      workers.push(startTestWorker(s));
      await s.post(`/webhooks/${sub.id}/ping`);
      await until(() => hook.received.length >= 1);
      for (
        let i = 0;
        i < 50 && (await s.get(`/webhooks/${sub.id}/deliveries`)).body.deliveries[0].state === 'pending';
        i++
      ) {
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      await Promise.all(workers.map((w) => w.stop()));
      workers = [];
      const pending = await s.post(`/webhooks/${sub.id}/ping`);
      // A retention that ended a day from now: everything sent is old enough.
      await purgeExpired(s.db, { authWindowSeconds: 900, idempotencyHours: 24, changesRetentionDays: -1 });
      const left = (await s.get(`/webhooks/${sub.id}/deliveries`)).body.deliveries;
      expect(left.map((d: { id: number; state: string }) => [d.id, d.state])).toEqual([[pending.body.id, 'pending']]);
    });

    it('says so when dispatch fell behind the change feed retention, and goes on from it', async () => {
      await s.post('/webhooks', { url: hook.url, events: ['tag.created'] });
      // As if dispatch had failed for longer than the retention, and housekeeping had pruned since.
      await s.post('/tags', { name: 'before-falling-behind' });
      const [{ xid }] = await s.db.prisma.$queryRaw<{ xid: string }[]>`
        SELECT xid::text FROM changes ORDER BY xid DESC, seq DESC LIMIT 1`;
      await s.db.prisma.$executeRaw`UPDATE changes_pruned SET xid = ${xid}::xid8, seq = 9223372036854775807`;
      await s.db.prisma.$executeRaw`UPDATE webhook_dispatch SET xid = '0', seq = 0`;
      const reports: Error[] = [];
      const settings = {
        urls: { site: s.origin, root: `${s.origin}/wp-json`, base: s.base },
        siteZone: 'UTC',
        currency: DEFAULT_CURRENCY,
      };
      await dispatchChanges(s.db, settings, 200, (err) => reports.push(err));
      expect(reports.map((e) => e.message)).toEqual([
        'webhook dispatch fell behind the change feed retention: the changes pruned were not delivered',
      ]);
      const [position] = await s.db.prisma.$queryRaw<{ xid: string }[]>`SELECT xid::text FROM webhook_dispatch`;
      expect(BigInt(position.xid) >= BigInt(xid)).toBe(true);
      // What comes after is delivered as ever.
      workers.push(startTestWorker(s));
      const tag = (await s.post('/tags', { name: 'after-falling-behind' })).body;
      await until(() => hook.received.some((r) => (JSON.parse(r.body) as { data: { id: number } }).data.id === tag.id));
      expect(reports).toHaveLength(1);
    });

    it('skips the rounds of writes while no subscription exists, and serves one made elsewhere from its next poll', async () => {
      // A worker that polled once and found no subscription: writes nudge it for nothing. The
      // subscription is then made without its knowledge (as on another instance), and a write
      // nudges it: no round, so nothing is sent before its next poll, which finds the
      // subscription and sends the change, once; later writes are sent as they come.
      // Its first poll's round done: it has moved the dispatch position past a change made before.
      const position = async () =>
        JSON.stringify(await s.db.prisma.$queryRaw`SELECT xid::text, seq::text FROM webhook_dispatch`);
      await s.post('/events', event('Made before'));
      const before = await position();
      const worker = startWebhooks(
        s.db,
        {
          payload: {
            urls: { site: s.origin, root: `${s.origin}/wp-json`, base: s.base },
            siteZone: 'UTC',
            currency: DEFAULT_CURRENCY,
          },
          delivery: { allowPrivateTargets: true, timeoutSeconds: 2, retryBaseMs: 20 },
          pollMs: 1_500,
        },
        (err) => {
          throw err;
        },
      );
      workers.push(worker);
      for (const end = Date.now() + 10_000; (await position()) === before;) {
        if (Date.now() > end) throw new Error('the first poll did not dispatch');
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      await s.post('/webhooks', { url: hook.url, events: ['event.created'] });
      const first = (await s.post('/events', event('Made unseen'))).body.id as number;
      worker.nudge();
      await new Promise((resolve) => setTimeout(resolve, 400));
      expect(hook.received).toHaveLength(0);
      await until(() => hook.received.length >= 1);
      const second = (await s.post('/events', event('Made after the poll'))).body.id as number;
      worker.nudge();
      await until(() => hook.received.length >= 2);
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(hook.received.map((r) => JSON.parse(r.body).data.id as number)).toEqual([first, second]);
    });

    itOnPostgres(
      kind,
      'sends each message once with two workers on one database',
      'two workers need two connections',
      async () => {
        await s.post('/webhooks', { url: hook.url, events: ['event.created'] });
        workers.push(startTestWorker(s), startTestWorker(s));
        const created = await Promise.all(Array.from({ length: 20 }, (_, i) => s.post('/events', event(`Burst ${i}`))));
        await until(() => hook.received.length >= 20);
        await new Promise((resolve) => setTimeout(resolve, 500));
        const ids = hook.received.map((r) => JSON.parse(r.body).data.id as number);
        expect(ids.sort((a, b) => a - b)).toEqual(created.map((r) => r.body.id as number).sort((a, b) => a - b));
      },
    );
  },
  { env: { WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true' } },
);

describeEachDatabase(
  'webhook targets on private addresses',
  (s) => {
    it('are refused unless WEBHOOK_ALLOW_PRIVATE_TARGETS is set', async () => {
      for (const url of [
        'http://127.0.0.1:9/hook',
        'http://localhost/hook',
        'http://[::1]/hook',
        'http://169.254.169.254/latest/meta-data/',
        'http://10.1.2.3/',
        'http://[::ffff:192.168.0.1]/',
      ]) {
        const r = await s.post('/webhooks', { url, events: ['*'] });
        expect([url, r.status, Object.keys(r.body.data?.params ?? {})]).toEqual([url, 400, ['url']]);
      }
      expect((await s.post('/webhooks', { url: 'http://93.184.215.14/hook', events: ['*'] })).status).toBe(201);
    });
  },
  { kinds: ['pglite'] },
);
