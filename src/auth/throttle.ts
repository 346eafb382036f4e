// Failed sign-ins counted per client in the database, so that every instance behind a load
// balancer sees the same count. A client that reaches the limit inside one window is refused
// (429) until that window ends, even with the right credentials, so guessing cannot go on.
import type { Prisma } from '../db/client.js';
import { ApiError } from '../http/errors.js';

export interface ThrottleLimits {
  /** Failures allowed in one window. */
  maxFailures: number;
  windowSeconds: number;
}

export async function refuseIfThrottled(prisma: Prisma, client: string, limits: ThrottleLimits): Promise<void> {
  const rows = await prisma.$queryRaw<Array<{ retry: number }>>`
    SELECT CEIL(EXTRACT(EPOCH FROM (window_start + make_interval(secs => ${limits.windowSeconds}::int) - now())))::int AS retry
    FROM auth_failures
    WHERE client = ${client} AND failures >= ${limits.maxFailures}::int
      AND window_start > now() - make_interval(secs => ${limits.windowSeconds}::int)`;
  if (rows.length) {
    const retry = Math.max(1, rows[0].retry);
    throw new ApiError(429, 'rest_too_many_failed_logins', `Too many failed sign-ins from this client; try again in ${retry} seconds.`, {}, { 'Retry-After': String(retry) });
  }
}

/** Counts one failure; a window that has ended starts again at one. */
export async function recordFailure(prisma: Prisma, client: string, limits: ThrottleLimits): Promise<void> {
  await prisma.$executeRaw`
    INSERT INTO auth_failures (client, failures, window_start) VALUES (${client}, 1, now())
    ON CONFLICT (client) DO UPDATE SET
      failures = CASE WHEN auth_failures.window_start <= now() - make_interval(secs => ${limits.windowSeconds}::int)
                      THEN 1 ELSE auth_failures.failures + 1 END,
      window_start = CASE WHEN auth_failures.window_start <= now() - make_interval(secs => ${limits.windowSeconds}::int)
                          THEN now() ELSE auth_failures.window_start END`;
}
