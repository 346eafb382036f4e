// Events from Mobilizon and Gancio, as each sends them (docs/federation.md, "Following other
// calendars"). The documents are written from their code: Mobilizon's converter
// (lib/federation/activity_stream/converter/event.ex `model_to_as`, address.ex, media.ex, utils.ex
// `build_tags`), its activities (lib/federation/activity_pub/utils.ex `make_create_data`,
// `make_announce_data`, `make_json_ld_header`; a group's events are created by a member and
// announced by the group, actions/create.ex and `maybe_relay_if_group_activity`) and its fixture
// test/fixtures/mobilizon-post-activity.json; Gancio's server/api/models/event.js and place.js
// (`toAP`), server/federation/helpers.js (`sendEvent`, `getOutbox`) and follows.js (its Accept).
// A server on loopback (test/setup/remote-calendar.ts) publishes their keys as each does and signs
// as each does (draft-cavage rsa-sha256), and once with RFC 9421.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import mobilizonCreate from '../fixtures/federation/mobilizon-create-event.json' with { type: 'json' };
import gancioCreate from '../fixtures/federation/gancio-create-event.json' with { type: 'json' };
import { databaseKinds, postgresTitle, postgresUrl } from '../setup/databases.js';
import { federatedInstance } from '../setup/federated-instance.js';
import { remoteCalendar, withOrigin } from '../setup/remote-calendar.js';
import { until } from '../setup/until.js';

type Instance = Awaited<ReturnType<typeof federatedInstance>>;
type Remote = Awaited<ReturnType<typeof remoteCalendar>>;
type Json = Record<string, any>;

/** The event made here of the remote object `objectId`, as the administrator reads it. */
async function copyOf(b: Instance, objectId: string): Promise<Json | undefined> {
  const rows = await b.db.prisma.$queryRaw<{ local_id: number }[]>`
    SELECT local_id FROM imported_items WHERE source = 'activitypub' AND kind = 'event' AND external_id = ${objectId}`;
  const localId = rows.at(0)?.local_id;
  if (localId === undefined) return undefined;
  const r = await b.rest('GET', `/events/${localId}`);
  return r.status === 200 ? r.body : undefined;
}

const GROUP = { path: '/@jazz_collective', type: 'Group', username: 'jazz_collective', name: 'Jazz Collective' };
const MEMBER = { path: '/@ana', type: 'Person', username: 'ana', name: 'Ana' };
const RELAY = { path: '/relay', type: 'Application', username: 'relay', name: 'Mobilizon relay' };
const GANCIO = { path: '/federation/u/relay', type: 'Application', username: 'relay', name: 'Gancio Bologna' };

/** Follows the remote actor from B's REST API and waits for its Accept; answers the source. */
async function follow(b: Instance, actor: string, trusted = false): Promise<Json> {
  const r = await b.rest('POST', '/federation/sources', { actor, trusted });
  expect(r.status, JSON.stringify(r.body)).toBe(201);
  return until(async () => {
    const s = await b.rest('GET', `/federation/sources/${r.body?.id}`);
    return s.body?.state === 'accepted' ? s.body : undefined;
  }, `the Accept of ${actor}`);
}

describe.each(databaseKinds)('events from Mobilizon and Gancio on %s', (kind) => {
  let b: Instance;
  let mobilizon: Remote;
  let gancio: Remote;

  beforeAll(async () => {
    [b, mobilizon, gancio] = await Promise.all([
      federatedInstance(kind),
      remoteCalendar('mobilizon', [GROUP, MEMBER, RELAY]),
      remoteCalendar('gancio', [GANCIO]),
    ]);
  });
  afterAll(async () => {
    await Promise.all([b?.close(), mobilizon?.close(), gancio?.close()]);
  });

  it('follows a Mobilizon group by its handle, and takes a member’s Create of a group event with every field', async () => {
    const source = await follow(b, `@jazz_collective@${mobilizon.host}`);
    expect(source).toMatchObject({ actor: mobilizon.actor(GROUP.path), type: 'Group', name: 'Jazz Collective' });
    expect(source.handle).toBe(`@jazz_collective@${mobilizon.host}`);
    // The Follow it received is the calendar's, signed.
    expect(mobilizon.received.find((a) => a.type === 'Follow')).toMatchObject({
      actor: b.actorId,
      object: source.actor,
    });

    const create = withOrigin(mobilizonCreate as Json, mobilizon.origin);
    const sent = await mobilizon.send(b.sharedInbox, create, mobilizon.actor(MEMBER.path));
    expect(sent.status).toBe(202);
    const copy = await until(() => copyOf(b, create.object.id), 'the Mobilizon event');
    expect(copy).toMatchObject({
      title: 'Jazz au parc',
      status: 'pending',
      start_date: '2031-06-21 19:00:00',
      end_date: '2031-06-21 22:30:00',
      timezone: 'Europe/Paris',
      utc_start_date: '2031-06-21 17:00:00',
      website: create.object.url,
      image: { url: `${mobilizon.origin}/media/2f6c1b1e-banner.jpg` },
      event_status: 'scheduled',
      is_virtual: false,
    });
    // Sanitised: the script and the handler gone, the link kept (without the referrer).
    expect(copy.description).toBe(
      '<p>Un concert <strong>en plein air</strong>, <a href="https://jazz.example.org" rel="nofollow noopener noreferrer ugc">le programme</a>.</p><p>Entrée libre.</p>',
    );
    expect(copy.venue).toMatchObject({
      venue: "Parc de la Tête d'Or",
      address: 'Place du Général Leclerc',
      city: 'Lyon',
      zip: '69006',
      stateprovince: 'Auvergne-Rhône-Alpes',
      country: 'France',
      geo_lat: 45.7772,
      geo_lng: 4.8516,
    });
    expect(copy.tags.map((t: { name: string }) => t.name).sort()).toEqual(['jazz', 'plein-air']);
    const queue = await b.rest('GET', '/submissions?state=pending');
    expect(queue.body?.submissions.at(-1)).toMatchObject({
      submitter: { name: `Jazz Collective (@jazz_collective@${mobilizon.host})`, email: null },
      source: { id: source.id, actor: source.actor, url: create.object.url },
      new: { venue: copy.venue.id },
    });
  });

  it('takes the group’s Announce of the event, cancelled, as the event’s own URL says it (not the copy announced)', async () => {
    const event = withOrigin(mobilizonCreate as Json, mobilizon.origin).object;
    const cancelled = { ...event, 'ical:status': 'CANCELLED', status: 'CANCELLED', updated: '2026-11-21T09:00:00Z' };
    mobilizon.documents.set(new URL(event.id).pathname, { status: 200, body: cancelled });
    const announce = {
      '@context': ['https://www.w3.org/ns/activitystreams', 'https://w3id.org/security/v1'],
      type: 'Announce',
      id: `${mobilizon.origin}/announces/0f1e2d3c`,
      actor: mobilizon.actor(GROUP.path),
      // The announcer's copy, which says otherwise: the event's own URL counts.
      object: { ...event, name: 'Not the name' },
      to: [mobilizon.actor(`${GROUP.path}/followers`), event.actor],
      cc: ['https://www.w3.org/ns/activitystreams#Public'],
      attributedTo: mobilizon.actor(GROUP.path),
    };
    expect((await mobilizon.send(b.sharedInbox, announce, mobilizon.actor(GROUP.path))).status).toBe(202);
    const copy = await until(async () => {
      const c = await copyOf(b, event.id);
      return c?.event_status === 'canceled' ? c : undefined;
    }, 'the cancellation');
    expect(copy.title).toBe('Jazz au parc');
    // Mobilizon gives the Create and each Update one activity id: an Update with the Create's id is taken.
    const update: Json = { ...withOrigin(mobilizonCreate as Json, mobilizon.origin), type: 'Update' };
    update.object = { ...cancelled, name: 'Jazz au parc (annulé)' };
    expect((await mobilizon.send(b.sharedInbox, update, mobilizon.actor(MEMBER.path))).status).toBe(202);
    await until(
      async () => ((await copyOf(b, event.id))?.title === 'Jazz au parc (annulé)' ? true : undefined),
      'the Update',
    );
  });

  it('trashes the event when a member’s Delete names it, as its URL then answers 410', async () => {
    const event = withOrigin(mobilizonCreate as Json, mobilizon.origin).object;
    mobilizon.documents.set(new URL(event.id).pathname, { status: 410, body: { id: event.id, type: 'Tombstone' } });
    const deleted = {
      '@context': ['https://www.w3.org/ns/activitystreams'],
      type: 'Delete',
      id: `${event.id}/delete`,
      actor: mobilizon.actor(MEMBER.path),
      object: event.id,
      to: ['https://www.w3.org/ns/activitystreams#Public'],
    };
    expect((await mobilizon.send(b.sharedInbox, deleted, mobilizon.actor(MEMBER.path))).status).toBe(202);
    await until(async () => ((await copyOf(b, event.id))?.status === 'trash' ? true : undefined), 'the trash');
    const rejected = await b.rest('GET', '/submissions?state=rejected');
    expect(rejected.body?.submissions.at(-1)).toMatchObject({ reason: 'Deleted at its source.' });
  });

  it('follows a Gancio instance by its actor, trusted: takes its outbox, then its Create (RFC 9421) and Delete, published', async () => {
    const outboxEvent = withOrigin(gancioCreate as Json, gancio.origin).object;
    const earlier = {
      ...outboxEvent,
      id: `${gancio.origin}/federation/m/41`,
      name: 'Cineforum',
      url: `${gancio.origin}/event/cineforum`,
    };
    gancio.documents.set('/federation/m/41', { status: 200, body: earlier });
    gancio.documents.set(`${GANCIO.path}/outbox`, {
      status: 200,
      body: {
        '@context': 'https://www.w3.org/ns/activitystreams',
        id: `${gancio.origin}${GANCIO.path}/outbox`,
        type: 'OrderedCollection',
        totalItems: 1,
        first: {
          id: `${gancio.origin}${GANCIO.path}/outbox?page=true`,
          type: 'OrderedCollectionPage',
          orderedItems: [
            { id: `${earlier.id}#Create`, type: 'Create', actor: gancio.actor(GANCIO.path), object: earlier },
          ],
        },
      },
    });
    const source = await follow(b, gancio.actor(GANCIO.path), true);
    expect(source).toMatchObject({ type: 'Application', trusted: true, handle: `@relay@${gancio.host}` });
    const fromOutbox = await until(() => copyOf(b, earlier.id), 'the outbox’s event');
    expect(fromOutbox).toMatchObject({ title: 'Cineforum', status: 'publish' });

    const create = withOrigin(gancioCreate as Json, gancio.origin);
    expect((await gancio.send(b.sharedInbox, create, gancio.actor(GANCIO.path), 'rfc9421')).status).toBe(202);
    const copy = await until(() => copyOf(b, create.object.id), 'the Gancio event');
    expect(copy).toMatchObject({
      title: 'Assemblea cittadina',
      status: 'publish',
      utc_start_date: '2031-05-02 16:00:00',
      utc_end_date: '2031-05-02 18:00:00',
      website: `${gancio.origin}/event/assemblea-cittadina`,
      image: { url: `${gancio.origin}/media/ab12cd34.jpg` },
      event_status: 'scheduled',
    });
    expect(copy.description).toBe(
      '<p>Ordine del giorno: <a href="https://example.org/bilancio" rel="nofollow noopener noreferrer ugc">bilancio</a>.</p>',
    );
    expect(copy.venue).toMatchObject({
      venue: 'Casa del Popolo',
      address: 'Via Roma 12, Bologna',
      geo_lat: 44.4949,
      geo_lng: 11.3426,
    });
    // `#2031` would be read as a tag's ID: left out.
    expect(copy.tags.map((t: { name: string }) => t.name)).toEqual(['assemblea']);
    expect((await fetch(`${b.origin}/wp-json/calendar/events/v1/events/${copy.id}`)).status).toBe(200);

    // Gancio deletes with the Event itself as the object (helpers.js sendEvent with type Delete).
    const deleted = { ...create, id: `${create.object.id}#Delete-1795000100000`, type: 'Delete' };
    expect((await gancio.send(b.sharedInbox, deleted, gancio.actor(GANCIO.path))).status).toBe(202);
    await until(async () => ((await copyOf(b, create.object.id))?.status === 'trash' ? true : undefined), 'the Delete');
  });

  it('takes an event whose texts hold NUL and other control characters, without them', async () => {
    const create = withOrigin(gancioCreate as Json, gancio.origin);
    const id = `${gancio.origin}/federation/m/43`;
    create.id = `${id}#Create-1`;
    create.object = { ...create.object, id, name: 'Nul\u0000 night', content: '<p>A\u0000B\u0007C</p>' };
    expect((await gancio.send(b.sharedInbox, create, gancio.actor(GANCIO.path))).status).toBe(202);
    const copy = await until(() => copyOf(b, id), 'the event');
    expect(copy).toMatchObject({ title: 'Nul night', description: '<p>ABC</p>' });
  });

  it('leaves what actors not followed send, and events of another server than the sender’s', async () => {
    const create = withOrigin(gancioCreate as Json, gancio.origin);
    // Mobilizon's relay is not followed.
    const stranger = withOrigin(mobilizonCreate as Json, mobilizon.origin);
    stranger.actor = mobilizon.actor(RELAY.path);
    stranger.object = {
      ...stranger.object,
      id: `${mobilizon.origin}/events/stranger`,
      attributedTo: mobilizon.actor(RELAY.path),
    };
    expect((await mobilizon.send(b.sharedInbox, stranger, mobilizon.actor(RELAY.path))).status).toBe(202);
    // The followed group sends an event whose id is on Gancio's server.
    const foreign = withOrigin(mobilizonCreate as Json, mobilizon.origin);
    foreign.actor = mobilizon.actor(GROUP.path);
    foreign.object = { ...create.object, id: `${gancio.origin}/federation/m/99`, attributedTo: undefined };
    expect((await mobilizon.send(b.sharedInbox, foreign, mobilizon.actor(GROUP.path))).status).toBe(202);
    for (const id of [`${mobilizon.origin}/events/stranger`, `${gancio.origin}/federation/m/99`]) {
      expect(await copyOf(b, id)).toBeUndefined();
    }
  });
});

describe.skipIf(!postgresUrl)(postgresTitle('parallel deliveries of one remote event on postgresql'), () => {
  it('makes one event of a Create and Updates that race', async () => {
    const [b, gancio] = await Promise.all([
      federatedInstance('postgresql', { FEDERATION_INBOX_PER_MINUTE: '1000' }),
      remoteCalendar('gancio', [GANCIO]),
    ]);
    try {
      await follow(b, gancio.actor(GANCIO.path));
      const create = withOrigin(gancioCreate as Json, gancio.origin);
      const sends = Array.from({ length: 8 }, (_, i) => {
        const activity =
          i % 2 === 0
            ? create
            : {
                ...create,
                id: `${create.object.id}#Update-${i}`,
                type: 'Update',
                object: { ...create.object, name: `Assemblea ${i}` },
              };
        return gancio.send(b.sharedInbox, activity, gancio.actor(GANCIO.path));
      });
      const answers = await Promise.all(sends);
      expect(answers.map((r) => r.status)).toEqual(answers.map(() => 202));
      const [counts] = await b.db.prisma.$queryRaw<
        { mapped: number; remote: number; submissions: number; events: number }[]
      >`
        SELECT (SELECT count(*)::int FROM imported_items WHERE source = 'activitypub') AS mapped,
          (SELECT count(*)::int FROM federation_remote_events) AS remote,
          (SELECT count(*)::int FROM submissions) AS submissions,
          (SELECT count(*)::int FROM events WHERE website = ${`${gancio.origin}/event/assemblea-cittadina`}) AS events`;
      expect(counts).toEqual({ mapped: 1, remote: 1, submissions: 1, events: 1 });
    } finally {
      await Promise.all([b.close(), gancio.close()]);
    }
  });
});
