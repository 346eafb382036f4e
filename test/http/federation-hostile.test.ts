// What anyone may send the federation's routes: wrong JSON, bodies too large, cursors and names that
// lead nowhere. Each gets a 4xx (or the first page), never a 5xx. And keys are not fetched from
// private addresses unless FEDERATION_ALLOW_PRIVATE_ADDRESSES says so.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Follow } from '@fedify/vocab';
import { databaseKinds } from '../setup/databases.js';
import { fedifyActor } from '../setup/fedify-actor.js';
import { federatedInstance } from '../setup/federated-instance.js';

const AS = { accept: 'application/activity+json' };

describe.each(databaseKinds)('federation routes given bad input on %s', (kind) => {
  let a: Awaited<ReturnType<typeof federatedInstance>>;
  beforeAll(async () => {
    a = await federatedInstance(kind);
  });
  afterAll(async () => {
    await a.close();
  });

  it('answers a 4xx to inbox bodies that are not activities, or too large', async () => {
    const post = (body: string | Buffer, type = 'application/activity+json') =>
      fetch(a.inbox, { method: 'POST', headers: { 'content-type': type }, body });
    for (const body of ['{', 'null', '[]', '{"type":"Follow"}', '']) {
      const r = await post(body);
      expect(r.status, body).toBeGreaterThanOrEqual(400);
      expect(r.status, body).toBeLessThan(500);
    }
    const large = await post(Buffer.alloc(1024 * 1024 + 1, 0x20));
    expect(large.status).toBe(413);
    const shared = await fetch(a.sharedInbox, { method: 'POST', headers: { 'content-type': 'text/plain' }, body: 'x' });
    expect(shared.status).toBeGreaterThanOrEqual(400);
    expect(shared.status).toBeLessThan(500);
  });

  it('answers the first page for cursors it never gave', async () => {
    for (const path of ['followers', 'outbox']) {
      for (const cursor of ['abc', '-1', '99999999999999999999', '1e9', '%00']) {
        const r = await fetch(`${a.actorId}/${path}?cursor=${cursor}`, { headers: AS });
        expect(r.status, `${path} ${cursor}`).toBe(200);
      }
    }
  });

  it('answers 404 for actors, handles and events that do not exist, and 400 for a WebFinger without a resource', async () => {
    const host = new URL(a.origin).host;
    expect((await fetch(`${a.origin}/federation/actors/nobody`, { headers: AS })).status).toBe(404);
    expect((await fetch(`${a.origin}/.well-known/webfinger?resource=acct:nobody@${host}`)).status).toBe(404);
    expect((await fetch(`${a.origin}/.well-known/webfinger`)).status).toBe(400);
    expect((await fetch(`${a.origin}/event/no-such-event/`, { headers: AS })).status).toBe(404);
  });
});

describe.each(databaseKinds)('federation without private addresses on %s', (kind) => {
  it('does not fetch a key from a loopback address, so a Follow signed there is refused', async () => {
    const a = await federatedInstance(kind, { FEDERATION_ALLOW_PRIVATE_ADDRESSES: 'false' });
    const alice = await fedifyActor();
    try {
      const follow = new Follow({
        id: new URL(`${alice.origin}/follows/9`),
        actor: alice.actorId,
        object: new URL(a.actorId),
      });
      await expect(
        alice
          .context()
          .sendActivity({ identifier: 'alice' }, { id: new URL(a.actorId), inboxId: new URL(a.inbox) }, follow, {
            immediate: true,
          }),
      ).rejects.toThrow(/401/);
      const [{ n }] = await a.db.prisma.$queryRaw<{ n: number }[]>`SELECT count(*)::int AS n FROM federation_followers`;
      expect(n).toBe(0);
    } finally {
      await alice.close();
      await a.close();
    }
  });
});
