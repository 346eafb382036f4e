// The calendar's followers as administrators manage them (services/followers.ts), end to end on
// loopback: an actor built with Fedify's own tools follows a calendar that approves follows by
// hand; the administrator lists the follow, approves it (the follower receives a signed Accept),
// removes it (a signed Reject), and rejects another (a Reject). Two approvals at once on PostgreSQL
// queue one Accept. Every answer is checked against the document.
import { Accept, Follow, Reject } from '@fedify/vocab';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Role } from '../../src/auth/roles.js';
import { assertConforms } from '../setup/contract.js';
import { databaseKinds } from '../setup/databases.js';
import { itOnPostgres } from '../setup/each-database.js';
import { fedifyActor, type ReceivedActivity } from '../setup/fedify-actor.js';
import { federatedInstance } from '../setup/federated-instance.js';
import { startServer } from '../setup/server.js';

type Instance = Awaited<ReturnType<typeof federatedInstance>>;
type Actor = Awaited<ReturnType<typeof fedifyActor>>;

/** Waits until `find` finds something (a few seconds at most). */
async function arrival<T>(find: () => T | undefined, what: string): Promise<T> {
  for (let i = 0; i < 100; i++) {
    const found = find();
    if (found !== undefined) return found;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`nothing arrived: ${what}`);
}

/** A request to the instance's REST API as `as`, its answer checked against the document. */
async function call(a: Instance, method: string, path: string, as: Role | null = 'administrator') {
  const response = await fetch(`${a.api}${path}`, {
    method,
    headers: as ? { authorization: `Bearer ${a.users[as].appPassword}` } : {},
  });
  const text = await response.text();
  const body = text ? (JSON.parse(text) as Record<string, any>) : undefined;
  const [route, search] = path.split('?');
  assertConforms({
    method,
    path: route,
    search: search ? `?${search}` : '',
    status: response.status,
    headers: response.headers,
    body,
  });
  return { status: response.status, body: body ?? {}, headers: response.headers };
}

/** `actor` follows the calendar with a signed Follow; answers the Follow's id. */
async function follow(a: Instance, actor: Actor, n: number) {
  const id = new URL(`${actor.origin}/follows/${n}`);
  await actor
    .context()
    .sendActivity(
      { identifier: 'alice' },
      { id: new URL(a.actorId), inboxId: new URL(a.inbox) },
      new Follow({ id, actor: actor.actorId, object: new URL(a.actorId) }),
      { immediate: true },
    );
  return id.href;
}

const answerTo =
  (actor: Actor, type: typeof Accept | typeof Reject, followId: string) => (): ReceivedActivity | undefined =>
    actor.received.find((r) => r.activity instanceof type && (r.json.object as { id?: string }).id === followId);

describe.each(databaseKinds)('the calendar’s followers on %s', (kind) => {
  let a: Instance;
  let alice: Actor;
  let bob: Actor;
  beforeAll(async () => {
    a = await federatedInstance(kind, { FEDERATION_APPROVE_FOLLOWS: '1' });
    alice = await fedifyActor();
    bob = await fedifyActor();
  });
  afterAll(async () => {
    await alice.close();
    await bob.close();
    await a.close();
  });

  it('lists a waiting follow, approves it with a signed Accept, then removes it with a signed Reject', async () => {
    const followId = await follow(a, alice, 1);
    const waiting = await call(a, 'GET', '/followers?state=waiting');
    expect(waiting.status).toBe(200);
    expect(waiting.body.followers).toEqual([
      expect.objectContaining({ actor: alice.actorId.href, state: 'waiting', shared_inbox: `${alice.origin}/inbox` }),
    ]);
    expect(waiting.headers.get('x-wp-total')).toBe('1');
    const id = waiting.body.followers[0].id as number;
    expect((await call(a, 'GET', '/followers?state=accepted')).body.total).toBe(0);

    const approved = await call(a, 'POST', `/followers/${id}/approve`);
    expect(approved.status).toBe(200);
    expect(approved.body).toMatchObject({ id, state: 'accepted' });
    a.nudge();
    const accept = await arrival(answerTo(alice, Accept, followId), 'an Accept');
    expect(accept.signature).toMatch(/keyId="[^"]+#main-key"/);
    expect(accept.activity.actorId?.href).toBe(a.actorId);
    // Counted among the followers the calendar publishes, and approved once only.
    const collection = (await (
      await fetch(`${a.actorId}/followers`, { headers: { accept: 'application/activity+json' } })
    ).json()) as { totalItems: number };
    expect(collection.totalItems).toBe(1);
    const again = await call(a, 'POST', `/followers/${id}/approve`);
    expect(again.status).toBe(409);
    expect(again.body.code).toBe('rest_follower_accepted');
    expect((await call(a, 'POST', `/followers/${id}/reject`)).body.code).toBe('rest_follower_accepted');

    const removed = await call(a, 'DELETE', `/followers/${id}`);
    expect(removed.status).toBe(200);
    expect(removed.body).toMatchObject({ id, actor: alice.actorId.href, state: 'accepted' });
    a.nudge();
    const reject = await arrival(answerTo(alice, Reject, followId), 'a Reject');
    expect(reject.signature).toMatch(/rsa-sha256/);
    expect((await call(a, 'GET', '/followers')).body.total).toBe(0);
    expect((await call(a, 'DELETE', `/followers/${id}`)).body.code).toBe('rest-follower-not-found');
    expect(a.errors).toEqual([]);
  });

  it('rejects a waiting follow: a signed Reject reaches the actor, and the follow is forgotten', async () => {
    const followId = await follow(a, bob, 2);
    const [row] = (await call(a, 'GET', '/followers?state=waiting')).body.followers as { id: number }[];
    const rejected = await call(a, 'POST', `/followers/${row.id}/reject`);
    expect(rejected.status).toBe(200);
    expect(rejected.body).toMatchObject({ actor: bob.actorId.href, state: 'waiting' });
    a.nudge();
    await arrival(answerTo(bob, Reject, followId), 'a Reject');
    expect(bob.received.some((r) => r.activity instanceof Accept)).toBe(false);
    expect((await call(a, 'GET', '/followers')).body.total).toBe(0);
    const twice = await call(a, 'POST', `/followers/${row.id}/reject`);
    expect(twice.status).toBe(404);
    expect(twice.body.code).toBe('rest-follower-not-found');
    expect((await call(a, 'POST', '/followers/987654/approve')).status).toBe(404);
  });

  it('is for administrators only, and refused calls change nothing', async () => {
    await a.db.prisma.$executeRaw`
      INSERT INTO federation_followers (actor_id, inbox, shared_inbox, follow_id, accepted)
      VALUES ('https://roles.example/users/1', 'https://roles.example/users/1/inbox', NULL, 'https://roles.example/f/1', false)`;
    const [{ id }] = await a.db.prisma.$queryRaw<{ id: number }[]>`
      SELECT id FROM federation_followers WHERE actor_id = 'https://roles.example/users/1'`;
    for (const as of [null, 'editor'] as const) {
      const want = as === null ? 401 : 403;
      expect((await call(a, 'GET', '/followers', as)).status).toBe(want);
      expect((await call(a, 'POST', `/followers/${id}/approve`, as)).status).toBe(want);
      expect((await call(a, 'POST', `/followers/${id}/reject`, as)).status).toBe(want);
      expect((await call(a, 'DELETE', `/followers/${id}`, as)).status).toBe(want);
    }
    const rows = await a.db.prisma.$queryRaw<{ accepted: boolean }[]>`
      SELECT accepted FROM federation_followers WHERE id = ${id}`;
    expect(rows).toEqual([{ accepted: false }]);
    const [{ n }] = await a.db.prisma.$queryRaw<{ n: number }[]>`
      SELECT count(*)::int AS n FROM federation_deliveries WHERE object_id = 'https://roles.example/f/1'`;
    expect(n).toBe(0);
    await a.db.prisma.$executeRaw`DELETE FROM federation_followers WHERE id = ${id}`;
  });

  itOnPostgres(kind, 'queues one Accept when two approvals of a follow come at once', 'parallel requests', async () => {
    // The follower's inbox refuses connections: the Accept stays queued, retried, for the count.
    await a.db.prisma.$executeRaw`
      INSERT INTO federation_followers (actor_id, inbox, shared_inbox, follow_id, accepted)
      VALUES ('https://race.example/users/1', 'http://127.0.0.1:9/users/1/inbox', NULL, 'https://race.example/f/1', false)`;
    const [{ id }] = await a.db.prisma.$queryRaw<{ id: number }[]>`
      SELECT id FROM federation_followers WHERE actor_id = 'https://race.example/users/1'`;
    const answers = await Promise.all(Array.from({ length: 4 }, () => call(a, 'POST', `/followers/${id}/approve`)));
    expect(answers.map((r) => r.status).sort()).toEqual([200, 409, 409, 409]);
    const rows = await a.db.prisma.$queryRaw<{ activity_id: string }[]>`
      SELECT activity_id FROM federation_deliveries WHERE object_id = 'https://race.example/f/1'`;
    expect(rows).toHaveLength(1);
    expect(rows[0].activity_id).toContain('#accepts/');
    // An approval and a removal at once: one of them happens first, the other finds what it left.
    await a.db.prisma.$executeRaw`UPDATE federation_followers SET accepted = false WHERE id = ${id}`;
    const [approval, removal] = await Promise.all([
      call(a, 'POST', `/followers/${id}/approve`),
      call(a, 'DELETE', `/followers/${id}`),
    ]);
    expect(removal.status).toBe(200);
    expect([200, 404]).toContain(approval.status);
    expect((await call(a, 'GET', '/followers')).body.total).toBe(0);
    await a.db.prisma.$executeRaw`DELETE FROM federation_deliveries WHERE object_id = 'https://race.example/f/1'`;
  });
});

describe.each(databaseKinds)('the calendar’s followers with federation off on %s', (kind) => {
  it('lists them, and refuses to decide what it could not send', async () => {
    const s = await startServer(kind);
    try {
      await s.db.prisma.$executeRaw`
        INSERT INTO federation_followers (actor_id, inbox, shared_inbox, follow_id, accepted)
        VALUES ('https://off.example/users/1', 'https://off.example/users/1/inbox', NULL, 'https://off.example/f/1', false)`;
      const list = await s.get('/followers');
      expect(list.status).toBe(200);
      const id = (list.body.followers as { id: number }[])[0].id;
      for (const [method, path] of [
        ['POST', `/followers/${id}/approve`],
        ['POST', `/followers/${id}/reject`],
        ['DELETE', `/followers/${id}`],
      ]) {
        const r = await s.request(method, path);
        expect(r.status).toBe(409);
        expect(r.body.code).toBe('rest_federation_off');
      }
      expect((await s.get('/followers')).body.total).toBe(1);
    } finally {
      await s.close();
    }
  });
});
