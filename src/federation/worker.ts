// The federation worker of one instance: the shared change-feed consumer's loop
// (change-feed/consumer.ts) with federation's dispatch (dispatch.ts) and signed deliveries
// (deliver.ts).
import type { Federation } from '@fedify/fedify';
import { startDeliveryLoop } from '../change-feed/consumer.js';
import type { FederationSettings } from '../config/federation.js';
import type { Database } from '../db/client.js';
import { trackFederationQueue } from '../metrics/registry.js';
import { ACTOR } from './activity-streams.js';
import { attempt, leaseDue, type SigningKey } from './deliver.js';
import { type DispatchSettings, dispatchEventChanges } from './dispatch.js';

/** Attempts in flight at once, per instance; no host takes more than PER_HOST of them (deliver.ts). */
const CONCURRENCY = 64;

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

  const untrack = trackFederationQueue(async () => {
    const [{ n }] = await db.prisma.$queryRaw<{ n: number }[]>`
      SELECT count(*)::int AS n FROM federation_deliveries WHERE state = 'pending'`;
    return n;
  });
  const loop = startDeliveryLoop(
    {
      dispatch: (limit) => dispatchEventChanges(db, settings.dispatch, limit, onError),
      lease: (limit) => leaseDue(db, limit, settings.federation),
      attempt: async (delivery) => attempt(db, delivery, await signingKey(), settings.federation),
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
