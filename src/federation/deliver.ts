// Deliveries are sent, signed, and retried with back-off. As for webhooks (webhooks/deliver.ts), a
// sender leases due deliveries with FOR UPDATE SKIP LOCKED (instances never take the same one) for
// longer than an attempt can last; an instance that dies mid-attempt lets its lease run out and
// another makes the attempt again (at least once: activities have stable ids, receivers take each
// once). Per remote server (the inbox's host):
// - at most PER_HOST attempts in flight on all instances, so one slow server holds that many and
//   never every slot of an instance: the others' deliveries keep going;
// - a failure pushes back every pending delivery to that host (back-off per server, not per message);
// - one object's activities reach one inbox in order (an Update never before its Create).
import type { webcrypto } from 'node:crypto';
import { signRequest } from '@fedify/fedify';
import type { Database } from '../db/client.js';
import { guardedFetch } from '../lib/guarded-fetch.js';
import { federationDeliveries } from '../metrics/registry.js';

export interface FederationDeliverySettings {
  allowPrivateAddresses: boolean;
  timeoutSeconds: number;
  retryBaseMs: number;
}

/** The signing key: the actor's RSA key and the id peers fetch it by (`<actor>#main-key`). */
export interface SigningKey {
  keyId: URL;
  privateKey: webcrypto.CryptoKey;
}

/** Retry delays in units of the first: with 5 s, 5 s, 30 s, 2 min, 10 min, 30 min, 1 h, 3 h, 6 h, 12 h; about a day. */
export const RETRY_STEPS = [1, 6, 24, 120, 360, 720, 2160, 4320, 8640];

export const retryDelayMs = (n: number, baseMs: number, random = Math.random) =>
  Math.round(RETRY_STEPS[Math.min(n, RETRY_STEPS.length) - 1] * baseMs * (0.75 + random() * 0.5));

/** Attempts to one remote server in flight at once, on every instance together. */
export const PER_HOST = 4;

/** How much of an inbox's answer is read: the status is what counts. */
const ANSWER_BYTES = 1024;

export interface LeasedDelivery {
  id: string;
  inbox: string;
  host: string;
  payload: string;
  attempts: number;
}

/**
 * Leases up to `limit` due deliveries, no more of one host than it has room for under PER_HOST,
 * and none of an object while an earlier activity about it waits for the same inbox. The update
 * re-checks each row under its lock: of two instances leasing the same delivery, the second skips it.
 */
export async function leaseDue(
  db: Database,
  limit: number,
  settings: FederationDeliverySettings,
): Promise<LeasedDelivery[]> {
  if (limit <= 0) return [];
  const leaseMs = settings.timeoutSeconds * 2000 + 5000;
  return db.prisma.$queryRaw<LeasedDelivery[]>`
    WITH hosts AS (
      SELECT DISTINCT host FROM federation_deliveries WHERE state = 'pending' AND next_attempt_at <= now()),
    chosen AS (
      SELECT due.id FROM hosts h
      CROSS JOIN LATERAL (
        SELECT count(*)::int AS n FROM federation_deliveries l
        WHERE l.host = h.host AND l.state = 'pending' AND l.lease_until > now()) busy
      CROSS JOIN LATERAL (
        SELECT d.id, d.next_attempt_at, row_number() OVER (ORDER BY d.next_attempt_at, d.id) AS place
        FROM federation_deliveries d
        WHERE d.host = h.host AND d.state = 'pending' AND d.next_attempt_at <= now()
          AND (d.lease_until IS NULL OR d.lease_until < now())
          AND NOT EXISTS (SELECT 1 FROM federation_deliveries e
            WHERE e.inbox = d.inbox AND e.object_id = d.object_id AND e.state = 'pending' AND e.id < d.id)
        ORDER BY d.next_attempt_at, d.id LIMIT ${PER_HOST}::int) due
      WHERE due.place + busy.n <= ${PER_HOST}::int
      ORDER BY due.place, due.next_attempt_at LIMIT ${limit}::int)
    UPDATE federation_deliveries d
    SET lease_until = now() + ${leaseMs}::int * interval '1 millisecond', attempts = d.attempts + 1
    FROM chosen c
    WHERE d.id = c.id AND d.state = 'pending' AND (d.lease_until IS NULL OR d.lease_until < now())
    RETURNING d.id::text, d.inbox, d.host, d.payload, d.attempts`;
}

/** The key type signRequest takes (the DOM's CryptoKey, which this project's lib does not declare). */
type CryptoKeyOf<F> = F extends (r: never, key: infer K, ...rest: never[]) => unknown ? K : never;

/** One signed POST of the activity: the status when the inbox answered, else why not. */
async function post(delivery: LeasedDelivery, key: SigningKey, settings: FederationDeliverySettings) {
  const body = new TextEncoder().encode(delivery.payload);
  const unsigned = new Request(delivery.inbox, {
    method: 'POST',
    headers: {
      'content-type': 'application/activity+json',
      accept: 'application/activity+json',
      'user-agent': 'calendar-events-service (federation)',
    },
    body,
  });
  // draft-cavage with rsa-sha256: what Mastodon, Mobilizon and Gancio all verify (and Fedify too).
  const signed = await signRequest(unsigned, key.privateKey as CryptoKeyOf<typeof signRequest>, key.keyId, {
    spec: 'draft-cavage-http-signatures-12',
    body: body.buffer,
  });
  const answer = await guardedFetch(delivery.inbox, {
    method: 'POST',
    headers: Object.fromEntries(signed.headers),
    body: delivery.payload,
    allowPrivate: settings.allowPrivateAddresses,
    maxBytes: ANSWER_BYTES,
    overflow: 'cut',
    timeoutMs: settings.timeoutSeconds * 1000,
    maxRedirects: 0,
  });
  return answer.status;
}

/**
 * Makes one attempt of a leased delivery and records it: delivered; failed for good (retries
 * spent, or the inbox said 404/410: gone); or retried later, with every pending delivery of that
 * host pushed back as far. A result after the lease ran out is left to whoever leased it since.
 */
export async function attempt(
  db: Database,
  delivery: LeasedDelivery,
  key: SigningKey,
  settings: FederationDeliverySettings,
): Promise<void> {
  let status: number | undefined;
  let error: string | undefined;
  try {
    status = await post(delivery, key, settings);
  } catch (err) {
    error = (err as Error).message;
  }
  const ok = status !== undefined && status >= 200 && status < 300;
  const gone = status === 404 || status === 410;
  const exhausted = !ok && (gone || delivery.attempts > RETRY_STEPS.length);
  const state = stateAfter(ok, exhausted);
  federationDeliveries.inc({ outcome: state === 'pending' ? 'retry' : state });
  const next = new Date(Date.now() + (state === 'pending' ? retryDelayMs(delivery.attempts, settings.retryBaseMs) : 0));
  const reason = error ?? (ok ? null : `the inbox answered ${status}`);
  // One statement: the delivery's new state, if the lease is still this one; and on a failure to be
  // retried, the host's other pending deliveries not due before `next` pushed back to it.
  await db.prisma.$executeRaw`
    WITH claimed AS (
      UPDATE federation_deliveries SET state = ${state}::text, lease_until = NULL, last_error = ${reason}::text,
        delivered_at = CASE WHEN ${ok}::boolean THEN now() END, next_attempt_at = ${next}::timestamptz
      WHERE id = ${delivery.id}::bigint AND attempts = ${delivery.attempts}::int AND state = 'pending'
      RETURNING id)
    UPDATE federation_deliveries SET next_attempt_at = ${next}::timestamptz
    WHERE host = ${delivery.host}::text AND state = 'pending' AND next_attempt_at < ${next}::timestamptz
      AND ${state}::text = 'pending' AND (lease_until IS NULL OR lease_until < now())
      AND EXISTS (SELECT 1 FROM claimed)`;
}

function stateAfter(ok: boolean, exhausted: boolean): 'delivered' | 'failed' | 'pending' {
  if (ok) return 'delivered';
  return exhausted ? 'failed' : 'pending';
}
