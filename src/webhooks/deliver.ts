// Deliveries are sent, and retried until they succeed or about a day has passed. A sender leases due
// deliveries with FOR UPDATE SKIP LOCKED (instances never take the same one) for longer than an
// attempt can last; an instance that dies mid-attempt lets its lease run out, and another one makes
// the attempt again (at least once). Every attempt is recorded.
import { Webhook } from 'standardwebhooks';
import type { Database } from '../db/client.js';
import { isForeignKeyViolation } from '../db/errors.js';
import { open } from '../lib/secret-box.js';
import { type Attempt, send } from './send.js';
import { webhookAttempts } from '../metrics/registry.js';

export interface DeliverySettings {
  allowPrivateTargets: boolean;
  secretKey?: string;
  timeoutSeconds: number;
  /** The first retry's delay; the later ones grow from it (RETRY_STEPS). */
  retryBaseMs: number;
}

/**
 * The delay before each retry, in units of the first one: with the default 5 s, 5 s, 30 s, 2 min,
 * 10 min, 30 min, 1 h, 3 h, 6 h and 12 h, about a day in all. After the last, the delivery has failed
 * and its subscription is disabled (a receiver that has refused everything for a day is gone).
 */
export const RETRY_STEPS = [1, 6, 24, 120, 360, 720, 2160, 4320, 8640];

/** The delay before retry `n` (1 for the first), with jitter so that retries of many deliveries spread out. */
export function retryDelayMs(n: number, baseMs: number, random = Math.random): number {
  return Math.round(RETRY_STEPS[n - 1] * baseMs * (0.75 + random() * 0.5));
}

interface Leased {
  id: number;
  message_id: string;
  payload: string;
  attempts: number;
  url: string;
  secret: string;
  subscription_id: number;
  /** Secrets before the current one that still sign, after a rotation (services/webhooks.ts). */
  previous_secrets: string[];
}

/**
 * Attempts of one subscription in flight at once, on every instance together: a receiver that hangs
 * holds this many attempts until they time out, never every attempt of an instance, so the others'
 * messages keep going. (About: two instances leasing in the same instant may let one more through.)
 */
export const PER_SUBSCRIPTION = 4;

/**
 * Leases up to `limit` due deliveries of enabled subscriptions, the longest due first, no more of
 * one subscription than it has room for under PER_SUBSCRIPTION. Each subscription is looked at
 * through its own first few due deliveries (the partial index of migration webhook_fairness), so a
 * backlog of one does not slow the others. The update re-checks each row under its lock: of two
 * instances leasing the same delivery at once, the second finds it leased and skips it.
 */
export async function leaseDue(db: Database, limit: number, settings: DeliverySettings): Promise<Leased[]> {
  if (limit <= 0) return [];
  const leaseMs = settings.timeoutSeconds * 2000 + 5000;
  return db.prisma.$queryRaw<Leased[]>`
    WITH chosen AS (
      SELECT due.id FROM webhook_subscriptions s
      CROSS JOIN LATERAL (
        SELECT count(*)::int AS n FROM webhook_deliveries l
        WHERE l.subscription_id = s.id AND l.state = 'pending' AND l.lease_until > now()) busy
      CROSS JOIN LATERAL (
        SELECT w.id, w.next_attempt_at, row_number() OVER (ORDER BY w.next_attempt_at, w.id) AS place
        FROM webhook_deliveries w
        WHERE w.subscription_id = s.id AND w.state = 'pending' AND w.next_attempt_at <= now()
          AND (w.lease_until IS NULL OR w.lease_until < now())
        ORDER BY w.next_attempt_at, w.id LIMIT ${PER_SUBSCRIPTION}::int) due
      WHERE s.enabled AND due.place + busy.n <= ${PER_SUBSCRIPTION}::int
      ORDER BY due.place, due.next_attempt_at LIMIT ${limit}::int)
    UPDATE webhook_deliveries d
    SET lease_until = now() + ${leaseMs}::int * interval '1 millisecond', attempts = d.attempts + 1
    FROM webhook_subscriptions s, chosen c
    WHERE d.id = c.id AND s.id = d.subscription_id AND d.state = 'pending'
      AND (d.lease_until IS NULL OR d.lease_until < now())
    RETURNING d.id, d.message_id, d.payload, d.attempts, s.url, s.secret, d.subscription_id,
      (SELECT coalesce(array_agg(p->>'secret'), '{}') FROM jsonb_array_elements(s.previous_secrets) p
       WHERE (p->>'expires_at')::timestamptz > now()) AS previous_secrets`;
}

/**
 * Makes one attempt of a leased delivery and records it: delivered, retried later, or failed for
 * good. The attempt always ends within the lease (deadline below); should its result come after the
 * lease all the same, the attempt is recorded but the delivery is left to whoever leased it since
 * (`attempts` tells the leases apart).
 */
export async function attempt(db: Database, delivery: Leased, settings: DeliverySettings): Promise<void> {
  const attemptedAt = new Date();
  const deadlineMs = settings.timeoutSeconds * 2000;
  let timer: NodeJS.Timeout | undefined;
  const result: Attempt = await Promise.race<Attempt>([
    signedPost(delivery, settings, attemptedAt).catch((err: unknown) => ({
      error: (err as Error).message.replaceAll('\u0000', '\uFFFD'),
      latencyMs: 0,
      excerpt: '',
    })),
    new Promise<Attempt>((resolve) => {
      timer = setTimeout(() => {
        resolve({
          error: `no answer within ${deadlineMs} ms (name lookup included)`,
          latencyMs: deadlineMs,
          excerpt: '',
        });
      }, deadlineMs);
    }),
  ]).finally(() => {
    clearTimeout(timer);
  });
  const ok = result.statusCode !== undefined && result.statusCode >= 200 && result.statusCode < 300;
  const exhausted = !ok && delivery.attempts > RETRY_STEPS.length;
  const state = stateAfterAttempt(ok, exhausted);
  webhookAttempts.inc({ outcome: state === 'pending' ? 'retry' : state });
  const next = new Date(Date.now() + (ok || exhausted ? 0 : retryDelayMs(delivery.attempts, settings.retryBaseMs)));
  const reason = `Message ${delivery.message_id} failed ${delivery.attempts} times, and nothing reached the receiver for a day.`;
  try {
    // One statement, so one round trip and atomic: the attempt; the delivery's new state, if the
    // lease is still this one; and, when its retries are spent and no other message of the
    // subscription got through for a day, the subscription disabled (one message a receiver always
    // refuses does not stop the others).
    await db.prisma.$executeRaw`
      WITH claimed AS (
        UPDATE webhook_deliveries SET state = ${state}::text, lease_until = NULL,
          delivered_at = CASE WHEN ${ok}::boolean THEN now() END,
          next_attempt_at = CASE WHEN ${state}::text = 'pending' THEN ${next}::timestamptz ELSE next_attempt_at END
        WHERE id = ${delivery.id}::int AND attempts = ${delivery.attempts}::int AND state = 'pending'
        RETURNING id),
      recorded AS (
        INSERT INTO webhook_attempts (delivery_id, attempted_at, status_code, error, latency_ms, response_excerpt)
        VALUES (${delivery.id}::int, ${attemptedAt}::timestamptz, ${result.statusCode ?? null}::int,
          ${result.error ?? null}::text, ${result.latencyMs}::int, ${result.excerpt}::text))
      UPDATE webhook_subscriptions SET enabled = false, disabled_reason = ${reason}::text
      WHERE id = ${delivery.subscription_id}::int AND ${exhausted}::boolean AND EXISTS (SELECT 1 FROM claimed)
        AND NOT EXISTS (SELECT 1 FROM webhook_deliveries d WHERE d.subscription_id = ${delivery.subscription_id}::int
          AND d.delivered_at > now() - interval '1 day')`;
  } catch (err) {
    // The delivery went while it was attempted (its subscription deleted, or its RSVP's messages
    // forgotten: migration rsvp_changes): there is nothing left to record the attempt on.
    if (isForeignKeyViolation(err)) return;
    // Whatever failed, the delivery is not left leased until the lease runs out again and again.
    await db.prisma.$executeRaw`
      UPDATE webhook_deliveries SET lease_until = NULL, next_attempt_at = ${next}::timestamptz
      WHERE id = ${delivery.id}::int AND attempts = ${delivery.attempts}::int AND state = 'pending'`;
    throw err;
  }
}

async function signedPost(delivery: Leased, settings: DeliverySettings, at: Date): Promise<Attempt> {
  let signature: string;
  try {
    // One signature per secret that signs, space-separated, as Standard Webhooks allows: a receiver
    // still holding a secret from before a rotation verifies the message all the same.
    signature = [delivery.secret, ...delivery.previous_secrets]
      .map((sealed) => new Webhook(open(sealed, settings.secretKey)).sign(delivery.message_id, at, delivery.payload))
      .join(' ');
  } catch (err) {
    return { error: (err as Error).message, latencyMs: 0, excerpt: '' };
  }
  const headers = {
    'webhook-id': delivery.message_id,
    'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
    'webhook-signature': signature,
  };
  return send(delivery.url, headers, delivery.payload, {
    timeoutMs: settings.timeoutSeconds * 1000,
    allowPrivate: settings.allowPrivateTargets,
  });
}

/** What an attempt leaves its delivery: delivered, failed for good once its retries are spent, or pending a retry. */
function stateAfterAttempt(ok: boolean, exhausted: boolean): 'delivered' | 'failed' | 'pending' {
  if (ok) return 'delivered';
  return exhausted ? 'failed' : 'pending';
}
