// Probes for load balancers and orchestrators, outside the namespace: /healthz says the process
// answers, /readyz that it can reach its database and is not shutting down.
import { type Request, type Response, Router } from 'express';
import { setTimeout } from 'node:timers/promises';
import type { Database } from '../db/client.js';
import type { FeedLag } from '../queries/changes.js';

const READY_TIMEOUT_MS = 2_000;

export interface Health {
  router: Router;
  /** From now on /readyz answers 503, so that the balancer stops sending requests here. */
  drain: () => void;
}

/**
 * `feedLag` reads how far the change feed is behind (queries/changes.ts): reported in /readyz, not
 * failing it, as no instance can end another client's long transaction, and taking every instance
 * out of the balancer would not either.
 */
export function health(db: Database, feedLag: () => Promise<FeedLag>): Health {
  let draining = false;
  const router = Router();
  const send = (res: Response, status: number, body: object) =>
    res.status(status).set('Cache-Control', 'no-store').json(body);
  router.get('/healthz', (_req: Request, res: Response) => send(res, 200, { status: 'ok' }));
  router.get('/readyz', async (_req: Request, res: Response) => {
    if (draining) return send(res, 503, { status: 'draining' });
    try {
      // Bounded of its own: a database that stopped answering must fail the probe, not hang it.
      const lag = await Promise.race([
        db.ping().then(feedLag),
        setTimeout(READY_TIMEOUT_MS).then(() => Promise.reject(new Error('timeout'))),
      ]);
      send(res, 200, {
        status: 'ready',
        database: db.kind,
        change_feed: { held_back: lag.heldBack, lag_seconds: Math.round(lag.lagSeconds * 10) / 10 },
      });
    } catch {
      send(res, 503, { status: 'unavailable', database: db.kind });
    }
  });
  return { router, drain: () => void (draining = true) };
}
