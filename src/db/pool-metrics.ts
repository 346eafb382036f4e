// Measures the PostgreSQL pool for /metrics (metrics/registry.ts): how long each query or transaction
// waits for a connection, and which statements fail. pg-pool runs `pool.query` through
// `this.connect(callback)` and Prisma's adapter takes connections with `pool.connect()`, so timing
// `connect` on the instance covers both; every pooled client's `query` is wrapped once, when the
// pool makes it.
import { performance } from 'node:perf_hooks';
import type pg from 'pg';
import { countStatementError, poolWait, trackPool } from '../metrics/registry.js';

type ConnectCallback = (err: Error | undefined, client?: pg.PoolClient, release?: (err?: unknown) => void) => void;

/** Instruments `pool`; the returned function stops counting it in the pool gauges. */
export function measurePool(pool: pg.Pool): () => void {
  const connect = pool.connect.bind(pool) as (callback: ConnectCallback) => void;
  const timedConnect = (callback?: ConnectCallback): Promise<pg.PoolClient> | undefined => {
    const started = performance.now();
    const waited = () => {
      poolWait.observe((performance.now() - started) / 1000);
    };
    if (callback) {
      connect((err, client, release) => {
        waited();
        callback(err, client, release);
      });
      return undefined;
    }
    return new Promise((resolve, reject) => {
      connect((err, client) => {
        waited();
        if (err || !client) reject(err ?? new Error('no connection'));
        else resolve(client);
      });
    });
  };
  Object.assign(pool, { connect: timedConnect });
  pool.on('connect', (client) => {
    // Looked up on each call, not bound once: the class's own method stays the one that runs.
    const prototype = Object.getPrototypeOf(client) as { query: (...args: unknown[]) => unknown };
    const query = (...args: unknown[]) => prototype.query.apply(client, args);
    const countedQuery = (...args: unknown[]) => {
      const callback = args.at(-1);
      if (typeof callback === 'function') {
        args[args.length - 1] = (err: unknown, result: unknown) => {
          if (err) countStatementError(err);
          (callback as (err: unknown, result: unknown) => void)(err, result);
        };
        return query(...args);
      }
      const result = query(...args);
      // A branch of its own: the caller still sees the rejection on the promise it holds.
      if (result instanceof Promise) result.catch(countStatementError);
      return result;
    };
    Object.assign(client, { query: countedQuery });
  });
  return trackPool({
    get total() {
      return pool.totalCount;
    },
    get idle() {
      return pool.idleCount;
    },
    get waiting() {
      return pool.waitingCount;
    },
  });
}
