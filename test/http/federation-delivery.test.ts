// Deliveries of activities (src/federation/deliver.ts, dispatch.ts): per remote server, at most
// PER_HOST attempts in flight and a back-off shared by its deliveries; one object's activities in
// order at one inbox; and, with several instances on PostgreSQL, each change dispatched once, each
// delivery leased once, one key pair made, one compare-and-swap winning.
import type { webcrypto } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { openDatabase, type Database } from '../../src/db/client.js';
import { enqueueDeliveries } from '../../src/federation/deliveries.js';
import { attempt, leaseDue, PER_HOST } from '../../src/federation/deliver.js';
import { dispatchEventChanges } from '../../src/federation/dispatch.js';
import { loadKeyPairs } from '../../src/federation/keys.js';
import { DatabaseKvStore } from '../../src/federation/kv-store.js';
import { databaseKinds, openTestDatabase, type TestDatabase } from '../setup/databases.js';
import { itOnPostgres } from '../setup/each-database.js';
import { rsaPair } from '../setup/fedify-actor.js';
import { insertEvent } from '../factories.js';
import { settled } from '../setup/feed.js';

const SETTINGS = { allowPrivateAddresses: true, timeoutSeconds: 1, retryBaseMs: 60_000 };
const SITE = 'https://events.example.org';
const DISPATCH = {
  urls: { site: SITE, root: `${SITE}/wp-json`, base: `${SITE}/wp-json/calendar/events/v1` },
  siteZone: 'UTC',
  currency: { symbol: '$', position: 'prefix' as const },
};

const delivery = (n: number, inbox: string, objectId = `${SITE}/federation/events/${n}`) => ({
  activityId: `${objectId}#create-${n}`,
  objectId,
  inbox,
  payload: { id: `${objectId}#create-${n}` },
});

describe.each(databaseKinds)('federation delivery on %s', (kind) => {
  let t: TestDatabase;
  let db: Database;
  beforeAll(async () => {
    t = await openTestDatabase(kind);
    db = t.db;
  });
  afterAll(async () => {
    await t.drop();
  });
  beforeEach(async () => {
    await db.prisma.$executeRaw`DELETE FROM federation_deliveries`;
  });

  it('leases no more than PER_HOST deliveries of one server, and the other servers’ all the same', async () => {
    const slow = Array.from({ length: 10 }, (_, i) => delivery(i + 1, 'https://slow.example/inbox'));
    const other = [delivery(100, 'https://other.example/inbox'), delivery(101, 'https://other.example/inbox')];
    await enqueueDeliveries(db.prisma, [...slow, ...other]);
    const first = await leaseDue(db, 64, SETTINGS);
    expect(first.filter((d) => d.host === 'slow.example')).toHaveLength(PER_HOST);
    expect(first.filter((d) => d.host === 'other.example')).toHaveLength(2);
    // The slow server's attempts still in flight: none more of it.
    expect(await leaseDue(db, 64, SETTINGS)).toEqual([]);
  });

  it('sends one object’s activities to one inbox in order: a second waits for the first', async () => {
    const objectId = `${SITE}/federation/events/7`;
    await enqueueDeliveries(db.prisma, [
      { ...delivery(1, 'https://a.example/inbox', objectId), activityId: `${objectId}#create-1` },
      { ...delivery(2, 'https://a.example/inbox', objectId), activityId: `${objectId}#update-2` },
    ]);
    const leased = await leaseDue(db, 64, SETTINGS);
    expect(leased.map((d) => JSON.parse(d.payload) as { id: string }).map((p) => p.id)).toEqual([
      `${objectId}#create-1`,
    ]);
  });

  it('pushes back every pending delivery of a server that failed, to its retry time', async () => {
    // Nothing listens on port 9 of loopback: the connection is refused at once.
    await enqueueDeliveries(db.prisma, [
      delivery(1, 'http://127.0.0.1:9/inbox'),
      delivery(2, 'http://127.0.0.1:9/other'),
    ]);
    const [leased] = await leaseDue(db, 1, SETTINGS);
    const pair = await rsaPair();
    await attempt(
      db,
      leased,
      { keyId: new URL(`${SITE}/federation/actors/events#main-key`), privateKey: pair.privateKey },
      SETTINGS,
    );
    const rows = await db.prisma.$queryRaw<{ state: string; last_error: string | null; wait_s: number }[]>`
      SELECT state, last_error, extract(epoch FROM next_attempt_at - now())::float8 AS wait_s
      FROM federation_deliveries ORDER BY id`;
    expect(rows.map((r) => r.state)).toEqual(['pending', 'pending']);
    expect(rows[0].last_error).toMatch(/ECONNREFUSED|refused/i);
    // The first retry is the base delay, ±25 %: both wait about that long now.
    for (const r of rows) expect(r.wait_s).toBeGreaterThan(40);
    expect(await leaseDue(db, 64, SETTINGS)).toEqual([]);
  });

  it('refuses a private address unless allowed', async () => {
    await enqueueDeliveries(db.prisma, [delivery(1, 'http://127.0.0.1:9/inbox')]);
    const [leased] = await leaseDue(db, 1, SETTINGS);
    const pair = await rsaPair();
    await attempt(
      db,
      leased,
      { keyId: new URL(`${SITE}/k`), privateKey: pair.privateKey },
      {
        ...SETTINGS,
        allowPrivateAddresses: false,
      },
    );
    const [row] = await db.prisma.$queryRaw<{ last_error: string }[]>`SELECT last_error FROM federation_deliveries`;
    expect(row.last_error).toMatch(/private, loopback or link-local/);
  });

  itOnPostgres(
    kind,
    'dispatches each change once and leases each delivery once with two instances at once',
    'two connections',
    async () => {
      const second = await openDatabase({ databaseUrl: t.url, dataDir: '', poolSize: 5 });
      try {
        await db.prisma.$executeRaw`
        INSERT INTO federation_followers (actor_id, inbox, shared_inbox, follow_id, accepted)
        VALUES ('https://a.example/users/1', 'https://a.example/users/1/inbox', 'https://a.example/inbox', 'f1', true),
               ('https://b.example/users/2', 'https://b.example/users/2/inbox', NULL, 'f2', true)
        ON CONFLICT DO NOTHING`;
        const ids: number[] = [];
        for (let i = 0; i < 6; i++) ids.push((await insertEvent(db, { title: `Parallel ${i}` })).id);
        // The dispatchers read only changes older than every open transaction of the server's.
        await settled({ db });
        await Promise.all([
          dispatchEventChanges(db, DISPATCH),
          dispatchEventChanges(second, DISPATCH),
          dispatchEventChanges(db, DISPATCH),
        ]);
        while ((await dispatchEventChanges(db, DISPATCH)) > 0);
        const rows = await db.prisma.$queryRaw<{ activity_id: string; inbox: string }[]>`
        SELECT activity_id, inbox FROM federation_deliveries ORDER BY id`;
        // One Create per event and inbox: a.example's shared inbox once, b.example's actor's own.
        expect(rows).toHaveLength(ids.length * 2);
        expect(rows.every((r) => r.activity_id.includes('#create-'))).toBe(true);
        const leases = await Promise.all([leaseDue(db, 64, SETTINGS), leaseDue(second, 64, SETTINGS)]);
        const leasedIds = leases.flat().map((d) => d.id);
        expect(new Set(leasedIds).size).toBe(leasedIds.length);
      } finally {
        await second.close();
      }
    },
  );

  itOnPostgres(
    kind,
    'makes one key pair when two instances ask at once, and one compare-and-swap wins',
    'two connections',
    async () => {
      const second = await openDatabase({ databaseUrl: t.url, dataDir: '', poolSize: 5 });
      try {
        await db.prisma.$executeRaw`DELETE FROM federation_keys`;
        const [mine, theirs] = await Promise.all([loadKeyPairs(db.prisma), loadKeyPairs(second.prisma)]);
        const jwk = async (key: webcrypto.CryptoKey) => JSON.stringify(await crypto.subtle.exportKey('jwk', key));
        expect(await jwk(mine[0].publicKey)).toBe(await jwk(theirs[0].publicKey));
        expect(await jwk(mine[1].publicKey)).toBe(await jwk(theirs[1].publicKey));
        const stores = [new DatabaseKvStore(db.prisma), new DatabaseKvStore(second.prisma)];
        await stores[0].set(['count'], 1);
        const swapped = await Promise.all(stores.map((s, i) => s.cas(['count'], 1, 10 + i)));
        expect(swapped.filter(Boolean)).toHaveLength(1);
        const absent = await Promise.all(stores.map((s, i) => s.cas(['fresh'], undefined, i)));
        expect(absent.filter(Boolean)).toHaveLength(1);
      } finally {
        await second.close();
      }
    },
  );
});
