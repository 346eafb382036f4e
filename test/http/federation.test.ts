// Federation over ActivityPub, end to end on loopback (docs/federation.md): an actor built with
// Fedify's own tools follows the calendar, and receives, signed, the Create, Update and Delete of
// each public event as the calendar publishes, changes, cancels and deletes it; activities to the
// calendar's inbox that are unsigned or wrongly signed are refused.
import { signRequest } from '@fedify/fedify';
import { Accept, Application, Create, Delete, Follow, Undo, Update } from '@fedify/vocab';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registry } from '../../src/metrics/registry.js';
import { databaseKinds } from '../setup/databases.js';
import { fedifyActor, type ReceivedActivity, rsaPair } from '../setup/fedify-actor.js';
import { federatedInstance } from '../setup/federated-instance.js';

const AS = { accept: 'application/activity+json' };

/** Waits until `found` finds something among what the actor received (a few seconds at most). */
async function arrival<T>(find: () => T | undefined, what: string): Promise<T> {
  for (let i = 0; i < 100; i++) {
    const found = find();
    if (found !== undefined) return found;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`nothing arrived: ${what}`);
}

describe.each(databaseKinds)('federation on %s', (kind) => {
  let a: Awaited<ReturnType<typeof federatedInstance>>;
  let alice: Awaited<ReturnType<typeof fedifyActor>>;
  const activityOf = (type: new (...args: never[]) => unknown, objectId?: string) => () =>
    alice.received.find(
      (r): r is ReceivedActivity =>
        r.activity instanceof type && (objectId === undefined || r.activity.objectId?.href === objectId),
    );

  beforeAll(async () => {
    a = await federatedInstance(kind);
    alice = await fedifyActor();
  });
  afterAll(async () => {
    await alice.close();
    await a.close();
  });

  it('answers WebFinger for acct:events@<host> with the actor, and NodeInfo', async () => {
    const host = new URL(a.origin).host;
    const finger = await fetch(`${a.origin}/.well-known/webfinger?resource=acct:events@${host}`);
    expect(finger.status).toBe(200);
    const links = ((await finger.json()) as { links: { rel: string; href?: string }[] }).links;
    expect(links.find((l) => l.rel === 'self')?.href).toBe(a.actorId);
    const wellKnown = (await (await fetch(`${a.origin}/.well-known/nodeinfo`)).json()) as {
      links: { rel: string; href: string }[];
    };
    // The calendar is the server's application actor (FEP-2677), as Mobilizon looks for it.
    expect(wellKnown.links).toContainEqual({
      rel: 'https://www.w3.org/ns/activitystreams#Application',
      href: a.actorId,
    });
    const nodeInfo = (await (await fetch(wellKnown.links[0].href)).json()) as { protocols: string[] };
    expect(nodeInfo.protocols).toEqual(['activitypub']);
  });

  it('serves the actor as an Application that @fedify/vocab reads, with RSA and Ed25519 keys', async () => {
    const response = await fetch(a.actorId, { headers: AS });
    expect(response.status).toBe(200);
    const json = (await response.json()) as Record<string, any>;
    const actor = await Application.fromJsonLd(json);
    expect(actor.id?.href).toBe(a.actorId);
    expect(actor.preferredUsername).toBe('events');
    expect(actor.inboxId?.href).toBe(a.inbox);
    expect(actor.endpoints?.sharedInbox?.href).toBe(a.sharedInbox);
    expect(actor.followersId?.href).toBe(`${a.actorId}/followers`);
    expect(actor.outboxId?.href).toBe(`${a.actorId}/outbox`);
    // Mobilizon and Gancio read `publicKey.publicKeyPem` (draft-cavage's key, `#main-key`).
    expect(json.publicKey.id).toBe(`${a.actorId}#main-key`);
    expect(json.publicKey.publicKeyPem).toMatch(/^-----BEGIN PUBLIC KEY-----/);
    const methods = [];
    for await (const m of actor.getAssertionMethods()) methods.push(m);
    expect(methods).toHaveLength(2);
  });

  it('keeps one key pair for every instance that asks at once', async () => {
    const { loadKeyPairs } = await import('../../src/federation/keys.js');
    const pairs = await Promise.all([loadKeyPairs(a.db.prisma), loadKeyPairs(a.db.prisma)]);
    const [rows] = await a.db.prisma.$queryRaw<{ n: number }[]>`SELECT count(*)::int AS n FROM federation_keys`;
    expect(rows.n).toBe(2);
    expect(pairs[0]).toHaveLength(2);
  });

  it('refuses an unsigned activity and one signed with a key that is not the actor’s', async () => {
    const follow = {
      '@context': 'https://www.w3.org/ns/activitystreams',
      id: `${alice.origin}/follows/forged`,
      type: 'Follow',
      actor: alice.actorId.href,
      object: a.actorId,
    };
    const body = JSON.stringify(follow);
    const unsigned = await fetch(a.inbox, {
      method: 'POST',
      headers: { 'content-type': 'application/activity+json' },
      body,
    });
    expect(unsigned.status).toBe(401);
    // Signed, claiming alice's key, with a key of someone else's.
    const other = await rsaPair();
    const forged = await signRequest(
      new Request(a.inbox, { method: 'POST', headers: { 'content-type': 'application/activity+json' }, body }),
      other.privateKey,
      new URL(`${alice.actorId.href}#main-key`),
      { spec: 'draft-cavage-http-signatures-12' },
    );
    const wrong = await fetch(forged);
    expect(wrong.status).toBe(401);
    const [{ n }] = await a.db.prisma.$queryRaw<{ n: number }[]>`SELECT count(*)::int AS n FROM federation_followers`;
    expect(n).toBe(0);
  });

  it('accepts a signed Follow, and sends the follower a signed Accept', async () => {
    const ctx = alice.context();
    const follow = new Follow({
      id: new URL(`${alice.origin}/follows/1`),
      actor: alice.actorId,
      object: new URL(a.actorId),
    });
    await ctx.sendActivity({ identifier: 'alice' }, { id: new URL(a.actorId), inboxId: new URL(a.inbox) }, follow, {
      immediate: true,
    });
    const accept = await arrival(activityOf(Accept), 'an Accept');
    expect(accept.signature).toMatch(/keyId="[^"]+#main-key"/);
    expect(accept.activity.actorId?.href).toBe(a.actorId);
    const followers = (await (await fetch(`${a.actorId}/followers`, { headers: AS })).json()) as { totalItems: number };
    expect(followers.totalItems).toBe(1);
  });

  it('sends a Create, Updates and a Delete as an event is published, changed, cancelled and deleted', async () => {
    const created = await a.rest('POST', '/events', {
      title: 'Winter Jazz Night',
      description: '<p>Bring <strong>friends</strong>.</p>',
      start_date: '2031-12-12 19:30',
      end_date: '2031-12-12 22:30',
      timezone: 'America/New_York',
      venue: {
        venue: 'Blue Note Hall',
        address: '131 W 3rd St',
        city: 'New York',
        zip: '10012',
        country: 'United States',
      },
      tags: ['jazz'],
    });
    expect(created.status).toBe(201);
    const id = created.body?.id as number;
    const objectId = `${a.origin}/federation/events/${id}`;
    a.nudge();
    const create = await arrival(activityOf(Create, objectId), 'a Create');
    expect(create.signature).toMatch(/rsa-sha256/);
    const event = create.json.object as Record<string, any>;
    expect(event).toMatchObject({
      type: 'Event',
      name: 'Winter Jazz Night',
      content: '<p>Bring <strong>friends</strong>.</p>',
      startTime: '2031-12-12T19:30:00-05:00',
      endTime: '2031-12-12T22:30:00-05:00',
      timezone: 'America/New_York',
      'ical:status': 'CONFIRMED',
      url: created.body?.url,
    });
    expect(event.location).toMatchObject({
      type: 'Place',
      name: 'Blue Note Hall',
      address: {
        type: 'PostalAddress',
        streetAddress: '131 W 3rd St',
        addressLocality: 'New York',
        postalCode: '10012',
      },
    });
    expect(event.tag).toContainEqual({ type: 'Hashtag', name: '#jazz' });

    expect((await a.rest('PATCH', `/events/${id}`, { title: 'Winter Jazz Night, second set' })).status).toBe(200);
    a.nudge();
    const renamed = await arrival(
      () =>
        alice.received.find(
          (r) =>
            r.activity instanceof Update &&
            (r.json.object as { name?: string }).name === 'Winter Jazz Night, second set',
        ),
      'an Update of the title',
    );
    expect(renamed.json.id).not.toBe(create.json.id);

    expect((await a.rest('PATCH', `/events/${id}`, { event_status: 'canceled' })).status).toBe(200);
    a.nudge();
    await arrival(
      () =>
        alice.received.find(
          (r) =>
            r.activity instanceof Update && (r.json.object as Record<string, unknown>)['ical:status'] === 'CANCELLED',
        ),
      'an Update that cancels',
    );

    expect((await a.rest('DELETE', `/events/${id}`)).status).toBe(200);
    a.nudge();
    const deleted = await arrival(activityOf(Delete, objectId), 'a Delete');
    expect(deleted.json.object).toMatchObject({ id: objectId, type: 'Tombstone' });
    // Mobilizon deletes its copy once the event's URL answers 410 Gone.
    expect((await fetch(objectId, { headers: AS })).status).toBe(410);
    expect(a.errors).toEqual([]);
    expect(alice.errors).toEqual([]);
    // /metrics: the attempts by outcome, and the queue (empty once all is delivered).
    const metrics = await registry.metrics();
    expect(metrics).toMatch(/^federation_delivery_attempts_total\{outcome="delivered"\} [1-9]/m);
    expect(metrics).toMatch(/^federation_queue_depth 0$/m);
  });

  it('forgets a follower that sends Undo of its Follow', async () => {
    const ctx = alice.context();
    const follow = new Follow({
      id: new URL(`${alice.origin}/follows/1`),
      actor: alice.actorId,
      object: new URL(a.actorId),
    });
    const undo = new Undo({ id: new URL(`${alice.origin}/undos/1`), actor: alice.actorId, object: follow });
    await ctx.sendActivity({ identifier: 'alice' }, { id: new URL(a.actorId), inboxId: new URL(a.inbox) }, undo, {
      immediate: true,
    });
    const followers = (await (await fetch(`${a.actorId}/followers`, { headers: AS })).json()) as { totalItems: number };
    expect(followers.totalItems).toBe(0);
  });
});

describe.each(databaseKinds)('federation with follows approved by hand on %s', (kind) => {
  it('keeps a Follow waiting, sends no Accept, and does not count it a follower', async () => {
    const a = await federatedInstance(kind, { FEDERATION_APPROVE_FOLLOWS: '1' });
    const alice = await fedifyActor();
    try {
      const actor = (await (await fetch(a.actorId, { headers: AS })).json()) as Record<string, unknown>;
      expect(actor.manuallyApprovesFollowers).toBe(true);
      const follow = new Follow({
        id: new URL(`${alice.origin}/follows/2`),
        actor: alice.actorId,
        object: new URL(a.actorId),
      });
      await alice
        .context()
        .sendActivity({ identifier: 'alice' }, { id: new URL(a.actorId), inboxId: new URL(a.inbox) }, follow, {
          immediate: true,
        });
      const rows = await a.db.prisma.$queryRaw<{ accepted: boolean }[]>`SELECT accepted FROM federation_followers`;
      expect(rows).toEqual([{ accepted: false }]);
      const [{ n }] = await a.db.prisma.$queryRaw<
        { n: number }[]
      >`SELECT count(*)::int AS n FROM federation_deliveries`;
      expect(n).toBe(0);
      const followers = (await (await fetch(`${a.actorId}/followers`, { headers: AS })).json()) as {
        totalItems: number;
      };
      expect(followers.totalItems).toBe(0);
    } finally {
      await alice.close();
      await a.close();
    }
  });
});
