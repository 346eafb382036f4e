// Answers kept for anonymous reads (src/http/answer-cache.ts): sent again byte for byte while the
// data is unchanged, never once a write has been acknowledged, through this instance or another;
// and the data versions they are kept by (migration data_versions, src/db/data-version.ts).
import type { AddressInfo } from 'node:net';
import { expect, it } from 'vitest';
import { createApp } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { purgeExpired } from '../../src/db/housekeeping.js';
import { answerLookups } from '../../src/metrics/registry.js';
import { submit } from '../setup/submissions.js';
import { describeEachDatabase } from '../setup/each-database.js';
import type { TestServer } from '../setup/server.js';

// Counted rate limits write to their table now and then; none here, so that nothing but the tests' own writes moves the data.
// Submissions taken (test/setup/submissions.ts sends each from an address of its own).
const NO_LIMITS = {
  RATE_LIMIT_READS: '0',
  RATE_LIMIT_WRITES: '0',
  SUBMISSIONS: 'anyone',
  SUBMISSION_POW_COST: '20',
  TRUST_PROXY: 'loopback',
};

/** The tables no answer is built from: writing them keeps every answer (the migration's list). */
const BOOKKEEPING = [
  '_prisma_migrations',
  'account_creates',
  'app_passwords',
  'auth_failures',
  'auth_known_clients',
  'data_changes_due',
  'data_versions',
  'dav_objects',
  'federation_deliveries',
  'federation_dispatch',
  'federation_events',
  'federation_followers',
  'federation_keys',
  'federation_kv',
  // The calendars followed and the events each brought: read by administrators only, whose answers
  // are never kept (the events themselves are in `events`, watched).
  'federation_remote_events',
  'federation_sources',
  'idempotency_keys',
  'mail_outbox',
  'mail_requests',
  'pending_counts',
  'pending_counts_due',
  'rate_limits',
  // Public submissions (services/submissions/): their answers are never kept, nor anonymous but
  // by a token; the proofs, the day's counts and the signing keys are the defences'.
  'service_secrets',
  'submission_challenges',
  'submission_requests',
  'submissions',
  'webhook_attempts',
  'webhook_deliveries',
  'webhook_dispatch',
  'webhook_subscriptions',
];

const lookups = async () => {
  const values = (await answerLookups.get()).values;
  const of = (result: string) => values.find((v) => v.labels.result === result)?.value ?? 0;
  return { hit: of('hit'), miss: of('miss') };
};

async function dataVersion(s: TestServer): Promise<bigint> {
  const [row] = await s.db.prisma.$queryRaw<
    { version: bigint }[]
  >`SELECT sum(version)::bigint AS version FROM data_versions`;
  return row.version;
}

/** Another instance of the service on the same database, answering plain fetches. */
async function secondInstance(s: TestServer) {
  const app = createApp({ config: { ...loadConfig({ ...NO_LIMITS }), port: 0 }, db: s.db });
  const server = app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/wp-json/calendar/events/v1`;
  return {
    get: async (path: string) => {
      const r = await fetch(`${base}${path}`);
      return { status: r.status, body: (await r.json()) as Record<string, unknown> };
    },
    close: async () => {
      await new Promise((resolve) => server.close(resolve));
      await app.close();
    },
  };
}

describeEachDatabase(
  'kept answers',
  (s, kind) => {
    let n = 0;
    const event = async () =>
      (
        await s.post('/events', {
          title: `Kept ${++n}`,
          start_date: '2033-01-01 10:00',
          end_date: '2033-01-01 11:00',
        })
      ).body as { id: number };

    it('sends an anonymous read the answer it kept, byte for byte, until a write changes the data', async () => {
      const e = await event();
      const before = await lookups();
      const built = await s.get(`/events/${e.id}`, { as: null });
      const kept = await s.get(`/events/${e.id}`, { as: null });
      expect(await lookups()).toEqual({ hit: before.hit + 1, miss: before.miss + 1 });
      expect(kept.text).toBe(built.text);
      for (const header of ['etag', 'last-modified', 'content-type', 'allow', 'link'])
        expect(kept.headers.get(header)).toBe(built.headers.get(header));
      // HEAD and a conditional GET are answered from it too.
      const etag = built.headers.get('etag')!;
      expect((await fetch(`${s.base}/events/${e.id}`, { method: 'HEAD' })).headers.get('etag')).toBe(etag);
      expect((await s.get(`/events/${e.id}`, { as: null, headers: { 'if-none-match': etag } })).status).toBe(304);
      // Another URL, language or host is another answer.
      const french = await s.get(`/events/${e.id}`, { as: null, locale: '/fr' });
      expect(french.body.rest_url).toContain('/fr/wp-json/');
      // A caller with credentials has every answer built.
      const counted = await lookups();
      await s.get(`/events/${e.id}`);
      expect(await lookups()).toEqual(counted);

      await s.request('PATCH', `/events/${e.id}`, { body: { title: 'Renamed' } });
      const after = await s.get(`/events/${e.id}`, { as: null });
      expect(after.body.title).toBe('Renamed');
      expect(after.headers.get('etag')).not.toBe(etag);
      // A change to what the answer embeds counts as much as one to the event.
      const venue = (await s.post('/venues', { venue: `Kept venue ${n}` })).body as { id: number };
      await s.request('PATCH', `/events/${e.id}`, { body: { venue: venue.id } });
      expect((await s.get(`/events/${e.id}`, { as: null })).body.venue.venue).toBe(`Kept venue ${n}`);
      await s.request('PATCH', `/venues/${venue.id}`, { body: { venue: 'Moved venue' } });
      expect((await s.get(`/events/${e.id}`, { as: null })).body.venue.venue).toBe('Moved venue');
    });

    it('keeps the namespace index for the second its list window defaults were made in', async () => {
      const read = async () => (await s.get('/', { as: null })).text;
      const second = () => Math.floor(Date.now() / 1000);
      // Two reads within one second get one answer (tried again when a second turned between them) ...
      let at: number;
      let first: string;
      for (;;) {
        at = second();
        first = await read();
        const again = await read();
        if (second() !== at) continue;
        expect(again).toBe(first);
        break;
      }
      // ... and a read in a later second another one.
      while (second() === at) await new Promise((resolve) => setTimeout(resolve, 50));
      expect(await read()).not.toBe(first);
    });

    it('builds the change feed every time: it holds changes back behind transactions that change no data', async () => {
      const before = await lookups();
      expect((await s.get('/changes', { as: null })).status).toBe(200);
      expect((await s.get('/changes', { as: null })).status).toBe(200);
      expect(await lookups()).toEqual({ hit: before.hit, miss: before.miss + 2 });
    });

    it('raises the data version once per writing transaction, and never for bookkeeping or reads', async () => {
      const start = await dataVersion(s);
      const venue = (await s.post('/venues', { venue: 'Versioned' })).body as { id: number };
      expect(await dataVersion(s)).toBe(start + 1n);
      await s.db.prisma.$transaction([
        s.db.prisma.venue.update({ where: { id: venue.id }, data: { city: 'One' } }),
        s.db.prisma.venue.update({ where: { id: venue.id }, data: { city: 'Two' } }),
      ]);
      expect(await dataVersion(s)).toBe(start + 2n);
      await s.get('/venues', { as: null });
      await s.db.prisma.$executeRaw`INSERT INTO rate_limits (key, points, expire) VALUES ('kept-answers', 1, 0)`;
      expect(await dataVersion(s)).toBe(start + 2n);
      // A write rolled back raises nothing.
      await expect(
        s.db.prisma.$transaction(async (tx) => {
          await tx.venue.update({ where: { id: venue.id }, data: { city: 'Three' } });
          throw new Error('rolled back');
        }),
      ).rejects.toThrow('rolled back');
      expect(await dataVersion(s)).toBe(start + 2n);
      // Housekeeping folds the row of a connection that is gone into row 0; the sum only gains the
      // one raise of its own pruning of the change feed (a write to a watched table).
      await s.db.prisma.$executeRaw`INSERT INTO data_versions (backend, version) VALUES (2147483000, 5)`;
      const beforeFold = await dataVersion(s);
      await purgeExpired(s.db, { authWindowSeconds: 900, idempotencyHours: 24, changesRetentionDays: 30 });
      expect(await dataVersion(s)).toBe(beforeFold + 1n);
      const gone = await s.db.prisma.$queryRaw<
        { n: number }[]
      >`SELECT count(*)::int AS n FROM data_versions WHERE backend = 2147483000`;
      expect(gone[0].n).toBe(0);
    });

    it('keeps its answers through a submission, which writes nothing anonymous readers see', async () => {
      // An answer that does not read the time (event lists do: RSVP closes, windows start now), so
      // that it outlives the second the submission takes.
      const path = '/venues?per_page=50';
      await s.get(path, { as: null });
      const first = await lookups();
      await s.get(path, { as: null });
      expect((await lookups()).hit, 'kept before').toBe(first.hit + 1);
      const start = await dataVersion(s);
      const r = await submit(s, { title: 'Kept through a submission', venue: { venue: 'Kept Hall' } });
      expect(r.status, r.text).toBe(202);
      expect(await dataVersion(s)).toBe(start);
      const before = await lookups();
      const list = await s.get(path, { as: null });
      expect(await lookups()).toEqual({ ...before, hit: before.hit + 1 });
      expect(list.text).not.toContain('Kept Hall');
      // Its approval publishes: a write anonymous readers see.
      await s.post(`/submissions/${r.body.id}/approve`, {}, { as: 'editor' });
      expect(await dataVersion(s)).toBeGreaterThan(start);
    });

    it('watches every table answers are built from', async () => {
      const tables = await s.db.prisma.$queryRaw<{ name: string; watched: boolean }[]>`
        SELECT c.relname::text AS name,
               EXISTS (SELECT 1 FROM pg_trigger t WHERE t.tgrelid = c.oid AND t.tgname = c.relname || '_data_changed') AS watched
        FROM pg_class c JOIN pg_namespace ns ON ns.oid = c.relnamespace
        WHERE ns.nspname = current_schema() AND c.relkind IN ('r', 'p') ORDER BY 1`;
      const unwatched = tables.filter((t) => !t.watched).map((t) => t.name);
      expect(unwatched).toEqual(BOOKKEEPING);
    });

    if (kind === 'postgresql') {
      it('raises the version of every one of parallel writers, none waiting for another', async () => {
        const venues = await Promise.all(
          Array.from(
            { length: 8 },
            async (_, i) => (await s.post('/venues', { venue: `Parallel ${i}` })).body as { id: number },
          ),
        );
        const start = await dataVersion(s);
        const answers = await Promise.all(
          venues.flatMap((venue) =>
            [1, 2, 3].map((round) => s.request('PATCH', `/venues/${venue.id}`, { body: { city: `Round ${round}` } })),
          ),
        );
        expect(answers.map((a) => a.status)).toEqual(answers.map(() => 200));
        expect(await dataVersion(s)).toBe(start + BigInt(answers.length));
      });

      it('never answers an anonymous read with data older than a write acknowledged through another instance', async () => {
        const other = await secondInstance(s);
        const events = await Promise.all(Array.from({ length: 4 }, () => event()));
        let writing = true;
        // Readers keep the other instance's answers warm and its data version questions in flight.
        const readers = Array.from({ length: 3 }, async () => {
          while (writing) for (const e of events) await other.get(`/events/${e.id}`);
        });
        try {
          // Each writer alone writes its event: after its write is acknowledged, a read through the
          // other instance must show exactly that title.
          const stale: string[] = [];
          await Promise.all(
            events.map(async (e) => {
              for (let round = 1; round <= 12; round++) {
                const title = `Event ${e.id} round ${round}`;
                const written = await s.request('PATCH', `/events/${e.id}`, { body: { title } });
                expect(written.status).toBe(200);
                const read = await other.get(`/events/${e.id}`);
                if (read.body.title !== title) stale.push(`${title}: read ${String(read.body.title)}`);
                const list = await other.get(`/events?start_date=2033-01-01&end_date=2033-01-02&per_page=50`);
                const listed = (list.body.events as { id: number; title: string }[]).find((x) => x.id === e.id);
                if (listed?.title !== title) stale.push(`${title}: listed ${String(listed?.title)}`);
              }
            }),
          );
          expect(stale).toEqual([]);
        } finally {
          writing = false;
          await Promise.all(readers);
          await other.close();
        }
      });
    }
  },
  { env: NO_LIMITS },
);
