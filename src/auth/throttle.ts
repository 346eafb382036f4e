// Failed sign-ins counted per client in the database, so that every instance behind a load
// balancer sees the same count. A client that reaches the limit inside one window is refused
// (429) until that window ends, even with the right credentials, so guessing cannot go on.
//
// A check followed by a separate count let parallel guesses through: each read the count before
// any of them had failed. So an attempt with credentials not known to be good reserves its failure
// first, in one statement that counts and checks together (an upsert returns the new count; the
// row lock of the upsert orders parallel attempts), and gives it back only when the credentials
// prove right. Of N parallel guesses at most `maxFailures` are ever checked.
import { Prisma as PrismaNS } from '../../generated/prisma/client.js';
import type { Prisma } from '../db/client.js';
import { selectRows } from '../db/driver.js';
import { Throttled } from '../domain/errors.js';

export interface ThrottleLimits {
  /** Failures allowed in one window. */
  maxFailures: number;
  windowSeconds: number;
}

/** 429 when the client has used up its failures in the current window (reads only). */
export async function refuseIfThrottled(prisma: Prisma, client: string, limits: ThrottleLimits): Promise<void> {
  const rows = await selectRows<{ retry: number }>(
    prisma,
    PrismaNS.sql`
    SELECT CEIL(EXTRACT(EPOCH FROM (window_start + make_interval(secs => ${limits.windowSeconds}::int) - now())))::int AS retry
    FROM auth_failures
    WHERE client = ${client} AND failures >= ${limits.maxFailures}::int
      AND window_start > now() - make_interval(secs => ${limits.windowSeconds}::int)`,
  );
  if (rows.length) throw new Throttled(Math.max(1, rows[0].retry));
}

/**
 * Counts one failure ahead of the check, atomically with the test of the limit: 429 when this
 * attempt is beyond it. A window that has ended starts again at one.
 */
export async function reserveFailure(prisma: Prisma, client: string, limits: ThrottleLimits): Promise<void> {
  const [row] = await prisma.$queryRaw<{ failures: number; retry: number }[]>`
    INSERT INTO auth_failures (client, failures, window_start) VALUES (${client}, 1, now())
    ON CONFLICT (client) DO UPDATE SET
      failures = CASE WHEN auth_failures.window_start <= now() - make_interval(secs => ${limits.windowSeconds}::int)
                      THEN 1 ELSE auth_failures.failures + 1 END,
      window_start = CASE WHEN auth_failures.window_start <= now() - make_interval(secs => ${limits.windowSeconds}::int)
                          THEN now() ELSE auth_failures.window_start END
    RETURNING failures,
      CEIL(EXTRACT(EPOCH FROM (window_start + make_interval(secs => ${limits.windowSeconds}::int) - now())))::int AS retry`;
  if (row.failures > limits.maxFailures) throw new Throttled(Math.max(1, row.retry));
}

/** Gives back a reserved failure: the credentials were right. */
export async function releaseFailure(prisma: Prisma, client: string): Promise<void> {
  await prisma.$executeRaw`UPDATE auth_failures SET failures = failures - 1 WHERE client = ${client} AND failures > 0`;
}

/** Counts one failure of credentials that had been right before (revoked since). */
export async function recordFailure(prisma: Prisma, client: string, limits: ThrottleLimits): Promise<void> {
  await reserveFailure(prisma, client, limits).catch((err: unknown) => {
    if (!(err instanceof Throttled)) throw err;
  });
}
