// What one remote server may make the calendar do (docs/federation.md, "Following other
// calendars"): a cap of events per source, an instance blocklist, a rate of activities per server;
// and the operations on sources when requests meet (PostgreSQL): one source of two follows of one
// actor, one answer of two unfollows, and the cap kept by sources sending events at once.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import gancioCreate from '../fixtures/federation/gancio-create-event.json' with { type: 'json' };
import { databaseKinds, postgresTitle, postgresUrl } from '../setup/databases.js';
import { federatedInstance } from '../setup/federated-instance.js';
import { remoteCalendar, withOrigin } from '../setup/remote-calendar.js';
import { until } from '../setup/until.js';

type Instance = Awaited<ReturnType<typeof federatedInstance>>;
type Remote = Awaited<ReturnType<typeof remoteCalendar>>;
type Json = Record<string, any>;

const GANCIO = { path: '/federation/u/relay', type: 'Application', username: 'relay', name: 'Gancio Bologna' };

async function follow(b: Instance, actor: string, trusted = false): Promise<Json> {
  const r = await b.rest('POST', '/federation/sources', { actor, trusted });
  expect(r.status, JSON.stringify(r.body)).toBe(201);
  return until(async () => {
    const s = await b.rest('GET', `/federation/sources/${r.body?.id}`);
    return s.body?.state === 'accepted' ? s.body : undefined;
  }, `the Accept of ${actor}`);
}

/** Gancio's Create of event `n`, named `name`. */
function createOf(gancio: Remote, n: number, name = `Event ${n}`): Json {
  const create = withOrigin(gancioCreate as Json, gancio.origin);
  const id = `${gancio.origin}/federation/m/${n}`;
  return {
    ...create,
    id: `${id}#Create-${n}`,
    object: { ...create.object, id, name, url: `${gancio.origin}/event/${n}` },
  };
}

const mappedEvents = async (b: Instance) =>
  (
    await b.db.prisma.$queryRaw<{ n: number }[]>`
      SELECT count(*)::int AS n FROM imported_items WHERE source = 'activitypub' AND kind = 'event'`
  )[0].n;

describe.each(databaseKinds)('limits of what one remote server brings on %s', (kind) => {
  let b: Instance;
  let gancio: Remote;

  beforeAll(async () => {
    [b, gancio] = await Promise.all([
      federatedInstance(kind, { FEDERATION_MAX_EVENTS_PER_SOURCE: '2', FEDERATION_INBOX_PER_MINUTE: '8' }),
      remoteCalendar('gancio', [GANCIO]),
    ]);
  });
  afterAll(async () => {
    await Promise.all([b?.close(), gancio?.close()]);
  });

  it('takes at most FEDERATION_MAX_EVENTS_PER_SOURCE new events of a source, and updates of those it took', async () => {
    const source = await follow(b, gancio.actor(GANCIO.path), true);
    for (const n of [1, 2, 3]) {
      expect((await gancio.send(b.sharedInbox, createOf(gancio, n), gancio.actor(GANCIO.path))).status).toBe(202);
    }
    expect(await mappedEvents(b)).toBe(2);
    const update = {
      ...createOf(gancio, 1, 'Event 1, renamed'),
      id: `${gancio.origin}/federation/m/1#Update-1`,
      type: 'Update',
    };
    expect((await gancio.send(b.sharedInbox, update, gancio.actor(GANCIO.path))).status).toBe(202);
    const [row] = await b.db.prisma.$queryRaw<{ title: string }[]>`
      SELECT e.title FROM events e JOIN imported_items i ON i.local_id = e.id
      WHERE i.external_id = ${`${gancio.origin}/federation/m/1`}`;
    expect(row.title).toBe('Event 1, renamed');
    expect((await b.rest('GET', `/federation/sources/${source.id}`)).body?.events).toBe(2);
  });

  it('answers 429 with Retry-After past FEDERATION_INBOX_PER_MINUTE activities of one server', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 6; i++) {
      const r = await gancio.send(b.sharedInbox, createOf(gancio, 100 + i), gancio.actor(GANCIO.path));
      statuses.push(r.status);
      if (r.status === 429) expect(Number(r.headers.get('retry-after'))).toBeGreaterThan(0);
    }
    // 8 a minute: the first test sent 5 (its Accept, three Creates, an Update) and 3 are left.
    expect(statuses.slice(0, 3)).toEqual([202, 202, 202]);
    expect(statuses.slice(3)).toEqual([429, 429, 429]);
  });
});

describe.each(databaseKinds)('the instance blocklist on %s', (kind) => {
  it('refuses to follow a blocked host, and refuses activities signed by its keys', async () => {
    const gancio = await remoteCalendar('gancio', [GANCIO]);
    const b = await federatedInstance(kind, { FEDERATION_BLOCKED_HOSTS: 'example.net, 127.0.0.1' });
    try {
      const refused = await b.rest('POST', '/federation/sources', { actor: gancio.actor(GANCIO.path) });
      expect(refused.status).toBe(403);
      expect(refused.body?.code).toBe('rest_federation_blocked');
      expect((await b.rest('POST', '/federation/sources', { actor: `@relay@${gancio.host}` })).status).toBe(403);
      const sent = await gancio.send(b.sharedInbox, createOf(gancio, 7), gancio.actor(GANCIO.path));
      expect(sent.status).toBe(403);
      expect(await mappedEvents(b)).toBe(0);
    } finally {
      await Promise.all([b.close(), gancio.close()]);
    }
  });
});

describe.skipIf(!postgresUrl)(postgresTitle('sources when requests meet on postgresql'), () => {
  let b: Instance;
  let gancio: Remote;

  beforeAll(async () => {
    [b, gancio] = await Promise.all([
      federatedInstance('postgresql', { FEDERATION_MAX_EVENTS_PER_SOURCE: '3', FEDERATION_INBOX_PER_MINUTE: '1000' }),
      remoteCalendar('gancio', [GANCIO]),
    ]);
  });
  afterAll(async () => {
    await Promise.all([b?.close(), gancio?.close()]);
  });

  it('keeps one source, and sends one Follow, of two follows of one actor at once', async () => {
    const answers = await Promise.all(
      [1, 2, 3].map(() => b.rest('POST', '/federation/sources', { actor: gancio.actor(GANCIO.path) })),
    );
    expect(answers.map((r) => r.status).sort()).toEqual([201, 409, 409]);
    const [{ sources, follows }] = await b.db.prisma.$queryRaw<{ sources: number; follows: number }[]>`
      SELECT (SELECT count(*)::int FROM federation_sources) AS sources,
        (SELECT count(*)::int FROM federation_deliveries WHERE payload LIKE '%"type":"Follow"%') AS follows`;
    expect({ sources, follows }).toEqual({ sources: 1, follows: 1 });
    await until(
      async () =>
        (await b.rest('GET', '/federation/sources')).body?.sources[0].state === 'accepted' ? true : undefined,
      'the Accept',
    );
  });

  it('keeps the cap when a source sends new events at once', async () => {
    const answers = await Promise.all(
      [11, 12, 13, 14, 15, 16].map((n) => gancio.send(b.sharedInbox, createOf(gancio, n), gancio.actor(GANCIO.path))),
    );
    expect(answers.map((r) => r.status)).toEqual(answers.map(() => 202));
    expect(await mappedEvents(b)).toBe(3);
    const [{ n }] = await b.db.prisma.$queryRaw<
      { n: number }[]
    >`SELECT count(*)::int AS n FROM federation_remote_events`;
    expect(n).toBe(3);
  });

  it('unfollows once of two unfollows at once, and sends one Undo', async () => {
    const id = (await b.rest('GET', '/federation/sources')).body?.sources[0].id as number;
    const answers = await Promise.all([1, 2].map(() => b.rest('DELETE', `/federation/sources/${id}`)));
    expect(answers.map((r) => r.status).sort()).toEqual([200, 404]);
    const [{ undos }] = await b.db.prisma.$queryRaw<{ undos: number }[]>`
      SELECT count(*)::int AS undos FROM federation_deliveries WHERE payload LIKE '%"type":"Undo"%'`;
    expect(undos).toBe(1);
    // The events it brought stay.
    expect(await mappedEvents(b)).toBe(3);
  });
});
