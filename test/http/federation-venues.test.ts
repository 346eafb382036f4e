// A venue's changes reach followers (src/federation/dispatch.ts): every public event at a venue
// shows its Place, so renaming or moving the venue sends an Update of each of them, and deleting it
// an Update without it; an organizer's change, which the document does not show, sends nothing. The
// change feed records a change of every event at the venue; the dispatcher turns them into
// deliveries in transactions of bounded size.
import { Create, Follow, Update } from '@fedify/vocab';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dispatchEventChanges } from '../../src/federation/dispatch.js';
import { insertEvent } from '../factories.js';
import { databaseKinds, openTestDatabase, type TestDatabase } from '../setup/databases.js';
import { settled } from '../setup/feed.js';
import { fedifyActor } from '../setup/fedify-actor.js';
import { federatedInstance } from '../setup/federated-instance.js';

async function arrival<T>(find: () => T | undefined, what: string): Promise<T> {
  for (let i = 0; i < 100; i++) {
    const found = find();
    if (found !== undefined) return found;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`nothing arrived: ${what}`);
}

describe.each(databaseKinds)('a venue’s changes sent to followers on %s', (kind) => {
  let a: Awaited<ReturnType<typeof federatedInstance>>;
  let alice: Awaited<ReturnType<typeof fedifyActor>>;
  beforeAll(async () => {
    a = await federatedInstance(kind);
    alice = await fedifyActor();
  });
  afterAll(async () => {
    await alice.close();
    await a.close();
  });

  it('sends an Update of the event when its venue is renamed, moved or deleted, and none for its organizer', async () => {
    await alice
      .context()
      .sendActivity(
        { identifier: 'alice' },
        { id: new URL(a.actorId), inboxId: new URL(a.inbox) },
        new Follow({ id: new URL(`${alice.origin}/follows/1`), actor: alice.actorId, object: new URL(a.actorId) }),
        { immediate: true },
      );
    const created = await a.rest('POST', '/events', {
      title: 'Harbour concert',
      start_date: '2031-07-01 19:00',
      end_date: '2031-07-01 21:00',
      venue: { venue: 'Blue Note Hall', address: '131 W 3rd St', city: 'New York' },
      organizer: [{ organizer: 'Harbor Arts' }],
    });
    expect(created.status).toBe(201);
    const objectId = `${a.origin}/federation/events/${created.body?.id as number}`;
    const venueId = (created.body?.venue as { id: number }).id;
    const organizerId = (created.body?.organizer as { id: number }[])[0].id;
    a.nudge();
    const create = await arrival(
      () => alice.received.find((r) => r.activity instanceof Create && r.activity.objectId?.href === objectId),
      'a Create',
    );
    const updates = () => alice.received.filter((r) => r.activity instanceof Update);
    const location = (n: number) => (updates()[n].json.object as { location?: Record<string, any> }).location;

    expect((await a.rest('PATCH', `/venues/${venueId}`, { venue: 'Blue Note Hall, downstairs' })).status).toBe(200);
    a.nudge();
    await arrival(() => updates()[0], 'an Update for the new name');
    expect(location(0)).toMatchObject({ type: 'Place', name: 'Blue Note Hall, downstairs' });
    expect(updates()[0].json.id).not.toBe(create.json.id);
    // Newer than what followers have, as Mastodon requires of an Update it takes.
    const updatedOf = (r: { json: Record<string, unknown> }) => (r.json.object as { updated: string }).updated;
    expect(Date.parse(updatedOf(updates()[0]))).toBeGreaterThan(Date.parse(updatedOf(create)) - 1);

    // The organizer is not in the document: its change sends nothing. The venue moving after it
    // does, and is the next Update (the feed gives changes in order).
    expect((await a.rest('PATCH', `/organizers/${organizerId}`, { organizer: 'Harbor Arts Society' })).status).toBe(
      200,
    );
    a.nudge();
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect((await a.rest('PATCH', `/venues/${venueId}`, { address: '1 Pier Rd' })).status).toBe(200);
    a.nudge();
    await arrival(() => updates()[1], 'an Update for the new address');
    expect(location(1)).toMatchObject({ address: { streetAddress: '1 Pier Rd' } });
    expect(new Set(updates().map((u) => u.json.id)).size).toBe(2);

    expect((await a.rest('DELETE', `/venues/${venueId}?force=true`)).status).toBe(200);
    a.nudge();
    await arrival(() => updates()[2], 'an Update without the venue');
    expect(location(2)).toBeUndefined();
    expect(updates()).toHaveLength(3);
    expect(new Set(updates().map((u) => u.json.id)).size).toBe(3);
    expect(a.errors).toEqual([]);
    expect(alice.errors).toEqual([]);
  });
});

describe.each(databaseKinds)('a venue with many events on %s', (kind) => {
  let t: TestDatabase;
  beforeAll(async () => {
    t = await openTestDatabase(kind);
  });
  afterAll(async () => {
    await t.drop();
  });

  it('is dispatched in transactions of at most the deliveries allowed', async () => {
    const db = t.db;
    const site = 'https://events.example.org';
    const settings = {
      urls: { site, root: `${site}/wp-json`, base: `${site}/wp-json/calendar/events/v1` },
      siteZone: 'UTC',
      currency: { symbol: '$', position: 'prefix' as const },
    };
    for (let n = 1; n <= 5; n++) {
      await db.prisma.$executeRaw`
        INSERT INTO federation_followers (actor_id, inbox, shared_inbox, follow_id, accepted)
        VALUES (${`https://s${n}.example/users/1`}, ${`https://s${n}.example/users/1/inbox`}, NULL, ${`f${n}`}, true)`;
    }
    const venue = await db.prisma.venue.create({ data: { name: 'Big Hall', slug: 'big-hall' } });
    const ids: number[] = [];
    for (let i = 0; i < 12; i++) {
      const event = await insertEvent(db, { title: `At the hall ${i}` });
      await db.prisma.eventVenue.create({ data: { eventId: event.id, venueId: venue.id } });
      ids.push(event.id);
    }
    // Every change so far dispatched before the venue's: a transaction of another database may hold
    // the feed back (test/setup/feed.ts), and the loop would stop at a change it cannot give yet.
    await settled({ db });
    while ((await dispatchEventChanges(db, settings)) > 0);
    await db.prisma.$executeRaw`DELETE FROM federation_deliveries`;

    await db.prisma.venue.update({ where: { id: venue.id }, data: { name: 'Bigger Hall', modifiedAt: new Date() } });
    // 12 changes of events and the venue's own, at most 10 deliveries a transaction: two changes
    // (to five inboxes) each. (On PostgreSQL a transaction of another database of the server may
    // hold the feed back a moment: it gives changes of transactions older than every one running.)
    let read = 0;
    for (let tries = 0; read < 13 && tries < 100; tries++) {
      read += await dispatchEventChanges(db, settings, 200, () => undefined, 10);
      if (read < 13) await new Promise((resolve) => setTimeout(resolve, 20));
    }
    expect(read).toBe(13);
    const transactions = await db.prisma.$queryRaw<{ n: number }[]>`
      SELECT count(*)::int AS n FROM federation_deliveries GROUP BY xmin::text`;
    expect(transactions.reduce((sum, r) => sum + r.n, 0)).toBe(12 * 5);
    expect(Math.max(...transactions.map((r) => r.n))).toBeLessThanOrEqual(10);
    const payloads = await db.prisma.$queryRaw<{ payload: string }[]>`SELECT payload FROM federation_deliveries`;
    for (const { payload } of payloads) {
      const activity = JSON.parse(payload) as { type: string; object: { location: { name: string } } };
      expect(activity.type).toBe('Update');
      expect(activity.object.location.name).toBe('Bigger Hall');
    }
  });
});
