// A remote ActivityPub actor for the tests, built with Fedify's own tools on loopback: it follows,
// and its inbox keeps every activity that reached it, which Fedify takes only when its HTTP
// Signature verifies against the sender's published key.
import { AsyncLocalStorage } from 'node:async_hooks';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Readable } from 'node:stream';
import { createFederation, MemoryKvStore } from '@fedify/fedify';
import { Activity, Endpoints, Person } from '@fedify/vocab';

export interface ReceivedActivity {
  activity: Activity;
  /** The activity as it was sent (Fedify keeps the JSON it parsed). */
  json: Record<string, unknown>;
  /** The request's Signature header (draft-cavage), or Signature-Input (RFC 9421). */
  signature: string | null;
}

/** Serves a Fetch handler over Node's HTTP server on loopback. */
export async function serveFetch(handler: (request: Request) => Promise<Response>) {
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const headers = new Headers();
      for (const [name, value] of Object.entries(req.headers)) {
        if (value !== undefined) headers.set(name, Array.isArray(value) ? value.join(', ') : value);
      }
      const hasBody = req.method !== 'GET' && req.method !== 'HEAD';
      const request = new Request(`http://${req.headers.host}${req.url}`, {
        method: req.method,
        headers,
        body: hasBody ? Buffer.concat(chunks) : undefined,
      });
      void handler(request).then((response) => {
        res.writeHead(response.status, Object.fromEntries(response.headers));
        if (response.body) Readable.fromWeb(response.body as never).pipe(res);
        else res.end();
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    origin,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => {
          resolve();
        });
      }),
  };
}

/** An RSA pair of 2048 bits (Fedify's own are 4096, a second or two each to make). */
export const rsaPair = () =>
  crypto.subtle.generateKey(
    { name: 'RSASSA-PKCS1-v1_5', modulusLength: 2048, publicExponent: new Uint8Array([1, 0, 1]), hash: 'SHA-256' },
    true,
    ['sign', 'verify'],
  );

/** A Person `alice` at `<origin>/users/alice`, whose inbox (and shared inbox) keeps what it receives. */
export async function fedifyActor() {
  const received: ReceivedActivity[] = [];
  const keys = [await rsaPair()];
  const federation = createFederation<undefined>({ kv: new MemoryKvStore(), allowPrivateAddress: true });
  federation
    .setActorDispatcher('/users/{identifier}', async (ctx, identifier) => {
      if (identifier !== 'alice') return null;
      const [pair] = await ctx.getActorKeyPairs(identifier);
      return new Person({
        id: ctx.getActorUri(identifier),
        preferredUsername: identifier,
        inbox: ctx.getInboxUri(identifier),
        endpoints: new Endpoints({ sharedInbox: ctx.getInboxUri() }),
        publicKey: pair.cryptographicKey,
      });
    })
    .setKeyPairsDispatcher(() => keys);
  const errors: unknown[] = [];
  federation
    .setInboxListeners('/users/{identifier}/inbox', '/inbox')
    .on(Activity, async (_ctx, activity) => {
      received.push({
        activity,
        json: (await activity.toJsonLd()) as Record<string, unknown>,
        signature: signatureOf.getStore() ?? null,
      });
    })
    .onError((_ctx, err) => {
      errors.push(err);
    });
  // The request's signature header, for the listener (Fedify processes the activity within fetch).
  const signatureOf = new AsyncLocalStorage<string | null>();
  const served = await serveFetch((request) =>
    signatureOf.run(request.headers.get('signature') ?? request.headers.get('signature-input'), () =>
      federation.fetch(request, { contextData: undefined }),
    ),
  );
  const context = () => federation.createContext(new URL(served.origin), undefined);
  return {
    origin: served.origin,
    actorId: new URL(`${served.origin}/users/alice`),
    keys,
    received,
    /** What the inbox failed on (an activity it could not take). */
    errors,
    federation,
    context,
    close: served.close,
  };
}
