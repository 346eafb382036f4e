// The webhook worker of one instance: the shared change-feed consumer's loop
// (change-feed/consumer.ts) with the webhooks' dispatch (dispatch.ts) and deliveries (deliver.ts).
import { startDeliveryLoop } from '../change-feed/consumer.js';
import type { Database } from '../db/client.js';
import { attempt, type DeliverySettings, leaseDue } from './deliver.js';
import { dispatchChanges, type PayloadSettings } from './dispatch.js';
import { trackWebhookQueue } from '../metrics/registry.js';

/**
 * Attempts in flight at once, per instance: waiting sockets, cheap to hold. No subscription takes
 * more than PER_SUBSCRIPTION of them (deliver.ts), so it takes this many receivers hanging at once,
 * divided by that, before a healthy one waits for a slot.
 */
const CONCURRENCY = 128;

export interface WebhookWorker {
  /** Look for work soon (after a write), instead of at the next poll. */
  nudge(): void;
  /** Stops polling and waits for the round and the attempts in flight. */
  stop(): Promise<void>;
}

export function startWebhooks(
  db: Database,
  settings: { payload: PayloadSettings; delivery: DeliverySettings; pollMs?: number },
  onError: (err: unknown) => void,
): WebhookWorker {
  // The queue as /metrics reports it: messages waiting for a first attempt or a retry.
  const untrack = trackWebhookQueue(async () => {
    const [{ n }] = await db.prisma.$queryRaw<{ n: number }[]>`
      SELECT count(*)::int AS n FROM webhook_deliveries WHERE state = 'pending'`;
    return n;
  });
  const loop = startDeliveryLoop(
    {
      dispatch: (limit) => dispatchChanges(db, settings.payload, limit, onError),
      lease: (limit) => leaseDue(db, limit, settings.delivery),
      attempt: (delivery) => attempt(db, delivery, settings.delivery),
      // Whether an enabled subscription exists, asked at each poll: a nudge runs a round only then.
      // Without one a round writes no delivery (writeDeliveries takes enabled subscriptions only)
      // and leases none (leaseDue likewise): all it does is move the dispatch position, which the
      // next poll does as well. A subscription made meanwhile, on this instance or another, takes
      // only changes recorded after it was made (dispatch.ts); the next poll of any instance, every
      // pollMs whatever the nudges, dispatches them and finds it, and nudges run rounds again. So
      // skipping costs at most one poll's delay, nothing is lost or doubled, and a service without
      // subscriptions saves a round of five statements per write (up to 40 a second under a stream
      // of creates, docs/performance.md "Built answers: the levers").
      active: async () => {
        const [{ any }] = await db.prisma.$queryRaw<{ any: boolean }[]>`
          SELECT EXISTS (SELECT 1 FROM webhook_subscriptions WHERE enabled) AS any`;
        return any;
      },
      concurrency: CONCURRENCY,
      pollMs: settings.pollMs ?? 500,
    },
    onError,
  );
  return {
    nudge: loop.nudge,
    stop: async () => {
      untrack();
      await loop.stop();
    },
  };
}
