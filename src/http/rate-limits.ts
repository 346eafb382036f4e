// Rate limits: each signed-in user, or else each client address, may make so many requests of a
// class (reads, writes; and, per address, sign-ins: checks of credentials not proven right lately,
// each of which costs a password hash) per window. Counted with rate-limiter-flexible in a store
// every instance shares: Redis when REDIS_URL is set, else the `rate_limits` table of PostgreSQL,
// whose upsert counts and reads in one statement, so parallel requests on any instance never both
// take the last request of a window; on the embedded database, which only one process may open,
// in memory. Should the shared store fail, each instance counts in memory meanwhile (the
// library's insurance limiter) rather than refusing or letting everything through.
//
// Every answer of an operation says where its caller stands, in the IETF's RateLimit-Policy and
// RateLimit fields (draft-ietf-httpapi-ratelimit-headers); a refusal is a 429 with Retry-After.
import type { Response } from 'express';
import { Redis } from 'ioredis';
import {
  type RateLimiterAbstract,
  RateLimiterMemory,
  RateLimiterPostgres,
  RateLimiterRedis,
  RateLimiterRes,
} from 'rate-limiter-flexible';
import type { RateLimitSettings } from '../config.js';
import type { Database } from '../db/client.js';
import { rateLimited } from '../metrics/registry.js';
import { ApiError } from './errors.js';

export type LimitClass = 'reads' | 'writes' | 'sign-in';

export interface RateLimits {
  /**
   * Counts one request of `limitClass` for `key` (`keyOf`) and says so in the answer's headers; a
   * 429 when the window's allowance is spent. Nothing happens for a class that is turned off.
   */
  take(limitClass: LimitClass, key: string, res: Response): Promise<void>;
  /** Resolves once the shared store can be reached, or after a few seconds of trying (counting in memory meanwhile). */
  ready(): Promise<void>;
  close(): Promise<void>;
}

const READY_WAIT_MS = 5_000;

/** Whom a request is counted against: its user when signed in, else its client address. */
export const keyOf = (userId: number | undefined, clientAddress: string | undefined) =>
  userId === undefined ? `client:${clientAddress ?? 'unknown'}` : `user:${userId}`;

const TABLE = 'rate_limits';

export function createRateLimits(settings: RateLimitSettings, db: Database): RateLimits {
  const redis = settings.redisUrl
    ? new Redis(settings.redisUrl, {
        // Fail a count at once while Redis is away (the insurance limiter takes it), never queue it.
        enableOfflineQueue: false,
        maxRetriesPerRequest: 1,
        lazyConnect: false,
      })
    : undefined;
  redis?.on('error', () => {
    // Reconnects by itself; counts meanwhile go to the insurance limiter.
  });
  const allowances: Record<LimitClass, number> = {
    reads: settings.reads,
    writes: settings.writes,
    'sign-in': settings.signIns,
  };
  const limiters = new Map<LimitClass, RateLimiterAbstract>();
  for (const [limitClass, points] of Object.entries(allowances) as [LimitClass, number][]) {
    if (points === 0) continue;
    const options = { keyPrefix: limitClass, points, duration: settings.windowSeconds };
    const insuranceLimiter = new RateLimiterMemory(options);
    // Once a key is over its allowance, the rest of its window is refused from memory, without
    // asking the store: a client hammering away costs no queries.
    const stored = { ...options, insuranceLimiter, inMemoryBlockOnConsumed: points + 1 };
    limiters.set(
      limitClass,
      redis
        ? new RateLimiterRedis({ ...stored, storeClient: redis, rejectIfRedisNotReady: true })
        : db.pool
          ? new RateLimiterPostgres({
              ...stored,
              storeClient: db.pool,
              storeType: 'pool',
              tableName: TABLE,
              // The table comes from the migrations (prisma/schema.prisma RateLimit); housekeeping
              // deletes the windows that have ended (db/housekeeping.ts).
              tableCreated: true,
              clearExpiredByTimeout: false,
            })
          : insuranceLimiter,
    );
  }

  return {
    async take(limitClass, key, res) {
      const limiter = limiters.get(limitClass);
      if (!limiter) return;
      const allowance = allowances[limitClass];
      const policy = `"${limitClass}";q=${allowance};w=${settings.windowSeconds}`;
      let result: RateLimiterRes;
      let refused = false;
      try {
        result = await limiter.consume(key);
      } catch (err) {
        if (!(err instanceof RateLimiterRes)) throw err;
        result = err;
        refused = true;
      }
      const resetSeconds = Math.max(1, Math.ceil(result.msBeforeNext / 1000));
      if (!refused) {
        res.append('RateLimit-Policy', policy);
        res.append('RateLimit', `"${limitClass}";r=${result.remainingPoints};t=${resetSeconds}`);
        return;
      }
      rateLimited.inc({ class: limitClass });
      throw new ApiError(
        429,
        'rest_rate_limited',
        `Too many requests (${limitClass}): at most ${allowance} per ${settings.windowSeconds} seconds; try again in ${resetSeconds} seconds.`,
        { policy: limitClass },
        {
          'Retry-After': String(resetSeconds),
          'RateLimit-Policy': policy,
          RateLimit: `"${limitClass}";r=0;t=${resetSeconds}`,
        },
      );
    },
    ready: () =>
      redis && redis.status !== 'ready'
        ? new Promise<void>((resolve) => {
            const timer = setTimeout(resolve, READY_WAIT_MS);
            redis.once('ready', () => {
              clearTimeout(timer);
              resolve();
            });
          })
        : Promise.resolve(),
    close: async () => {
      if (redis) await redis.quit().catch(() => undefined);
    },
  };
}
