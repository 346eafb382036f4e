// The federation worker of one instance, as the webhook worker (webhooks/worker.ts): every
// `pollMs`, and shortly after a write nudges it, it turns new changes of events into deliveries
// (dispatch.ts) and sends what is due (deliver.ts), up to CONCURRENCY attempts at once, without
// waiting for slow servers before it looks again. Several instances may run it at once.
import type { Federation } from '@fedify/fedify';
import type { FederationSettings } from '../config/federation.js';
import type { Database } from '../db/client.js';
import { trackFederationQueue } from '../metrics/registry.js';
import { ACTOR } from './activity-streams.js';
import { attempt, leaseDue, type SigningKey } from './deliver.js';
import { type DispatchSettings, dispatchEventChanges } from './dispatch.js';

/** Attempts in flight at once, per instance; no host takes more than PER_HOST of them (deliver.ts). */
const CONCURRENCY = 64;
const DISPATCH_BATCH = 200;
const NUDGE_DELAY_MS = 25;

export interface FederationWorker {
  nudge(): void;
  stop(): Promise<void>;
}

export function startFederation(
  db: Database,
  federation: Federation<undefined>,
  settings: { federation: FederationSettings; dispatch: DispatchSettings; pollMs?: number },
  onError: (err: unknown) => void,
): FederationWorker {
  const inFlight = new Set<Promise<void>>();
  let running: Promise<void> | undefined;
  let again = false;
  const askedAgain = () => again;
  let stopped = false;
  const isStopped = () => stopped;
  let nudged: NodeJS.Timeout | undefined;
  let key: Promise<SigningKey> | undefined;

  /** The RSA pair Fedify names `#main-key`, read once (keys.ts makes it on first use). */
  const signingKey = () => {
    key ??= (async () => {
      const ctx = federation.createContext(new URL(settings.federation.site), undefined);
      const [rsa] = await ctx.getActorKeyPairs(ACTOR);
      // ActorKeyPair extends the DOM's CryptoKeyPair, which this project's lib does not declare.
      return { keyId: rsa.keyId, privateKey: (rsa as unknown as { privateKey: SigningKey['privateKey'] }).privateKey };
    })().catch((err: unknown) => {
      key = undefined;
      throw err;
    });
    return key;
  };

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
        try {
          more = (await dispatchEventChanges(db, settings.dispatch, DISPATCH_BATCH, onError)) === DISPATCH_BATCH;
        } finally {
          await send();
        }
      } while ((more || askedAgain()) && !isStopped());
    } catch (err) {
      onError(err);
    }
  }

  async function send() {
    if (isStopped()) return;
    const leased = await leaseDue(db, CONCURRENCY - inFlight.size, settings.federation);
    if (!leased.length) return;
    const signing = await signingKey();
    for (const delivery of leased) {
      const sending = attempt(db, delivery, signing, settings.federation)
        .catch(onError)
        .finally(() => {
          inFlight.delete(sending);
          if (!isStopped() && !running) void round();
        });
      inFlight.add(sending);
    }
  }

  const untrack = trackFederationQueue(async () => {
    const [{ n }] = await db.prisma.$queryRaw<{ n: number }[]>`
      SELECT count(*)::int AS n FROM federation_deliveries WHERE state = 'pending'`;
    return n;
  });
  const timer = setInterval(() => void round(), settings.pollMs ?? 500);
  timer.unref();
  void round();
  return {
    nudge: () => {
      if (stopped || nudged) return;
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
      while (running || inFlight.size) await Promise.allSettled([running, ...inFlight]);
    },
  };
}
