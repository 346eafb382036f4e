// The limits part of `npm run bench` (scripts/bench/run.ts): what counting rate limits costs, in each store.
import { Redis } from 'ioredis';
import { STANDARD } from './calendar.js';
import { best, type Print } from './figures.js';
import { createPostgres, seed } from './fixtures.js';
import { type Figures, measure } from './load.js';
import { scenarios } from './scenarios.js';
import { startService } from './service.js';
import { CONNECTIONS, ROUNDS, SECONDS } from './settings.js';

/**
 * Rate limits so high that the load never reaches them: every request is still counted, so their
 * cost is in the figures, but none is refused.
 */
const UNREACHABLE_RATE_LIMITS = {
  RATE_LIMIT_READS: '1000000000',
  RATE_LIMIT_WRITES: '1000000000',
  RATE_LIMIT_SIGN_INS: '1000000000',
};

/** A Redis server for the limits part, if one answers. */
async function benchRedis(): Promise<string | undefined> {
  const url =
    process.env.BENCH_REDIS_URL || process.env.TEST_REDIS_URL || process.env.REDIS_URL || 'redis://127.0.0.1:6379';
  const client = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 0, enableOfflineQueue: false });
  client.on('error', () => undefined);
  try {
    await client.connect();
    await client.ping();
    return url;
  } catch {
    return undefined;
  } finally {
    client.disconnect();
  }
}

/**
 * What counting rate limits costs: the cheapest read (the venue search, PostgreSQL, 10,000 events)
 * with the limits off, as by default, and on, counted in each store; the configurations take turns,
 * ROUNDS times, each keeping its best round. The target: each store within 5 % of off.
 */
export async function measureLimits(print: Print) {
  const database = await createPostgres('limits');
  try {
    const fixtures = await seed({ kind: 'postgresql', url: database.url }, STANDARD);
    // The read the service answers fastest, where a round trip per count weighs most.
    const read = scenarios(fixtures)['venue search'];
    const redisUrl = await benchRedis();
    const stores: [string, Record<string, string>][] = [
      ['limits off (default)', {}],
      ['limits in memory', { ...UNREACHABLE_RATE_LIMITS, RATE_LIMIT_STORE: 'memory' }],
      ['limits in PostgreSQL', UNREACHABLE_RATE_LIMITS],
      ...(redisUrl
        ? [['limits in Redis', { ...UNREACHABLE_RATE_LIMITS, REDIS_URL: redisUrl }] as [string, Record<string, string>]]
        : []),
    ];
    const runs = new Map<string, Figures[]>(stores.map(([name]) => [name, []]));
    for (let round = 0; round < ROUNDS; round++) {
      // Each round starts with the next configuration, so that none always runs first.
      for (const [name, env] of [...stores.slice(round % stores.length), ...stores.slice(0, round % stores.length)]) {
        const service = await startService({ kind: 'postgresql', url: database.url }, env);
        try {
          runs.get(name)?.push(await measure(service, read, SECONDS, CONNECTIONS));
        } finally {
          await service.stop();
        }
      }
    }
    const off = best(runs.get(stores[0][0]) ?? []);
    for (const [name] of stores) {
      const figures = best(runs.get(name) ?? []);
      print(name, read.name, figures, figures.requestsPerSecond / off.requestsPerSecond);
    }
    if (!redisUrl) console.log('  (Redis skipped: no server answered; set BENCH_REDIS_URL)');
    console.log('  (÷ baseline here: ÷ the same read with limits off; 0.95 or more is the target)');
  } finally {
    await database.drop();
  }
}
