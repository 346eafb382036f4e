// The federation's doors on the Express app: Fedify answers its own routes (WebFinger, NodeInfo,
// the actor, its inbox, outbox and followers), and the events' documents are answered here, at
// their federation id and, by content negotiation, at their permalink (`/event/<slug>/` asked for
// ActivityStreams; everyone else gets the page). Only these paths are handed to Fedify: turning
// every request into a Fetch Request would cost the API's hot reads for nothing.
import { Readable } from 'node:stream';
import type { Federation } from '@fedify/fedify';
import express, { type NextFunction, type Request, type Response } from 'express';
import getRawBody from 'raw-body';
import type { Config } from '../config.js';
import type { PrismaClient } from '../db/client.js';
import { NotFound, NotReadable } from '../domain/errors.js';
import { serializeEvent } from '../serializers/events.js';
import { anonymousReading } from './reading.js';
import { serviceContext } from '../services/context.js';
import { getEvent } from '../services/events/read.js';
import { CONTEXT, eventDocument, eventObjectId, federationUrls } from './activity-streams.js';

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

  router.use((req, res, next) => {
    if (!FEDIFY_PATHS.test(req.path)) {
      next();
      return;
    }
    void toFedify(req, res, next, federation);
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
async function toFedify(req: Request, res: Response, next: NextFunction, federation: Federation<undefined>) {
  try {
    const url = new URL(req.originalUrl, `${req.protocol}://${req.get('host')}`);
    const headers = new Headers();
    for (const [name, value] of Object.entries(req.headers)) {
      if (value !== undefined) headers.set(name, Array.isArray(value) ? value.join(', ') : value);
    }
    const body =
      req.method === 'GET' || req.method === 'HEAD' ? undefined : await getRawBody(req, { limit: MAX_ACTIVITY_BYTES });
    const request = new Request(url, { method: req.method, headers, body });
    // Set from Fedify's callbacks (an object: TypeScript does not follow assignments inside closures).
    const routed = { passed: false };
    const pass = () => {
      routed.passed = true;
      return new Response(null, { status: 404 });
    };
    const response = await federation.fetch(request, {
      contextData: undefined,
      onNotFound: pass,
      onNotAcceptable: pass,
    });
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
    next(err);
  }
}
