// Following another calendar (docs/federation.md, "Following other calendars"), end to end on
// loopback between two instances of the service: B's administrator follows A's actor through B's
// REST API; A accepts; then A's events, as they are published, changed, cancelled and deleted,
// become events on B with their source kept, waiting in B's moderation queue or published as B
// trusts A. Activities to B's inbox that are unsigned, or signed with a key that is not their
// actor's, are refused.
import { signRequest } from '@fedify/fedify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { databaseKinds } from '../setup/databases.js';
import { rsaPair } from '../setup/fedify-actor.js';
import { federatedInstance } from '../setup/federated-instance.js';
import { until } from '../setup/until.js';

type Instance = Awaited<ReturnType<typeof federatedInstance>>;

/** B's event made of A's event `id`, as B's administrator reads it (any status but the trash's unless asked). */
async function copyOf(b: Instance, a: Instance, id: number) {
  const rows = await b.db.prisma.$queryRaw<{ local_id: number }[]>`
    SELECT local_id FROM imported_items
    WHERE source = 'activitypub' AND kind = 'event' AND external_id = ${`${a.origin}/federation/events/${id}`}`;
  const localId = rows.at(0)?.local_id;
  if (localId === undefined) return undefined;
  const r = await b.rest('GET', `/events/${localId}`);
  return r.status === 200 ? r.body : undefined;
}

describe.each(databaseKinds)('following another calendar on %s', (kind) => {
  let a: Instance;
  let b: Instance;
  let sourceId: number;

  beforeAll(async () => {
    [a, b] = await Promise.all([federatedInstance(kind), federatedInstance(kind)]);
  });
  afterAll(async () => {
    await Promise.all([a?.close(), b?.close()]);
  });

  it('follows A from B’s REST API; A accepts, and B lists A as an accepted source', async () => {
    const followed = await b.rest('POST', '/federation/sources', { actor: a.actorId });
    expect(followed.status).toBe(201);
    expect(followed.body).toMatchObject({ actor: a.actorId, state: 'pending', trusted: false, type: 'Application' });
    sourceId = followed.body?.id as number;
    const accepted = await until(async () => {
      const r = await b.rest('GET', `/federation/sources/${sourceId}`);
      return r.body?.state === 'accepted' ? r.body : undefined;
    }, 'the Accept');
    expect(accepted.accepted_utc).not.toBeNull();
    // A counts B among its followers.
    const followers = (await (
      await fetch(`${a.actorId}/followers`, { headers: { accept: 'application/activity+json' } })
    ).json()) as {
      totalItems: number;
    };
    expect(followers.totalItems).toBe(1);
    const list = await b.rest('GET', '/federation/sources');
    expect(list.body).toMatchObject({ total: 1, sources: [{ id: sourceId, state: 'accepted' }] });
    // Following it again is a 409, by its actor or by its server's address (its NodeInfo names the
    // calendar as the application actor, as Mobilizon finds one); following B itself, a 400.
    expect((await b.rest('POST', '/federation/sources', { actor: a.actorId })).status).toBe(409);
    const byAddress = await b.rest('POST', '/federation/sources', { actor: a.origin });
    expect(byAddress.status).toBe(409);
    expect(byAddress.body?.code).toBe('rest_federation_source_exists');
    expect((await b.rest('POST', '/federation/sources', { actor: b.actorId })).status).toBe(400);
  });

  it('takes A’s event pending in B’s moderation queue with A as its source; approved, then its change, cancellation and deletion', async () => {
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
    const copy = await until(() => copyOf(b, a, id), 'the event on B');
    expect(copy).toMatchObject({
      title: 'Winter Jazz Night',
      status: 'pending',
      description: '<p>Bring <strong>friends</strong>.</p>',
      start_date: '2031-12-12 19:30:00',
      end_date: '2031-12-12 22:30:00',
      timezone: 'America/New_York',
      website: created.body?.url,
      event_status: 'scheduled',
    });
    expect(copy.venue).toMatchObject({
      venue: 'Blue Note Hall',
      address: '131 W 3rd St',
      city: 'New York',
      zip: '10012',
    });
    expect(copy.tags.map((t: { name: string }) => t.name)).toEqual(['jazz']);
    const queue = await b.rest('GET', '/submissions?state=pending');
    expect(queue.body?.submissions).toHaveLength(1);
    expect(queue.body?.submissions[0]).toMatchObject({
      submitter: { email: null, account: null },
      source: { id: sourceId, actor: a.actorId, url: created.body?.url },
      event: { id: copy.id },
    });
    // Anonymous readers of B do not see it.
    expect((await fetch(`${b.origin}/wp-json/calendar/events/v1/events/${copy.id}`)).status).toBeGreaterThanOrEqual(
      400,
    );

    // An editor approves it: published, with the venue it brought; A's changes keep that status.
    const approved = await b.rest('POST', `/submissions/${queue.body?.submissions[0].id}/approve`);
    expect(approved.status).toBe(200);
    expect((await copyOf(b, a, id))?.status).toBe('publish');

    expect((await a.rest('PATCH', `/events/${id}`, { title: 'Winter Jazz Night, second set' })).status).toBe(200);
    await until(
      async () => ((await copyOf(b, a, id))?.title === 'Winter Jazz Night, second set' ? true : undefined),
      'the change',
    );
    expect((await copyOf(b, a, id))?.status).toBe('publish');

    expect((await a.rest('PATCH', `/events/${id}`, { event_status: 'canceled' })).status).toBe(200);
    await until(
      async () => ((await copyOf(b, a, id))?.event_status === 'canceled' ? true : undefined),
      'the cancellation',
    );

    expect((await a.rest('DELETE', `/events/${id}`)).status).toBe(200);
    await until(async () => ((await copyOf(b, a, id))?.status === 'trash' ? true : undefined), 'the deletion');
    expect(a.errors).toEqual([]);
    expect(b.errors).toEqual([]);
  });

  it('publishes the events of a source B trusts, and does not send them on to B’s own followers', async () => {
    // A follows B too: B's copy of A's event must not come back to A as B's.
    const back = await a.rest('POST', '/federation/sources', { actor: b.actorId, trusted: true });
    expect(back.status).toBe(201);
    await until(async () => {
      const r = await a.rest('GET', `/federation/sources/${back.body?.id}`);
      return r.body?.state === 'accepted' ? true : undefined;
    }, 'B’s Accept');
    const trusted = await b.rest('PATCH', `/federation/sources/${sourceId}`, { trusted: true });
    expect(trusted.body).toMatchObject({ trusted: true });
    const created = await a.rest('POST', '/events', {
      title: 'Harbour Lights',
      start_date: '2031-12-20 18:00',
      end_date: '2031-12-20 20:00',
    });
    const id = created.body?.id as number;
    const copy = await until(() => copyOf(b, a, id), 'the trusted event on B');
    expect(copy.status).toBe('publish');
    expect((await fetch(`${b.origin}/wp-json/calendar/events/v1/events/${copy.id}`)).status).toBe(200);
    const source = await b.rest('GET', `/federation/sources/${sourceId}`);
    expect(source.body?.events).toBe(2);
    // B's worker has run past the copy's change (a later event of B's own is delivered to A), and
    // sent nothing about the copy; A holds no copy of its own event, and B's outbox lists none.
    const own = await b.rest('POST', '/events', {
      title: 'B’s own',
      start_date: '2031-12-21 18:00',
      end_date: '2031-12-21 19:00',
    });
    const ownId = `${b.origin}/federation/events/${own.body?.id}`;
    await until(async () => {
      const rows = await a.db.prisma.$queryRaw<{ n: number }[]>`
        SELECT count(*)::int AS n FROM imported_items WHERE external_id = ${ownId}`;
      return rows[0].n === 1 ? true : undefined;
    }, 'B’s own event on A');
    const [{ n }] = await b.db.prisma.$queryRaw<{ n: number }[]>`
      SELECT count(*)::int AS n FROM federation_deliveries WHERE object_id = ${`${b.origin}/federation/events/${copy.id}`}`;
    expect(n).toBe(0);
    const [{ copies }] = await a.db.prisma.$queryRaw<{ copies: number }[]>`
      SELECT count(*)::int AS copies FROM imported_items WHERE external_id LIKE ${`${b.origin}/%`}`;
    expect(copies).toBe(1);
  });

  it('refuses an unsigned activity, and one signed with a key that is not its actor’s', async () => {
    const body = JSON.stringify({
      '@context': 'https://www.w3.org/ns/activitystreams',
      id: `${a.origin}/forged/1`,
      type: 'Create',
      actor: a.actorId,
      object: {
        id: `${a.origin}/federation/events/999`,
        type: 'Event',
        name: 'Forged',
        startTime: '2031-01-01T10:00:00Z',
      },
    });
    const unsigned = await fetch(b.sharedInbox, {
      method: 'POST',
      headers: { 'content-type': 'application/activity+json' },
      body,
    });
    expect(unsigned.status).toBe(401);
    const other = await rsaPair();
    const forged = await signRequest(
      new Request(b.sharedInbox, { method: 'POST', headers: { 'content-type': 'application/activity+json' }, body }),
      other.privateKey,
      new URL(`${a.actorId}#main-key`),
      { spec: 'draft-cavage-http-signatures-12' },
    );
    expect((await fetch(forged)).status).toBe(401);
    const [{ n }] = await b.db.prisma.$queryRaw<{ n: number }[]>`
      SELECT count(*)::int AS n FROM imported_items WHERE external_id = ${`${a.origin}/federation/events/999`}`;
    expect(n).toBe(0);
  });

  it('unfollows: B sends an Undo, and A no longer counts B as a follower', async () => {
    const gone = await b.rest('DELETE', `/federation/sources/${sourceId}`);
    expect(gone.status).toBe(200);
    expect((await b.rest('GET', `/federation/sources/${sourceId}`)).status).toBe(404);
    await until(async () => {
      const followers = (await (
        await fetch(`${a.actorId}/followers`, { headers: { accept: 'application/activity+json' } })
      ).json()) as {
        totalItems: number;
      };
      return followers.totalItems === 0 ? true : undefined;
    }, 'the Undo');
  });
});
