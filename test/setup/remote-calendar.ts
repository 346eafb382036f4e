// A server of another calendar for the tests, on loopback, that speaks ActivityPub as Mobilizon or
// Gancio do (their code, read with the repositories' sources: Mobilizon's lib/federation/, Gancio's
// server/federation/): actors with an RSA key published as PEM in the form each writes (Mobilizon
// PKCS#1 `RSA PUBLIC KEY`, Gancio SPKI `PUBLIC KEY`), WebFinger and NodeInfo, a Follow answered with
// a signed Accept, documents served at their ids, and activities sent signed (draft-cavage
// rsa-sha256 as both do, or RFC 9421). It is a test double of their wire format only: it verifies
// nothing it receives.
import { generateKeyPairSync, webcrypto } from 'node:crypto';
import { signRequest } from '@fedify/fedify';
import { serveFetch } from './fedify-actor.js';

type Json = Record<string, any>;

export type Flavour = 'mobilizon' | 'gancio';

/** An actor of the server: its path, type and user name. */
interface ActorSpec {
  path: string;
  type: string;
  username: string;
  name: string;
}

/** Replaces `{{origin}}` in every string of a fixture with the server's origin. */
export function withOrigin<T>(fixture: T, origin: string): T {
  return JSON.parse(JSON.stringify(fixture).replaceAll('{{origin}}', origin)) as T;
}

export async function remoteCalendar(flavour: Flavour, actors: ActorSpec[]) {
  const pair = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const publicKeyPem = pair.publicKey
    .export({ type: flavour === 'mobilizon' ? 'pkcs1' : 'spki', format: 'pem' })
    .toString();
  const privateKey = await webcrypto.subtle.importKey(
    'pkcs8',
    pair.privateKey.export({ type: 'pkcs8', format: 'der' }),
    { name: 'RSASSA-PKCS1-v1_5', hash: 'SHA-256' },
    // Fedify's signRequest asks for an extractable key.
    true,
    ['sign'],
  );
  /** Answers to GETs by path: status and body. */
  const documents = new Map<string, { status: number; body: unknown }>();
  /** What was POSTed to any inbox here. */
  const received: Json[] = [];
  let origin = '';

  const actorDocument = (spec: ActorSpec): Json => ({
    '@context': ['https://www.w3.org/ns/activitystreams', 'https://w3id.org/security/v1'],
    id: `${origin}${spec.path}`,
    type: spec.type,
    preferredUsername: spec.username,
    name: spec.name,
    summary: '',
    inbox: `${origin}${spec.path}/inbox`,
    outbox: `${origin}${spec.path}/outbox`,
    followers: `${origin}${spec.path}/followers`,
    endpoints: { sharedInbox: `${origin}/inbox` },
    manuallyApprovesFollowers: false,
    publicKey: { id: `${origin}${spec.path}#main-key`, owner: `${origin}${spec.path}`, publicKeyPem },
  });

  /** POSTs the activity to the inbox, signed with the key of `by` (its `#main-key`). */
  async function send(
    inbox: string,
    activity: Json,
    by: string,
    spec: 'draft-cavage-http-signatures-12' | 'rfc9421' = 'draft-cavage-http-signatures-12',
  ) {
    const body = JSON.stringify(activity);
    const request = new Request(inbox, {
      method: 'POST',
      headers: { 'content-type': 'application/activity+json', accept: 'application/activity+json' },
      body,
    });
    const signed = await signRequest(request, privateKey, new URL(`${by}#main-key`), { spec });
    return fetch(signed);
  }

  /** Accepts a Follow as the followed actor: to the follower's own inbox, read from its document. */
  async function accept(follow: Json) {
    const follower = (await (
      await fetch(String(follow.actor), { headers: { accept: 'application/activity+json' } })
    ).json()) as Json;
    const accepted = {
      '@context': 'https://www.w3.org/ns/activitystreams',
      id: `${origin}/accept/follow/${received.length}`,
      type: 'Accept',
      actor: follow.object,
      // Gancio sends the Follow back whole (follows.js); Mobilizon its own copy (accept.ex).
      object:
        flavour === 'gancio' ? follow : { id: follow.id, type: 'Follow', actor: follow.actor, object: follow.object },
    };
    const r = await send(String(follower.inbox), accepted, String(follow.object));
    if (r.status >= 300) throw new Error(`Accept refused: ${r.status} ${await r.text()}`);
  }

  const served = await serveFetch(async (request) => {
    const url = new URL(request.url);
    if (request.method === 'POST') {
      const activity = (await request.json()) as Json;
      received.push(activity);
      if (activity.type === 'Follow') {
        setTimeout(() => {
          accept(activity).catch((err: unknown) => {
            console.error(err);
          });
        }, 10);
      }
      return new Response(null, { status: 202 });
    }
    const spec = actors.find((a) => a.path === url.pathname);
    if (spec) return Response.json(actorDocument(spec), { headers: { 'content-type': 'application/activity+json' } });
    if (url.pathname === '/.well-known/webfinger') {
      const resource = url.searchParams.get('resource') ?? '';
      const found = actors.find((a) => resource === `acct:${a.username}@${url.host}`);
      if (!found) return new Response(null, { status: 404 });
      return Response.json({
        subject: resource,
        links: [{ rel: 'self', type: 'application/activity+json', href: `${origin}${found.path}` }],
      });
    }
    if (url.pathname === '/.well-known/nodeinfo') {
      // FEP-2677: the server's application actor, which Mobilizon looks for to follow an instance.
      const application = actors.find((a) => a.type === 'Application');
      return Response.json({
        links: [
          { rel: 'http://nodeinfo.diaspora.software/ns/schema/2.0', href: `${origin}/nodeinfo/2.0` },
          ...(application
            ? [{ rel: 'https://www.w3.org/ns/activitystreams#Application', href: `${origin}${application.path}` }]
            : []),
        ],
      });
    }
    const document = documents.get(url.pathname);
    if (document)
      return Response.json(document.body, {
        status: document.status,
        headers: { 'content-type': 'application/activity+json' },
      });
    return new Response('Not found', { status: 404 });
  });
  origin = served.origin;
  return {
    origin,
    /** The id of the actor at `path`. */
    actor: (path: string) => `${origin}${path}`,
    host: new URL(origin).host,
    documents,
    received,
    send,
    close: served.close,
  };
}
