// The webhook worker of one instance: every `pollMs` (sooner when nudged after a write) it turns new
// changes into deliveries (dispatch.ts) and sends what is due (deliver.ts), a few at a time, without
// waiting for slow receivers before it looks again. Several instances may run it at once.
import type { Database } from '../db/client.js';
import { attempt, type DeliverySettings, leaseDue } from './deliver.js';
import { dispatchChanges, type PayloadSettings } from './dispatch.js';

/** Attempts in flight at once, per instance. */
const CONCURRENCY = 8;

export interface WebhookWorker {
  /** Look for work now (after a write), instead of at the next poll. */
  nudge(): void;
  /** Stops polling and waits for the attempts in flight. */
  stop(): Promise<void>;
}

export function startWebhooks(
  db: Database,
  settings: { payload: PayloadSettings; delivery: DeliverySettings; pollMs?: number },
  onError: (err: unknown) => void,
): WebhookWorker {
  const inFlight = new Set<Promise<void>>();
  let running: Promise<void> | undefined;
  // Set by a tick that came while another ran: the running one goes round once more.
  let again = false;
  const askedAgain = () => again;
  let stopped = false;
  // Read through a function: an attempt's end or a new round may come after stop().
  const isStopped = () => stopped;

  function tick(): Promise<void> {
    if (running) {
      again = true;
      return running;
    }
    running = round().finally(() => {
      running = undefined;
    });
    return running;
  }

  async function round() {
    try {
      do {
        again = false;
        while ((await dispatchChanges(db, settings.payload)) > 0 && !isStopped());
        if (isStopped()) return;
        const leased = await leaseDue(db, CONCURRENCY - inFlight.size, settings.delivery);
        for (const delivery of leased) {
          const sending = attempt(db, delivery, settings.delivery)
            .catch(onError)
            .finally(() => {
              inFlight.delete(sending);
              // A free slot: more may be due.
              if (!isStopped()) void tick();
            });
          inFlight.add(sending);
        }
      } while (askedAgain() && !isStopped());
    } catch (err) {
      onError(err);
    }
  }

  const timer = setInterval(() => void tick(), settings.pollMs ?? 500);
  timer.unref();
  void tick();
  return {
    nudge: () => {
      if (!stopped) void tick();
    },
    stop: async () => {
      stopped = true;
      clearInterval(timer);
      // An attempt that ends may have been leased by the round still running: wait until both are done.
      while (running || inFlight.size) await Promise.allSettled([running, ...inFlight]);
    },
  };
}
