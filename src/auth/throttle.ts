// Failed sign-ins, counted in the database so that every instance behind a load balancer sees the
// same counts. Counted twice: per client address and what the attempt names (the login, or the
// public part of an application password), so that guessing one account from an address does not
// lock every other account out of it (an office behind one NAT, a VPN exit); and per address over
// every name, with a larger allowance, so that trying many accounts from one address (credential
// stuffing) stops too. A pair or an address past its allowance inside one window is refused (429)
// until the window ends, even with the right credentials, so guessing cannot go on; but an account
// that signed in from that address before, or credentials this instance saw right a moment ago,
// are held to their own pair's count only, not to the address's (auth/authenticate.ts).
//
// A check followed by a separate count let parallel guesses through: each read the count before
// any of them had failed. So an attempt with credentials not known to be good reserves its failure
// first, in one statement that counts and checks together (an upsert returns the new count; the
// row lock of the upsert orders parallel attempts), and gives it back only when the credentials
// prove right. Of N parallel guesses at most `maxFailures` are ever checked.
import { createHash } from 'node:crypto';
import { Prisma } from '../../generated/prisma/client.js';
import type { PrismaClient } from '../db/client.js';
import { selectRows } from '../db/driver.js';
import { Throttled } from '../domain/errors.js';

export interface ThrottleLimits {
  /** Failures allowed per address and name in one window. */
  maxFailures: number;
  /** Failures allowed per address, over every name, in one window. */
  maxAddressFailures: number;
  windowSeconds: number;
}

/** The counters an attempt counts in: its address and what it names, and its address alone. */
export interface ThrottleKeys {
  pair: string;
  address: string;
}

/** The keys of an attempt from `client` naming `name`; the name digested, so that any length fits. */
export function throttleKeys(client: string, name: string): ThrottleKeys {
  const digest = createHash('sha256').update(name).digest('base64url').slice(0, 16);
  return { pair: `${client.slice(0, 80)}|${digest}`, address: client.slice(0, 100) };
}

/**
 * The seconds until the counter under `key` may be used again, one row, when it is spent in its
 * current window; no row otherwise. A statement of its own (refuseIfThrottled) or part of the read
 * of an application password (auth/authenticate.ts), which it saves a round trip.
 */
export const throttledRetry = (key: string, limits: ThrottleLimits) => Prisma.sql`
    SELECT CEIL(EXTRACT(EPOCH FROM (window_start + make_interval(secs => ${limits.windowSeconds}::int) - now())))::int AS retry
    FROM auth_failures
    WHERE client = ${key} AND failures >= ${limits.maxFailures}::int
      AND window_start > now() - make_interval(secs => ${limits.windowSeconds}::int)`;

/** 429 when `retry` (of throttledRetry) says the counter is spent. */
export function refuseIfRetry(retry: number | null | undefined): void {
  if (retry !== null && retry !== undefined) throw new Throttled(Math.max(1, retry));
}

/** 429 when the counter under `key` is spent in its current window (reads only). */
export async function refuseIfThrottled(prisma: PrismaClient, key: string, limits: ThrottleLimits): Promise<void> {
  const rows = await selectRows<{ retry: number }>(prisma, throttledRetry(key, limits), { prepare: true });
  refuseIfRetry(rows.at(0)?.retry);
}

/**
 * Counts one failure under `key` ahead of the check, atomically with the test of the limit: 429
 * when this attempt is beyond it. A window that has ended starts again at one.
 */
async function reserve(prisma: PrismaClient, key: string, max: number, windowSeconds: number): Promise<void> {
  const [row] = await prisma.$queryRaw<{ failures: number; retry: number }[]>`
    INSERT INTO auth_failures (client, failures, window_start) VALUES (${key}, 1, now())
    ON CONFLICT (client) DO UPDATE SET
      failures = CASE WHEN auth_failures.window_start <= now() - make_interval(secs => ${windowSeconds}::int)
                      THEN 1 ELSE auth_failures.failures + 1 END,
      window_start = CASE WHEN auth_failures.window_start <= now() - make_interval(secs => ${windowSeconds}::int)
                          THEN now() ELSE auth_failures.window_start END
    RETURNING failures,
      CEIL(EXTRACT(EPOCH FROM (window_start + make_interval(secs => ${windowSeconds}::int) - now())))::int AS retry`;
  if (row.failures > max) throw new Throttled(Math.max(1, row.retry));
}

/**
 * Reserves a failure of the pair, and of the address unless `trusted` (the account signed in from
 * there before); 429 when either is spent, nothing kept reserved then.
 */
export async function reserveFailure(
  prisma: PrismaClient,
  keys: ThrottleKeys,
  limits: ThrottleLimits,
  trusted: boolean,
): Promise<void> {
  await reserve(prisma, keys.pair, limits.maxFailures, limits.windowSeconds);
  if (trusted) return;
  try {
    await reserve(prisma, keys.address, limits.maxAddressFailures, limits.windowSeconds);
  } catch (err) {
    await release(prisma, keys.pair);
    throw err;
  }
}

async function release(prisma: PrismaClient, key: string): Promise<void> {
  await prisma.$executeRaw`UPDATE auth_failures SET failures = failures - 1 WHERE client = ${key} AND failures > 0`;
}

/** Gives back the failures reserved: the credentials were right. */
export async function releaseFailure(prisma: PrismaClient, keys: ThrottleKeys, trusted: boolean): Promise<void> {
  await release(prisma, keys.pair);
  if (!trusted) await release(prisma, keys.address);
}

/** Counts one failure of credentials that had been right before (revoked since). */
export async function recordFailure(prisma: PrismaClient, keys: ThrottleKeys, limits: ThrottleLimits): Promise<void> {
  await reserveFailure(prisma, keys, limits, false).catch((err: unknown) => {
    if (!(err instanceof Throttled)) throw err;
  });
}

/** How long an account's sign-in from an address keeps it free of that address's count. */
const KNOWN_DAYS = 30;

/** Whether the account named signed in from this address in the last KNOWN_DAYS. */
export async function signedInBefore(
  prisma: PrismaClient,
  client: string,
  name: { login: string } | { lookup: string },
): Promise<boolean> {
  const account =
    'login' in name
      ? Prisma.sql`(SELECT id FROM users WHERE login = ${name.login})`
      : Prisma.sql`(SELECT user_id FROM app_passwords WHERE lookup = ${name.lookup})`;
  const rows = await selectRows<{ known: number }>(
    prisma,
    Prisma.sql`SELECT 1 AS known FROM auth_known_clients
      WHERE client = ${client.slice(0, 100)} AND user_id = ${account}
        AND last_sign_in > now() - make_interval(days => ${KNOWN_DAYS}::int)`,
  );
  return rows.length > 0;
}

/** Remembers that the account signed in from this address (an upsert: parallel sign-ins agree). */
export async function rememberSignIn(prisma: PrismaClient, client: string, userId: number): Promise<void> {
  await prisma.$executeRaw`
    INSERT INTO auth_known_clients (client, user_id, last_sign_in) VALUES (${client.slice(0, 100)}, ${userId}::int, now())
    ON CONFLICT (client, user_id) DO UPDATE SET last_sign_in = now()`;
}
