// Rate limits: each signed-in user, or else each client address, may make so many requests of a
// class (reads, writes; and, per address, sign-ins: checks of credentials that cost a password
// hash) per window. Reads and writes are off by default, and never counted for an account or an
// address the operator exempted (config/network.ts RateLimitSettings). Counted with rate-limiter-flexible
// in a store every instance shares: Redis when REDIS_URL is set, else the `rate_limits` table of
// PostgreSQL, whose upsert counts and reads in one statement, asked once per key and interval
// (batched-counts.ts); on the embedded database, which only one process may open, or with
// RATE_LIMIT_STORE=memory, in memory. Should the shared store fail, each instance
// counts in memory meanwhile (the library's insurance limiter) rather than refusing or letting
// everything through, and so does each count the store has not answered within a quarter of a second.
//
// Every answer of an operation says where its caller stands, in the IETF's RateLimit-Policy and
// RateLimit fields (draft-ietf-httpapi-ratelimit-headers); a refusal is a 429 with Retry-After.
import type { NextFunction, Request, Response } from 'express';
import { Redis } from 'ioredis';
import {
  RateLimiterMemory,
  RateLimiterPostgres,
  RateLimiterRedis,
  RateLimiterRes,
  RLWrapperTimeouts,
} from 'rate-limiter-flexible';
import type { Caller } from '../auth/roles.js';
import type { RateLimitSettings } from '../config/network.js';
import ipaddr from 'ipaddr.js';
import pg from 'pg';
import { rateLimited } from '../metrics/registry.js';
import { BatchedCounter, type Counter } from './batched-counts.js';
import { ApiError } from './errors.js';

export type LimitClass = 'reads' | 'writes' | 'sign-in';

/** Who made a request: the caller its credentials name (null when signed out), from which address. */
export interface Requester {
  caller: Caller;
  address: string | undefined;
}

export interface RateLimits {
  /**
   * Counts one request of `limitClass` against its requester (`keyOf`) and says so in the answer's
   * headers; a 429 when the window's allowance is spent. Nothing happens for a class that is turned
   * off, nor for reads and writes of an exempt account or address.
   */
  take(limitClass: LimitClass, requester: Requester, res: Response): Promise<void>;
  /**
   * Counts `points` more of a class this request already counted: the work it does on top of its
   * own (each link `_embed` follows is a read). A 429 when they do not fit in what is left.
   */
  charge(limitClass: LimitClass, requester: Requester, res: Response, points: number): Promise<void>;
  /** Resolves once the shared store can be reached, or after a few seconds of trying (counting in memory meanwhile). */
  ready(): Promise<void>;
  close(): Promise<void>;
}

const READY_WAIT_MS = 5_000;
const STORE_TIMEOUT_MS = 250;

/**
 * Whom a request is counted against: its user when signed in, else its client address. An IPv6
 * client is its /64 (one host usually has a whole /64 to pick addresses from); an IPv4 address
 * mapped into IPv6 is the IPv4 address.
 */
export function keyOf(userId: number | undefined, clientAddress: string | undefined): string {
  if (userId !== undefined) return `user:${userId}`;
  if (!clientAddress || !ipaddr.isValid(clientAddress)) return `client:${clientAddress ?? 'unknown'}`;
  const address = ipaddr.process(clientAddress);
  if (address.kind() === 'ipv4') return `client:${address.toString()}`;
  const parts = (address as ipaddr.IPv6).parts.slice(0, 4).map((part) => part.toString(16));
  return `client:${parts.join(':')}::/64`;
}

/** Whether an address lies in one of the ranges (addresses and CIDR ranges, as config/network.ts checked them). */
function addressMatcher(ranges: string[]): (address: string | undefined) => boolean {
  const parsed = ranges.map((range) => {
    if (range.includes('/')) return ipaddr.parseCIDR(range);
    const address = ipaddr.parse(range);
    return [address, address.kind() === 'ipv4' ? 32 : 128] as [ipaddr.IPv4 | ipaddr.IPv6, number];
  });
  return (address) => {
    if (!parsed.length || !address || !ipaddr.isValid(address)) return false;
    const client = ipaddr.process(address); // an IPv4 address mapped into IPv6 is the IPv4 address
    return parsed.some((range) => client.kind() === range[0].kind() && client.match(range));
  };
}

interface Counted {
  policy: string;
  state: string;
}

const countedByResponse = new WeakMap<Response, Map<LimitClass, Counted>>();

function countedOf(res: Response): Map<LimitClass, Counted> {
  let counted = countedByResponse.get(res);
  if (!counted) {
    counted = new Map();
    countedByResponse.set(res, counted);
  }
  return counted;
}

const TABLE = 'rate_limits';

/**
 * The counters' own few connections to PostgreSQL. Their upserts do not wait for the write-ahead
 * log to reach the disk (`synchronous_commit=off`): a crash of the database may forget the last
 * fraction of a second of counts, which a rate limit can afford, and every request spares a flush.
 */
function counterPool(databaseUrl: string): pg.Pool {
  const pool = new pg.Pool({
    connectionString: databaseUrl,
    max: 4,
    connectionTimeoutMillis: 2_000,
    statement_timeout: 2_000,
    query_timeout: 3_000,
    options: '-c synchronous_commit=off',
    allowExitOnIdle: true,
  });
  pool.on('error', () => {
    // the pool drops the broken client; counts go to the insurance limiter meanwhile
  });
  return pool;
}

/** A limiter counting in the shared store: Redis, else PostgreSQL; undefined when there is neither. */
function sharedLimiter(
  options: { keyPrefix: string; points: number; duration: number; inMemoryBlockOnConsumed: number },
  { redis, pool }: { redis: Redis | undefined; pool: pg.Pool | undefined },
): RateLimiterRedis | RateLimiterPostgres | undefined {
  if (redis) return new RateLimiterRedis({ ...options, storeClient: redis, rejectIfRedisNotReady: true });
  if (!pool) return undefined;
  return new RateLimiterPostgres({
    ...options,
    storeClient: pool,
    storeType: 'pool',
    tableName: TABLE,
    // The table comes from the migrations (prisma/schema.prisma RateLimit); housekeeping
    // deletes the windows that have ended (db/housekeeping.ts).
    tableCreated: true,
    clearExpiredByTimeout: false,
  });
}

export function createRateLimits(settings: RateLimitSettings, databaseUrl: string | undefined): RateLimits {
  const shared = settings.store === 'shared';
  const redis =
    shared && settings.redisUrl
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
  const pool = shared && !redis && databaseUrl ? counterPool(databaseUrl) : undefined;
  const allowances: Record<LimitClass, number> = {
    reads: settings.reads,
    writes: settings.writes,
    'sign-in': settings.signIns,
  };
  const limiters = new Map<LimitClass, Counter>();
  const batched: BatchedCounter[] = [];
  for (const [limitClass, points] of Object.entries(allowances) as [LimitClass, number][]) {
    if (points === 0) continue;
    const options = { keyPrefix: limitClass, points, duration: settings.windowSeconds };
    const insuranceLimiter = new RateLimiterMemory(options);
    // Once a key is over its allowance, the rest of its window is refused from memory, without
    // asking the store: a client hammering away costs no queries. Such a refusal carries no count
    // (consumedPoints 0), which the batched counter reads as over the allowance, not as 0.
    // The insurance limiter belongs to the wrapper below alone: given to the store as well, a store
    // that fails late would count the request in memory twice.
    const stored = { ...options, inMemoryBlockOnConsumed: points + 1 };
    const store = sharedLimiter(stored, { redis, pool });
    if (!store) {
      limiters.set(limitClass, insuranceLimiter);
      continue;
    }
    // A store that does not answer at once (a database that hangs) must not hold the request up:
    // past STORE_TIMEOUT_MS the count is taken in memory. A busy key goes to the store once per
    // interval, not once per request (batched-counts.ts).
    const counter = new BatchedCounter(
      new RLWrapperTimeouts({ limiter: store, insuranceLimiter, timeoutMs: STORE_TIMEOUT_MS }),
      points,
    );
    batched.push(counter);
    limiters.set(limitClass, counter);
  }

  const exemptAddress = addressMatcher(settings.exemptAddresses);
  /** Sign-ins always count (each costs a password hash); reads and writes not for exempt accounts and addresses. */
  const counts = (limitClass: LimitClass, { caller, address }: Requester) =>
    limitClass === 'sign-in' || !((caller?.rateLimitExempt ?? false) || exemptAddress(address));

  const count = async (limitClass: LimitClass, requester: Requester, res: Response, points: number) => {
    const limiter = limiters.get(limitClass);
    if (!limiter || !counts(limitClass, requester)) return;
    const key = keyOf(requester.caller?.id, requester.address);
    const counted = countedOf(res);
    const allowance = allowances[limitClass];
    const policy = `"${limitClass}";q=${allowance};w=${settings.windowSeconds}`;
    let result: RateLimiterRes;
    let refused = false;
    try {
      result = await limiter.consume(key, points);
    } catch (err) {
      if (!(err instanceof RateLimiterRes)) throw err;
      result = err;
      refused = true;
    }
    const resetSeconds = Math.max(1, Math.ceil(result.msBeforeNext / 1000));
    counted.set(limitClass, {
      policy,
      state: `"${limitClass}";r=${refused ? 0 : result.remainingPoints};t=${resetSeconds}`,
    });
    // One item per policy, in the same order in both fields.
    const headers = {
      'RateLimit-Policy': [...counted.values()].map((c) => c.policy).join(', '),
      RateLimit: [...counted.values()].map((c) => c.state).join(', '),
    };
    if (!refused) {
      res.set(headers);
      return;
    }
    rateLimited.inc({ class: limitClass });
    throw new ApiError(
      429,
      'rest_rate_limited',
      `Too many requests (${limitClass}): at most ${allowance} per ${settings.windowSeconds} seconds; try again in ${resetSeconds} seconds.`,
      { policy: limitClass },
      { 'Retry-After': String(resetSeconds), ...headers },
    );
  };

  return {
    async take(limitClass, requester, res) {
      // Once per request and class: embedded links (`_embed`) run the operations again on the same
      // request, and are charged for all at once (charge).
      if (countedOf(res).has(limitClass)) return;
      await count(limitClass, requester, res, 1);
    },
    async charge(limitClass, requester, res, points) {
      if (points > 0) await count(limitClass, requester, res, points);
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
      // What was counted in memory and not sent yet, before the connections go.
      await Promise.all(batched.map((counter) => counter.close()));
      // quit() is refused while Redis is away (no offline queue); disconnect() stops the reconnecting too.
      if (redis)
        await redis.quit().catch(() => {
          redis.disconnect();
        });
      await pool?.end().catch(() => undefined);
    },
  };
}

/**
 * Counts a read of what lies outside the document's operations, whose security handlers count the
 * rest: the REST root, the site root, the public pages. By client address: they take no credentials.
 */
export function countOtherReads(limits: RateLimits, namespacePath: string) {
  return (req: Request, res: Response, next: NextFunction) => {
    if (req.path === namespacePath || req.path.startsWith(`${namespacePath}/`)) {
      next();
      return;
    }
    limits.take('reads', { caller: null, address: req.ip }, res).then(() => {
      next();
    }, next);
  };
}
