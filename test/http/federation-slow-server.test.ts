// One slow remote server does not hold back the others (src/federation/deliver.ts, PER_HOST): a
// follower's server on loopback that takes requests and never answers, beside an actor built with
// Fedify's tools; as the calendar publishes events, the actor gets every Create at once while the
// slow server holds no more than PER_HOST of the instance's attempts.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Create, Follow } from '@fedify/vocab';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PER_HOST } from '../../src/federation/deliver.js';
import { databaseKinds } from '../setup/databases.js';
import { fedifyActor } from '../setup/fedify-actor.js';
import { federatedInstance } from '../setup/federated-instance.js';

/** A server that reads each request and never answers, counting those it holds at once. */
async function hangingServer() {
  let open = 0;
  let most = 0;
  let seen = 0;
  const server = http.createServer((req) => {
    seen++;
    open++;
    most = Math.max(most, open);
    req.resume();
    req.socket.once('close', () => {
      open--;
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    origin,
    stats: () => ({ most, seen }),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => {
          resolve();
        });
      }),
  };
}

describe.each(databaseKinds)('a slow remote server on %s', (kind) => {
  let a: Awaited<ReturnType<typeof federatedInstance>>;
  let alice: Awaited<ReturnType<typeof fedifyActor>>;
  let slow: Awaited<ReturnType<typeof hangingServer>>;
  beforeAll(async () => {
    // Attempts at the slow server last 10 s before they fail: far longer than the others may take.
    a = await federatedInstance(kind, { FEDERATION_TIMEOUT_SECONDS: '10' });
    alice = await fedifyActor();
    slow = await hangingServer();
  });
  afterAll(async () => {
    // The slow server first: the attempts it holds end at once, and the worker stops without waiting.
    await slow.close();
    await alice.close();
    await a.close();
  });

  it('holds at most PER_HOST attempts while another follower gets every event at once', async () => {
    await alice
      .context()
      .sendActivity(
        { identifier: 'alice' },
        { id: new URL(a.actorId), inboxId: new URL(a.inbox) },
        new Follow({ id: new URL(`${alice.origin}/follows/1`), actor: alice.actorId, object: new URL(a.actorId) }),
        { immediate: true },
      );
    // Three followers on the slow server, each with an inbox of its own (no shared inbox).
    for (const n of [1, 2, 3]) {
      await a.db.prisma.$executeRaw`
        INSERT INTO federation_followers (actor_id, inbox, shared_inbox, follow_id, accepted)
        VALUES (${`${slow.origin}/users/${n}`}, ${`${slow.origin}/users/${n}/inbox`}, NULL, ${`${slow.origin}/f/${n}`}, true)`;
    }
    const ids: number[] = [];
    for (let i = 0; i < 8; i++) {
      const created = await a.rest('POST', '/events', {
        title: `Slow server ${i}`,
        start_date: '2031-06-01 19:00',
        end_date: '2031-06-01 21:00',
      });
      expect(created.status).toBe(201);
      ids.push(created.body?.id as number);
    }
    a.nudge();
    const started = Date.now();
    const creates = () =>
      new Set(
        alice.received.filter((r) => r.activity instanceof Create).map((r) => (r.json.object as { id: string }).id),
      );
    while (creates().size < ids.length && Date.now() - started < 8000) {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    // Every Create reached the actor well within one attempt's time limit at the slow server: none
    // of them waited for it.
    expect(creates().size).toBe(ids.length);
    expect(Date.now() - started).toBeLessThan(5000);
    // The slow server was asked, and never held more than PER_HOST attempts at once.
    expect(slow.stats().seen).toBeGreaterThan(0);
    expect(slow.stats().most).toBeLessThanOrEqual(PER_HOST);
    expect(alice.errors).toEqual([]);
  });
});
