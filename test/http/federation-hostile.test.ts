// What anyone may send the federation's routes: wrong JSON, bodies too large, cursors and names that
// lead nowhere. Each gets a 4xx (or the first page), never a 5xx. And keys are not fetched from
// private addresses unless FEDERATION_ALLOW_PRIVATE_ADDRESSES says so.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Follow } from '@fedify/vocab';
import { databaseKinds } from '../setup/databases.js';
import { fedifyActor } from '../setup/fedify-actor.js';
import { federatedInstance } from '../setup/federated-instance.js';
import { remoteCalendar, withOrigin } from '../setup/remote-calendar.js';
import { isBlocked } from '../../src/federation/remote-documents.js';
import gancioCreate from '../fixtures/federation/gancio-create-event.json' with { type: 'json' };
import { until } from '../setup/until.js';

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

// A hostile remote server, and a demanding reviewer (issue 56's review): a server on loopback
// (test/setup/remote-calendar.ts) that the calendar follows, one it does not, and what each may
// make the calendar take.
type Instance = Awaited<ReturnType<typeof federatedInstance>>;
type Remote = Awaited<ReturnType<typeof remoteCalendar>>;
type Json = Record<string, any>;

const GANCIO = { path: '/federation/u/relay', type: 'Application', username: 'relay', name: 'Gancio Bologna' };
const EVIL = { path: '/federation/u/evil', type: 'Application', username: 'evil', name: 'Evil' };

async function followed(b: Instance, actor: string, trusted: boolean): Promise<Json> {
  const r = await b.rest('POST', '/federation/sources', { actor, trusted });
  expect(r.status, JSON.stringify(r.body)).toBe(201);
  return until(async () => {
    const s = await b.rest('GET', `/federation/sources/${r.body?.id}`);
    return s.body?.state === 'accepted' ? s.body : undefined;
  }, `the Accept of ${actor}`);
}

/** A Create of an Event of the remote server, numbered `n`, with the fields given over Gancio's. */
function createOf(remote: Remote, n: number, fields: Json = {}, actor = remote.actor(GANCIO.path)): Json {
  const create = withOrigin(gancioCreate as Json, remote.origin);
  const id = `${remote.origin}/federation/m/${n}`;
  return {
    ...create,
    id: `${id}#Create-${n}`,
    actor,
    object: {
      ...create.object,
      id,
      attributedTo: actor,
      name: `Event ${n}`,
      url: `${remote.origin}/event/${n}`,
      ...fields,
    },
  };
}

/** The event made here of the remote object, as stored. */
async function copyOf(b: Instance, objectId: string) {
  const rows = await b.db.prisma.$queryRaw<{ id: number; title: string; status: string; description: string }[]>`
    SELECT e.id, e.title, e.status::text AS status, e.description FROM events e
    JOIN imported_items i ON i.local_id = e.id AND i.kind = 'event'
    WHERE i.source = 'activitypub' AND i.external_id = ${objectId}`;
  return rows.at(0);
}

describe.each(databaseKinds)('a hostile remote server on %s', (kind) => {
  let b: Instance;
  let gancio: Remote;
  let evil: Remote;

  beforeAll(async () => {
    [b, gancio, evil] = await Promise.all([
      federatedInstance(kind),
      remoteCalendar('gancio', [GANCIO]),
      remoteCalendar('gancio', [EVIL]),
    ]);
    // The calendar trusts Gancio (its events are published at once); it does not follow the evil server.
    await followed(b, gancio.actor(GANCIO.path), true);
  });
  afterAll(async () => {
    await Promise.all([b?.close(), gancio?.close(), evil?.close()]);
  });

  it('refuses a Create signed by a key on another server that names the followed actor as its owner', async () => {
    // The evil server publishes its own public key as a CryptographicKey whose `owner` is Gancio's
    // actor, and signs a Create as that actor with it. Fedify's doesActorOwnKey takes the key's
    // `owner` at its word when it is there, without asking the actor whether the key is its own.
    const evilActor = (await (
      await fetch(evil.actor(EVIL.path), { headers: { accept: 'application/activity+json' } })
    ).json()) as Json;
    const keyPath = '/keys/forged';
    evil.documents.set(keyPath, {
      status: 200,
      body: {
        '@context': ['https://www.w3.org/ns/activitystreams', 'https://w3id.org/security/v1'],
        id: `${evil.origin}${keyPath}#main-key`,
        type: 'CryptographicKey',
        owner: gancio.actor(GANCIO.path),
        publicKeyPem: evilActor.publicKey.publicKeyPem,
      },
    });
    const forged = createOf(gancio, 666, { name: 'Forged by another server' });
    const sent = await evil.send(b.sharedInbox, forged, `${evil.origin}${keyPath}`);
    expect(await copyOf(b, forged.object.id)).toBeUndefined();
    expect(sent.status).toBe(401);
  });

  it('keeps the newer of two Updates that arrive out of order', async () => {
    const create = createOf(gancio, 10, { name: 'First', updated: '2026-11-20T10:00:00Z' });
    expect((await gancio.send(b.sharedInbox, create, gancio.actor(GANCIO.path))).status).toBe(202);
    const update = (name: string, updated: string, n: number) => ({
      ...create,
      id: `${create.object.id}#Update-${n}`,
      type: 'Update',
      object: { ...create.object, name, updated },
    });
    await gancio.send(b.sharedInbox, update('Third', '2026-11-22T10:00:00Z', 3), gancio.actor(GANCIO.path));
    expect((await copyOf(b, create.object.id))?.title).toBe('Third');
    // The older one, late (or a signed Update replayed within the hour Fedify allows).
    await gancio.send(b.sharedInbox, update('Second', '2026-11-21T10:00:00Z', 2), gancio.actor(GANCIO.path));
    expect((await copyOf(b, create.object.id))?.title).toBe('Third');
  });

  it('a server the calendar does not follow cannot spend a source’s activity ids', async () => {
    // Gancio's activity ids are predictable (`<object>#Create-<n>`); the idempotency key is the
    // receiving origin and the activity id, whoever sent it. The evil server, signing as itself,
    // sends first a Create with the id Gancio's next one will have: the inbox refuses its object
    // (not on its server), yet the id is taken, and Gancio's own Create is then dropped as a repeat.
    const genuine = createOf(gancio, 11, { name: 'Genuine' });
    const squatter = { ...createOf(evil, 11, {}, evil.actor(EVIL.path)), id: genuine.id };
    expect((await evil.send(b.sharedInbox, squatter, evil.actor(EVIL.path))).status).toBe(202);
    expect((await gancio.send(b.sharedInbox, genuine, gancio.actor(GANCIO.path))).status).toBe(202);
    expect((await copyOf(b, genuine.object.id))?.title).toBe('Genuine');
  });

  it('keeps no follower whose inbox is on another server than its actor', async () => {
    // An actor of the evil server whose inbox (and shared inbox) is Gancio's: once it follows, the
    // calendar sends every public event to Gancio, as many times as such actors follow it (a
    // sources' inbox must be on its actor's server, federation/lookup.ts actorOf; a follower's need not).
    const evilActor = (await (
      await fetch(evil.actor(EVIL.path), { headers: { accept: 'application/activity+json' } })
    ).json()) as Json;
    const path = '/federation/u/liar';
    const liar = `${evil.origin}${path}`;
    evil.documents.set(path, {
      status: 200,
      body: {
        ...evilActor,
        id: liar,
        preferredUsername: 'liar',
        inbox: `${gancio.origin}/victim/inbox`,
        endpoints: { sharedInbox: `${gancio.origin}/victim/shared` },
        publicKey: { ...evilActor.publicKey, id: `${liar}#main-key`, owner: liar },
      },
    });
    const follow = {
      '@context': 'https://www.w3.org/ns/activitystreams',
      id: `${liar}/follows/1`,
      type: 'Follow',
      actor: liar,
      object: b.actorId,
    };
    expect((await evil.send(b.inbox, follow, liar)).status).toBe(202);
    const rows = await b.db.prisma.$queryRaw<{ inbox: string }[]>`
      SELECT inbox FROM federation_followers WHERE actor_id = ${liar}`;
    expect(rows).toEqual([]);
  });

  it('takes nothing that claims another server’s object, a local event, or the calendar’s own id', async () => {
    const local = await b.rest('POST', '/events', {
      title: 'Local',
      status: 'publish',
      start_date: '2031-01-01 10:00:00',
      end_date: '2031-01-01 11:00:00',
    });
    expect(local.status).toBe(201);
    const localId = `${b.origin}/federation/events/${local.body?.id}`;
    // A source's Create of an event on another server, of the calendar's own event, an Update of it.
    const elsewhere = createOf(gancio, 12);
    elsewhere.object = { ...elsewhere.object, id: `${evil.origin}/federation/m/12` };
    const own = createOf(gancio, 13);
    own.object = { ...own.object, id: localId, name: 'Taken over' };
    const ownUpdate = { ...own, id: `${gancio.origin}/u/13`, type: 'Update' };
    for (const activity of [elsewhere, own, ownUpdate]) {
      expect((await gancio.send(b.sharedInbox, activity, gancio.actor(GANCIO.path))).status).toBe(202);
    }
    // An Announce of the calendar's own event, and a Delete of it.
    const announce = {
      '@context': 'https://www.w3.org/ns/activitystreams',
      id: `${gancio.origin}/a/1`,
      type: 'Announce',
      actor: gancio.actor(GANCIO.path),
      object: localId,
    };
    const remove = { ...announce, id: `${gancio.origin}/d/1`, type: 'Delete' };
    for (const activity of [announce, remove]) {
      expect((await gancio.send(b.sharedInbox, activity, gancio.actor(GANCIO.path))).status).toBe(202);
    }
    // The evil server, not followed, creating an event attributed to the followed actor on its own server.
    const attributed = createOf(evil, 14, { attributedTo: gancio.actor(GANCIO.path) }, evil.actor(EVIL.path));
    expect((await evil.send(b.sharedInbox, attributed, evil.actor(EVIL.path))).status).toBe(202);
    // The evil server deleting the source's event: not its object.
    const taken = createOf(gancio, 15);
    expect((await gancio.send(b.sharedInbox, taken, gancio.actor(GANCIO.path))).status).toBe(202);
    const evilDelete = {
      '@context': 'https://www.w3.org/ns/activitystreams',
      id: `${evil.origin}/d/15`,
      type: 'Delete',
      actor: evil.actor(EVIL.path),
      object: taken.object.id,
    };
    expect((await evil.send(b.sharedInbox, evilDelete, evil.actor(EVIL.path))).status).toBe(202);

    expect(await copyOf(b, elsewhere.object.id)).toBeUndefined();
    expect(await copyOf(b, localId)).toBeUndefined();
    expect(await copyOf(b, attributed.object.id)).toBeUndefined();
    expect((await copyOf(b, taken.object.id))?.status).toBe('publish');
    const after = await b.rest('GET', `/events/${local.body?.id}`);
    expect(after.body).toMatchObject({ title: 'Local', status: 'publish' });
  });

  it('keeps no script, handler, javascript:, data: URL, style or SVG of a remote event, and cuts its texts and tags', async () => {
    const content = [
      '<script>alert(1)</script><p onclick="alert(2)">a</p><img src="x" onerror="alert(3)">',
      '<a href="javascript:alert(4)">j</a><a href="data:text/html,<script>alert(5)</script>">d</a>',
      '<a href="JaVaScRiPt&#58;alert(6)">e</a><style>body{}</style><p style="background:url(x)">s</p>',
      '<svg onload="alert(7)"><script>alert(8)</script></svg><iframe src="https://x.example"></iframe>',
      '<form action="https://x.example"><input></form><math><mi xlink:href="javascript:alert(9)">m</mi></math>',
    ].join('');
    const tags = Array.from({ length: 10_000 }, (_, i) => ({ type: 'Hashtag', name: `#t${i}` }));
    const create = createOf(gancio, 20, { name: `\u0000A\u0007${'n'.repeat(10_000)}`, content, tag: tags });
    expect((await gancio.send(b.sharedInbox, create, gancio.actor(GANCIO.path))).status).toBe(202);
    const copy = await copyOf(b, create.object.id);
    expect(copy).toBeDefined();
    expect(copy!.description).not.toMatch(/<script|<style|<svg|<iframe|<form|<math|on\w+=|javascript:|data:|style=/i);
    expect(copy!.title.startsWith('An')).toBe(true);
    expect(copy!.title.length).toBeLessThanOrEqual(500);
    const tagged = await b.db.prisma.$queryRaw<{ n: number }[]>`
      SELECT count(*)::int AS n FROM event_terms WHERE event_id = ${copy!.id}::int`;
    expect(tagged[0].n).toBeLessThanOrEqual(20);
  });

  it('shows a remote name with markup as text on the event’s page', async () => {
    const create = createOf(gancio, 21, {
      name: '<img src=x onerror=alert(1)>Concert</title><script>alert(2)</script>',
    });
    expect((await gancio.send(b.sharedInbox, create, gancio.actor(GANCIO.path))).status).toBe(202);
    const copy = await copyOf(b, create.object.id);
    expect(copy?.status).toBe('publish');
    const event = await b.rest('GET', `/events/${copy!.id}`);
    const page = await (await fetch(String(event.body?.url), { headers: { accept: 'text/html' } })).text();
    expect(page).toContain('Concert');
    expect(page).not.toMatch(/<img src=x|<script>alert/);
  });

  it('answers a 4xx to an activity nested 3,000 deep', async () => {
    let deep: Json = { type: 'Note' };
    for (let i = 0; i < 3_000; i++) deep = { type: 'Note', content: deep };
    const nested = createOf(gancio, 30, { attachment: deep });
    const r = await gancio.send(b.sharedInbox, nested, gancio.actor(GANCIO.path));
    expect(r.status).toBeLessThan(500);
  });

  it('answers a 4xx or 202 to an activity whose @context leads nowhere', async () => {
    const context = { ...createOf(gancio, 31), '@context': [`${evil.origin}/no-such-context`, { '@version': 1.1 }] };
    const c = await gancio.send(b.sharedInbox, context, gancio.actor(GANCIO.path));
    expect(c.status).toBeLessThan(500);
  });
});

describe.each(databaseKinds)('the administrators’ federation operations given bad input on %s', (kind) => {
  let b: Instance;
  beforeAll(async () => {
    b = await federatedInstance(kind);
  });
  afterAll(async () => {
    await b.close();
  });

  it('answers 4xx, never 5xx, to wrong types, handles and ids', async () => {
    const call = (method: string, path: string, body?: unknown, auth = b.adminHeaders) =>
      fetch(`${b.api}${path}`, {
        method,
        headers: { ...auth, 'content-type': 'application/json' },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
    // Handles and URLs that lead nowhere off the machine: loopback, closed ports.
    const bodies: unknown[] = [
      {},
      { actor: 123 },
      { actor: null },
      { actor: ['@a@127.0.0.1:1'] },
      { actor: '@a@b@c' },
      { actor: '@@127.0.0.1:1' },
      { actor: '@a@127.0.0.1:1' },
      { actor: `@${'a'.repeat(10_000)}@127.0.0.1:1` },
      { actor: 'x'.repeat(10_000) },
      { actor: 'javascript:alert(1)' },
      { actor: 'file:///etc/passwd' },
      { actor: 'http://127.0.0.1:1/actor', trusted: 'yes' },
      { actor: 'http://127.0.0.1:1/actor', extra: true },
      { actor: '\u0000' },
      'not an object',
    ];
    for (const body of bodies) {
      const r = await call('POST', '/federation/sources', body);
      expect(r.status, JSON.stringify(body).slice(0, 80)).toBeGreaterThanOrEqual(400);
      expect(r.status, JSON.stringify(body).slice(0, 80)).toBeLessThan(500);
    }
    const paths: [string, string, unknown?][] = [
      ['GET', '/federation/sources/abc'],
      ['GET', '/federation/sources/99999999999'],
      ['GET', '/federation/sources/-1'],
      ['GET', '/federation/sources?page=0'],
      ['PATCH', '/federation/sources/1', { trusted: 'no' }],
      ['PATCH', '/federation/sources/99999999999', { trusted: true }],
      ['PATCH', '/federation/sources/1', 'x'],
      ['DELETE', '/federation/sources/0'],
      ['DELETE', '/federation/sources/2147483648'],
      ['GET', '/followers?state=other'],
      ['POST', '/followers/abc/approve'],
      ['POST', '/followers/99999999999/reject'],
      ['DELETE', '/followers/2147483648'],
    ];
    for (const [method, path, body] of paths) {
      const r = await call(method, path, body);
      expect(r.status, `${method} ${path}`).toBeGreaterThanOrEqual(400);
      expect(r.status, `${method} ${path}`).toBeLessThan(500);
    }
    // Editors and anonymous callers.
    const editor = { authorization: `Bearer ${b.users.editor.appPassword}` };
    for (const [method, path] of [
      ['GET', '/federation/sources'],
      ['POST', '/federation/sources'],
      ['GET', '/followers'],
    ]) {
      expect(
        (await call(method, path, method === 'POST' ? { actor: '@a@127.0.0.1:1' } : undefined, editor)).status,
      ).toBe(403);
      expect((await call(method, path, undefined, {} as typeof editor)).status).toBe(401);
    }
  });
});

describe.each(databaseKinds)('a remote server’s documents that are too large, too slow, or private on %s', (kind) => {
  it('refuses loopback actors when private addresses are not allowed, and asks nothing of them', async () => {
    const hits: string[] = [];
    const server = http.createServer((req, res) => {
      hits.push(req.url ?? '');
      res.writeHead(404).end();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as AddressInfo).port;
    const b = await federatedInstance(kind, { FEDERATION_ALLOW_PRIVATE_ADDRESSES: 'false' });
    try {
      for (const actor of [
        `http://127.0.0.1:${port}/actor`,
        `http://localhost:${port}/actor`,
        `http://[::ffff:127.0.0.1]:${port}/actor`,
        `http://2130706433:${port}/actor`,
        `http://0x7f.1:${port}/actor`,
        `http://[::1]:${port}/actor`,
        `@a@127.0.0.1:${port}`,
        `@a@localhost:${port}`,
      ]) {
        const r = await b.rest('POST', '/federation/sources', { actor });
        expect(r.status, actor).toBe(400);
      }
      expect(hits).toEqual([]);
    } finally {
      server.close();
      await b.close();
    }
  });

  it('refuses an actor document over 1 MiB, one that never ends, and a redirect to another server', async () => {
    const b = await federatedInstance(kind, { FEDERATION_TIMEOUT_SECONDS: '1' });
    const other = http.createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/activity+json' }).end('{}');
    });
    await new Promise<void>((resolve) => other.listen(0, '127.0.0.1', resolve));
    const otherPort = (other.address() as AddressInfo).port;
    const server = http.createServer((req, res) => {
      if (req.url === '/huge') {
        res.writeHead(200, { 'content-type': 'application/activity+json' });
        res.end(`{"type":"Group","name":"${'x'.repeat(2 * 1024 * 1024)}"}`);
      } else if (req.url === '/slow') {
        res.writeHead(200, { 'content-type': 'application/activity+json' });
        res.write('{"type":');
      } else {
        res.writeHead(302, { location: `http://127.0.0.1:${otherPort}/actor` }).end();
      }
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as AddressInfo).port;
    try {
      for (const path of ['/huge', '/slow', '/redirect']) {
        const started = Date.now();
        const r = await b.rest('POST', '/federation/sources', { actor: `http://127.0.0.1:${port}${path}` });
        expect(r.status, path).toBe(400);
        expect(Date.now() - started, path).toBeLessThan(3000);
      }
    } finally {
      server.closeAllConnections();
      server.close();
      other.close();
      await b.close();
    }
  });
});

describe.each(databaseKinds)('the inbox’s limits against one server on %s', (kind) => {
  it('counts a server’s activities by its host, whatever port its key id names', async () => {
    // Nothing here verifies: the key ids name closed ports on loopback, so Fedify's fetch of each
    // key fails at once. What counts is that the admission let each through to that fetch.
    const b = await federatedInstance(kind, { FEDERATION_INBOX_PER_MINUTE: '2' });
    try {
      const statuses: number[] = [];
      for (const port of [1, 1, 1, 2, 3]) {
        const r = await fetch(b.sharedInbox, {
          method: 'POST',
          headers: {
            'content-type': 'application/activity+json',
            date: new Date().toUTCString(),
            signature: `keyId="http://127.0.0.1:${port}/actor#main-key",algorithm="rsa-sha256",headers="(request-target) host date",signature="AAAA"`,
          },
          body: JSON.stringify({ type: 'Create', actor: `http://127.0.0.1:${port}/actor`, object: {} }),
        });
        statuses.push(r.status);
      }
      // The third from port 1 is refused (the limit works); those from ports 2 and 3 are not.
      expect(statuses[2]).toBe(429);
      expect(statuses.slice(3)).toEqual([429, 429]);
    } finally {
      await b.close();
    }
  });

  it('fetches nothing from a blocked host, not even the JSON-LD context an activity names', async () => {
    const hits: string[] = [];
    const contexts = http.createServer((req, res) => {
      hits.push(req.url ?? '');
      res.writeHead(200, { 'content-type': 'application/ld+json' }).end('{"@context":{}}');
    });
    await new Promise<void>((resolve) => contexts.listen(0, '127.0.0.1', resolve));
    const port = (contexts.address() as AddressInfo).port;
    // `localhost` is blocked; the sender is on 127.0.0.1, which is not.
    const [b, gancio] = await Promise.all([
      federatedInstance(kind, { FEDERATION_BLOCKED_HOSTS: 'localhost' }),
      remoteCalendar('gancio', [GANCIO]),
    ]);
    try {
      const activity = {
        ...createOf(gancio, 40),
        '@context': ['https://www.w3.org/ns/activitystreams', `http://localhost:${port}/context.jsonld`],
      };
      await gancio.send(b.sharedInbox, activity, gancio.actor(GANCIO.path));
      expect(hits).toEqual([]);
    } finally {
      contexts.close();
      await Promise.all([b.close(), gancio.close()]);
    }
  });

  it('blocks a host written with the trailing dot of a fully qualified name', () => {
    // `evil.example.` is the same host as `evil.example` to DNS; WHATWG URLs keep the dot.
    expect(isBlocked('https://evil.example./federation/actor', ['evil.example'])).toBe(true);
    expect(isBlocked('https://a.evil.example./federation/actor', ['evil.example'])).toBe(true);
    expect(isBlocked('https://evil.example%2e/federation/actor', ['evil.example'])).toBe(true);
    expect(isBlocked('https://EVIL.example:8443/x', ['evil.example'])).toBe(true);
    expect(isBlocked('https://xn--bcher-kva.example/x', ['xn--bcher-kva.example'])).toBe(true);
    expect(isBlocked('https://bücher.example/x', ['xn--bcher-kva.example'])).toBe(true);
    expect(isBlocked('https://notevil.example/x', ['evil.example'])).toBe(false);
  });
});
