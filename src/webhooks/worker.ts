// The webhook worker of one instance: every `pollMs`, and shortly after a write nudges it, it turns
// new changes into deliveries (dispatch.ts) and sends what is due (deliver.ts), up to CONCURRENCY
// attempts at once, taking more as attempts end, without waiting for slow receivers before it looks
// again. Several instances may run it at once.
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

/** Changes dispatched in one transaction. */
const DISPATCH_BATCH = 200;

/** How long a nudge waits, so that the writes of a busy moment are dispatched together. */
const NUDGE_DELAY_MS = 25;

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
  const inFlight = new Set<Promise<void>>();
  // Sends started when an attempt freed its slot (below), outside any round.
  const refills = new Set<Promise<void>>();
  let running: Promise<void> | undefined;
  // Set when work was asked for while a round ran: the running one goes round once more.
  let again = false;
  const askedAgain = () => again;
  let stopped = false;
  // Read through a function: an attempt's end or a new round may come after stop().
  const isStopped = () => stopped;
  let nudged: NodeJS.Timeout | undefined;

  function round(): Promise<void> {
    if (running) {
      again = true;
      return running;
    }
    running = dispatchAndSend().finally(() => {
      running = undefined;
    });
    return running;
  }

  async function dispatchAndSend() {
    try {
      let more: boolean;
      do {
        again = false;
        // One batch, then sending: under a steady stream of writes there is always more to dispatch,
        // and sending must not wait for the stream to end.
        try {
          more = (await dispatchChanges(db, settings.payload, DISPATCH_BATCH, onError)) === DISPATCH_BATCH;
        } finally {
          // Retries and pings go out even while dispatching fails.
          await send();
        }
      } while ((more || askedAgain()) && !isStopped());
    } catch (err) {
      onError(err);
    }
  }

  /** Fills the free attempt slots with due deliveries. */
  async function send() {
    if (isStopped()) return;
    const leased = await leaseDue(db, CONCURRENCY - inFlight.size, settings.delivery);
    for (const delivery of leased) {
      const sending = attempt(db, delivery, settings.delivery)
        .catch(onError)
        .finally(() => {
          inFlight.delete(sending);
          // A free slot: more may be due (a retry, or what did not fit before). Kept among the work
          // stop() waits for: its lease may still be reading when stop() is called.
          if (!isStopped() && !running) {
            const refill = send()
              .catch(onError)
              .finally(() => refills.delete(refill));
            refills.add(refill);
          }
        });
      inFlight.add(sending);
    }
  }

  // The queue as /metrics reports it: messages waiting for a first attempt or a retry.
  const untrack = trackWebhookQueue(async () => {
    const [{ n }] = await db.prisma.$queryRaw<{ n: number }[]>`
      SELECT count(*)::int AS n FROM webhook_deliveries WHERE state = 'pending'`;
    return n;
  });
  // Whether an enabled subscription existed at the last poll; until the first, as if one did. A
  // nudge runs a round only then. Without one a round writes no delivery (writeDeliveries takes
  // enabled subscriptions only) and leases none (leaseDue likewise): all it does is move the
  // dispatch position, which the next poll does as well. A subscription made meanwhile, on this
  // instance or another, takes only changes recorded after it was made (dispatch.ts); the next
  // poll of any instance, every pollMs whatever the nudges, dispatches them and finds it, and
  // nudges run rounds again. So skipping costs at most one poll's delay, nothing is lost or doubled,
  // and a service without subscriptions saves a round of five statements per write (up to 40 a
  // second under a stream of creates, docs/performance.md "Built answers: the levers").
  let subscribed = true;
  let polling: Promise<void> | undefined;
  const poll = () => {
    polling ??= askSubscribed().finally(() => {
      polling = undefined;
    });
  };
  const askSubscribed = async () => {
    try {
      const [{ any }] = await db.prisma.$queryRaw<{ any: boolean }[]>`
        SELECT EXISTS (SELECT 1 FROM webhook_subscriptions WHERE enabled) AS any`;
      subscribed = any;
    } catch {
      // As if one did; the round that follows meets the same failure and reports it.
      subscribed = true;
    }
    if (!isStopped()) void round();
  };
  const timer = setInterval(poll, settings.pollMs ?? 500);
  timer.unref();
  poll();
  return {
    nudge: () => {
      if (stopped || nudged || !subscribed) return;
      nudged = setTimeout(() => {
        nudged = undefined;
        void round();
      }, NUDGE_DELAY_MS);
    },
    stop: async () => {
      stopped = true;
      untrack();
      clearInterval(timer);
      clearTimeout(nudged);
      await polling;
      // An attempt that ends may have been leased by the round still running: wait until both are done.
      while (running || inFlight.size || refills.size) await Promise.allSettled([running, ...inFlight, ...refills]);
    },
  };
}
