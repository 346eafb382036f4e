// The federation's doors on the Express app: Fedify answers its own routes (WebFinger, NodeInfo,
// the actor, its inbox, outbox and followers), and the events' documents are answered here, at
// their federation id and, by content negotiation, at their permalink (`/event/<slug>/` asked for
// ActivityStreams; everyone else gets the page). Only these paths are handed to Fedify: turning
// every request into a Fetch Request would cost the API's hot reads for nothing.
import { Readable } from 'node:stream';
import type { Federation } from '@fedify/fedify';
import express, { type NextFunction, type Request, type Response } from 'express';
import getRawBody from 'raw-body';
import { RateLimiterMemory, RateLimiterRes } from 'rate-limiter-flexible';
import type { Config } from '../config.js';
import type { PrismaClient } from '../db/client.js';
import { NotFound, NotReadable } from '../domain/errors.js';
import { serializeEvent } from '../serializers/events.js';
import { anonymousReading } from './reading.js';
import { serviceContext } from '../services/context.js';
import { getEvent } from '../services/events/read.js';
import { CONTEXT, eventDocument, eventObjectId, federationUrls } from './activity-streams.js';
import { inboundActivity } from './inbox.js';
import { causedByFetch } from './federation.js';
import { hostName, isBlocked } from './remote-documents.js';
import { nestedTooDeep } from '../http/body.js';

/** How many times a server's allowance one client address may send, for all the servers it sends for. */
const ADDRESS_SHARE = 4;

/** What an inbox takes in one activity: Mastodon's own limit is 1 MiB. */
const MAX_ACTIVITY_BYTES = 1024 * 1024;

const FEDIFY_PATHS = /^\/(?:\.well-known\/(?:webfinger|nodeinfo)$|nodeinfo\/2\.1$|federation\/(?:actors\/|inbox$))/;

// With its profile too: a type with parameters in Accept matches only a type offered with them.
const AS_TYPES = [
  'application/activity+json',
  'application/ld+json; profile="https://www.w3.org/ns/activitystreams"',
  'application/ld+json',
];

/** Whether the request prefers ActivityStreams to a page (`Accept`, by its q-values and order). */
export const wantsActivityStreams = (req: Request) => {
  const type = req.accepts(['text/html', ...AS_TYPES]);
  return type !== false && type !== 'text/html' && req.headers.accept !== undefined;
};

export function federationRoutes(config: Config, db: PrismaClient, federation: Federation<undefined>, site: string) {
  const router = express.Router();
  const urls = federationUrls(site);
  const anonymous = () => serviceContext(config, { db, caller: null });
  const serialized = anonymousReading(config);

  const blockedHosts = config.federation?.blockedHosts ?? [];
  const admit = inboxAdmission(config.federation?.inboxPerMinute ?? 300, blockedHosts);
  // NodeInfo's index with the calendar's actor as the server's application actor (FEP-2677), which
  // Mobilizon reads to follow a server by its address (src/federation/lookup.ts reads others' so);
  // Fedify's own index links only the NodeInfo document.
  router.get('/.well-known/nodeinfo', (_req, res) => {
    res.type('application/json').send(
      JSON.stringify({
        links: [
          { rel: 'http://nodeinfo.diaspora.software/ns/schema/2.1', href: `${site}/nodeinfo/2.1` },
          { rel: 'https://www.w3.org/ns/activitystreams#Application', href: urls.actor },
        ],
      }),
    );
  });
  router.use((req, res, next) => {
    if (!FEDIFY_PATHS.test(req.path)) {
      next();
      return;
    }
    if (req.method === 'POST') {
      void admit(req, res).then((admitted) => {
        if (admitted) void toFedify(req, res, next, federation, blockedHosts);
      }, next);
      return;
    }
    void toFedify(req, res, next, federation, blockedHosts);
  });

  /** The event's document; a 410 and a Tombstone once followers were told it is deleted; else 404. */
  const answerEvent = async (res: Response, key: { id: number } | { slug: string }) => {
    try {
      const row = await getEvent(anonymous(), key);
      res.vary('Accept');
      res.type('application/activity+json').send(JSON.stringify(eventDocument(serializeEvent(row, serialized), urls)));
    } catch (err) {
      if (!(err instanceof NotFound || err instanceof NotReadable)) throw err;
      const id = 'id' in key ? key.id : undefined;
      const gone =
        id !== undefined &&
        (await db.$queryRaw<{ live: boolean }[]>`SELECT live FROM federation_events WHERE event_id = ${id}`).at(0)
          ?.live === false;
      res.vary('Accept');
      if (gone) {
        // Mobilizon deletes a remote event only once its URL answers 410 Gone.
        res
          .status(410)
          .type('application/activity+json')
          .send(
            JSON.stringify({
              '@context': CONTEXT,
              id: eventObjectId(site, id),
              type: 'Tombstone',
              formerType: 'Event',
            }),
          );
      } else {
        res
          .status(404)
          .type('application/activity+json')
          .send(JSON.stringify({ error: 'not found' }));
      }
    }
  };

  router.get('/federation/events/:id', (req, res, next) => {
    const id = Number(req.params.id);
    if (!/^[1-9]\d{0,9}$/.test(req.params.id) || id > 2 ** 31 - 1) {
      res
        .status(404)
        .type('application/activity+json')
        .send(JSON.stringify({ error: 'not found' }));
      return;
    }
    if (wantsActivityStreams(req)) {
      answerEvent(res, { id }).catch(next);
      return;
    }
    // A person following the id (Mobilizon shows it as the event's link) goes to the page.
    getEvent(anonymous(), { id })
      .then((row) => {
        res.redirect(302, serializeEvent(row, serialized).url);
      })
      .catch((err: unknown) => {
        if (err instanceof NotFound || err instanceof NotReadable) res.status(404).type('text/plain').send('Not found');
        else next(err);
      });
  });

  router.get('/event/:slug/', (req, res, next) => {
    if (!wantsActivityStreams(req)) {
      res.vary('Accept');
      next();
      return;
    }
    answerEvent(res, { slug: req.params.slug }).catch(next);
  });
  return router;
}

/** The request as a Fetch Request to Fedify, and its Response written back; what Fedify does not route goes on. */
async function toFedify(
  req: Request,
  res: Response,
  next: NextFunction,
  federation: Federation<undefined>,
  blockedHosts: string[],
) {
  try {
    const url = new URL(req.originalUrl, `${req.protocol}://${req.get('host')}`);
    const headers = new Headers();
    for (const [name, value] of Object.entries(req.headers)) {
      if (value !== undefined) headers.set(name, Array.isArray(value) ? value.join(', ') : value);
    }
    const body =
      req.method === 'GET' || req.method === 'HEAD' ? undefined : await getRawBody(req, { limit: MAX_ACTIVITY_BYTES });
    const request = new Request(url, { method: req.method, headers, body });
    const refused = body ? inboxRefusal(body, signingKeyId(req), blockedHosts) : undefined;
    if (refused) {
      res.status(refused.status).type('text/plain').send(refused.message);
      return;
    }
    // The activity as it was signed, for the listeners of the sources' activities (inbox.ts).
    const activity = body ? parsedObject(body) : undefined;
    // Set from Fedify's callbacks (an object: TypeScript does not follow assignments inside closures).
    const routed = { passed: false };
    const pass = () => {
      routed.passed = true;
      return new Response(null, { status: 404 });
    };
    const response = await inboundActivity.run(activity, () =>
      federation.fetch(request, { contextData: undefined, onNotFound: pass, onNotAcceptable: pass }),
    );
    if (routed.passed) {
      next();
      return;
    }
    res.status(response.status);
    response.headers.forEach((value, name) => {
      res.setHeader(name, value);
    });
    if (!response.body) {
      res.end();
      return;
    }
    Readable.fromWeb(response.body as never).pipe(res);
  } catch (err) {
    // A document the activity names (a JSON-LD context, an object by its URL) that its server
    // did not give: Fedify takes it for a passing failure and throws it up. The sender's to mend
    // or send again, not this service's failure.
    if (req.method === 'POST' && causedByFetch(err)) {
      res.status(400).type('text/plain').send('A document the activity names could not be read.');
      return;
    }
    next(err);
  }
}

/**
 * What an inbox refuses before Fedify reads it: JSON nested deeper than a JSON body may be (its
 * JSON-LD expansion recurses, and 3,000 levels overflowed the stack), an activity without an HTTP
 * Signature, and one signed by a key on another server than its actor's. Fedify takes a key whose `owner` names the actor without
 * asking the actor (Fedify 2.3.6 doesActorOwnKey): any server could publish a key naming a followed
 * calendar as its owner and sign as it. A key on the actor's own server is that server's to vouch
 * for.
 */
function inboxRefusal(
  body: Buffer,
  keyId: string | undefined,
  blockedHosts: string[],
): { status: number; message: string } | undefined {
  if (nestedTooDeep(body)) return { status: 400, message: 'The activity is nested too deeply.' };
  const activity = parsedObject(body);
  // Fedify fetches the JSON-LD contexts an activity names, and an object named by its URL alone:
  // nothing is asked of a blocked host.
  if (namedUrls(activity).some((url) => isBlocked(url, blockedHosts))) {
    return { status: 403, message: 'The activity names a server that is blocked here.' };
  }
  const actor = actorOf(activity);
  if (actor === undefined) return undefined;
  // Only activities with an HTTP Signature: Fedify would also take one proven by an embedded
  // integrity proof alone, whose key it holds to its actor no better than a signature's.
  if (keyId === undefined) return { status: 401, message: 'The activity has no HTTP Signature.' };
  const keyOrigin = originOf(keyId);
  if (keyOrigin === undefined || keyOrigin !== originOf(actor)) {
    return { status: 401, message: "The activity is signed by a key on another server than its actor's." };
  }
  return undefined;
}

/** The URLs an activity names that Fedify may fetch: its contexts, and its actor and object when named by URL. */
function namedUrls(activity: Record<string, unknown> | undefined): string[] {
  if (!activity) return [];
  const contexts = [activity['@context']].flat().filter((c): c is string => typeof c === 'string');
  const named = [activity.actor, activity.object].filter((v): v is string => typeof v === 'string');
  return [...contexts, ...named].filter((url) => /^https?:/i.test(url));
}

/** The activity's actor's id, as a string or an object with an id. */
function actorOf(activity: Record<string, unknown> | undefined): string | undefined {
  const actor = activity?.actor;
  if (typeof actor === 'string') return actor;
  if (actor && typeof actor === 'object' && !Array.isArray(actor)) {
    const id = (actor as Record<string, unknown>).id;
    return typeof id === 'string' ? id : undefined;
  }
  return undefined;
}

function originOf(url: string): string | undefined {
  try {
    const parsed = new URL(url);
    return `${parsed.protocol}//${hostName(parsed)}:${parsed.port}`;
  } catch {
    return undefined;
  }
}

/** The body as a JSON object, or undefined (Fedify answers a body that is not one itself). */
function parsedObject(body: Buffer): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(body.toString('utf8'));
    return value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/** The key's id a request's HTTP Signature names (draft-cavage `keyId`, RFC 9421 `keyid`), if any. */
function signingKeyId(req: Request): string | undefined {
  const header = `${req.get('signature') ?? ''} ${req.get('signature-input') ?? ''}`;
  return /keyid="([^"]*)"/i.exec(header)?.[1];
}

/**
 * What an inbox takes before Fedify verifies anything (which may fetch the sender's key): nothing
 * signed by a key of a blocked host (403), and at most `perMinute` activities a minute from one
 * remote server (the signing key's host) and client address (429, with Retry-After). The client
 * address is part of the key so that a sender naming another server's key cannot spend that
 * server's allowance. Counted in this instance's memory: a few instances let a server send a few times as many.
 */
function inboxAdmission(perMinute: number, blockedHosts: string[]) {
  const limiter = new RateLimiterMemory({ points: perMinute, duration: 60 });
  // And per client address alone, which a sender cannot vary by naming other hosts or ports in
  // its key ids: a few times as many, as one address may send for several servers.
  const perAddress = new RateLimiterMemory({ points: perMinute * ADDRESS_SHARE, duration: 60 });
  return async (req: Request, res: Response): Promise<boolean> => {
    const keyId = signingKeyId(req);
    if (keyId === undefined) return true;
    let host: string;
    try {
      host = hostName(new URL(keyId));
    } catch {
      return true;
    }
    if (isBlocked(keyId, blockedHosts)) {
      res.status(403).type('text/plain').send('This server is blocked here.');
      return false;
    }
    try {
      await perAddress.consume(req.ip ?? '');
      await limiter.consume(`${host} ${req.ip ?? ''}`);
      return true;
    } catch (err) {
      if (!(err instanceof RateLimiterRes)) throw err;
      res
        .status(429)
        .set('Retry-After', String(Math.max(1, Math.ceil(err.msBeforeNext / 1000))))
        .type('text/plain')
        .send('Too many activities from this server; try again later.');
      return false;
    }
  };
}
