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
  let running = false;
  // Set by a tick that came while another ran: the running one goes round once more.
  let again = false;
  const askedAgain = () => again;
  let stopped = false;

  async function tick() {
    if (running) {
      again = true;
      return;
    }
    running = true;
    try {
      do {
        again = false;
        while ((await dispatchChanges(db, settings.payload)) > 0 && !stopped);
        const leased = await leaseDue(db, CONCURRENCY - inFlight.size, settings.delivery);
        for (const delivery of leased) {
          const sending = attempt(db, delivery, settings.delivery)
            .catch(onError)
            .finally(() => {
              inFlight.delete(sending);
              // A free slot: more may be due.
              if (!stopped) void tick();
            });
          inFlight.add(sending);
        }
      } while (askedAgain() && !stopped);
    } catch (err) {
      onError(err);
    } finally {
      running = false;
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
      await Promise.allSettled([...inFlight]);
    },
  };
}
