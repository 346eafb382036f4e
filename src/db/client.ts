// The one place that constructs the Prisma client, on embedded PGlite or on PostgreSQL.
import fs from 'node:fs';
import path from 'node:path';
import { PGlite, type QueryOptions, type Results, type Transaction } from '@electric-sql/pglite';
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm';
import { unaccent } from '@electric-sql/pglite/contrib/unaccent';
import { PrismaPg } from '@prisma/adapter-pg';
import pg from 'pg';
import { PrismaPGlite } from 'pglite-prisma-adapter';
import { PrismaClient } from '../../generated/prisma/client.js';
import type { SqlConnection } from './sql.js';
import { lockDataDir } from './data-dir-lock.js';
import { migrate } from './migrate.js';
import { preparedName, registerDriver, type StatementOptions } from './driver.js';
import { measurePool } from './pool-metrics.js';
import { countStatementError } from '../metrics/registry.js';

/** The client outside a transaction; `Prisma` is Prisma's namespace (SQL, JSON nulls, input types). */
export type { PrismaClient };
/** The client a `$transaction` callback receives (its home is db/tx.ts). */
export type { Tx } from './tx.js';

export interface Database {
  prisma: PrismaClient;
  kind: 'pglite' | 'postgresql';
  /** PostgreSQL only: where it is, for parts that keep connections of their own (rate limits, http/rate-limits.ts). */
  connectionString?: string;
  /** Runs `fn` on one dedicated connection without statement limits (migrations: a session for their lock). */
  withConnection<T>(fn: (sql: SqlConnection) => Promise<T>): Promise<T>;
  /** Cheap round trip, for readiness checks. */
  ping(): Promise<void>;
  close(): Promise<void>;
  /** Embedded only: the whole database as one tarball, which `loadDataDir` opens again (backups, test fixtures). */
  dump?(): Promise<Blob>;
}

export interface DatabaseOptions {
  databaseUrl?: string;
  /** Directory for PGlite; `memory://` keeps it in memory (tests). */
  dataDir: string;
  /** PGlite in memory: start from this tarball of a database (`Database.dump`) instead of an empty one. */
  loadDataDir?: Blob;
  poolSize?: number;
  /** PostgreSQL: how long to wait for a connection, new or from the pool (default 5 s). */
  connectTimeoutMs?: number;
  /** PostgreSQL: how long one statement may take, on the server and as seen from here (default 10 s). */
  statementTimeoutMs?: number;
  /** How long one transaction may take in all (default three statements' worth). */
  transactionTimeoutMs?: number;
}

/**
 * Prisma's own limits on an interactive transaction (2 s to start it, 5 s in all, by default) cut
 * transactions short of what the statement limit allows, and answered a wait for a busy pool or a
 * lock as if the database were down. A transaction may wait for a connection as long as any query
 * may (the connect timeout), and run as long as the transaction limit says.
 */
function transactionOptions(options: DatabaseOptions) {
  const statementTimeout = options.statementTimeoutMs ?? 10_000;
  return {
    maxWait: options.connectTimeoutMs ?? 5_000,
    timeout: options.transactionTimeoutMs ?? 3 * statementTimeout,
  };
}

export async function openDatabase(options: DatabaseOptions): Promise<Database> {
  const db = options.databaseUrl ? openPostgres(options.databaseUrl, options) : await openPGlite(options);
  try {
    await db.withConnection((sql) => migrate(sql));
  } catch (err) {
    await db.close();
    throw err;
  }
  return db;
}

/**
 * PostgreSQL's default 128 MB of shared buffers live inside PGlite's WebAssembly memory, which never
 * shrinks: with them the process held 420 MB after a few list requests, with 32 MB 230 MB. Pages
 * beyond them come from the operating system's file cache, a copy away.
 */
const PGLITE_SETTINGS = ['-c', 'shared_buffers=32MB'];

const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * PGlite runs every query synchronously on the main thread and resolves it through microtasks, so a
 * request's whole chain of queries would run without the event loop ever reading another socket:
 * requests got served in the order sockets happen to be polled, and under load some waited seconds.
 * Starting each statement or transaction on a fresh turn of the loop lets the waiting requests be
 * read first and queue on PGlite's lock in arrival order (measured in docs/performance.md).
 * Statements inside a transaction run on `tx` unchanged.
 */
class TurnTakingPGlite extends PGlite {
  override async query<T>(query: string, params?: unknown[], options?: QueryOptions): Promise<Results<T>> {
    await nextTurn();
    return counted(super.query<T>(query, params, options));
  }

  override async exec(query: string, options?: QueryOptions): Promise<Results[]> {
    await nextTurn();
    return counted(super.exec(query, options));
  }

  override async transaction<T>(callback: (tx: Transaction) => Promise<T>): Promise<T> {
    await nextTurn();
    // Only the statements' failures count: the callback's own errors (a refused write) are no failed
    // statement. Each statement on a turn of its own too: a write of many statements (a series and
    // its occurrences) would otherwise hold the event loop from its first to its last, every other
    // request (a health probe) waiting; others' statements still wait for the transaction's end.
    return super.transaction((tx) =>
      callback(
        Object.assign(Object.create(tx) as Transaction, {
          query: async <R>(query: string, params?: unknown[], options?: QueryOptions) => {
            await nextTurn();
            return counted(tx.query<R>(query, params, options));
          },
        }),
      ),
    );
  }
}

/** Failed statements count in /metrics (metrics/registry.ts), as they do on PostgreSQL (db/pool-metrics.ts). */
function counted<T>(result: Promise<T>): Promise<T> {
  result.catch(countStatementError);
  return result;
}

/** The extensions the migrations create (prisma/migrations/*_word_search; pg_trgm is no longer indexed since *_word_prefix_search, but that earlier migration still creates it). */
export const PGLITE_EXTENSIONS = { unaccent, pg_trgm };

async function openPGlite(options: DatabaseOptions): Promise<Database> {
  const { dataDir, loadDataDir } = options;
  const inMemory = dataDir.startsWith('memory://');
  if (!inMemory) fs.mkdirSync(path.resolve(dataDir), { recursive: true });
  const unlock = inMemory ? () => undefined : lockDataDir(path.resolve(dataDir));
  let lite: TurnTakingPGlite;
  try {
    // `memory://` by name: PGlite loads a tarball (`loadDataDir`) only into a data directory it was given.
    lite = new TurnTakingPGlite(inMemory ? 'memory://' : path.resolve(dataDir), {
      startParams: [...PGlite.defaultStartParams, ...PGLITE_SETTINGS],
      extensions: PGLITE_EXTENSIONS,
      ...(inMemory && loadDataDir ? { loadDataDir } : {}),
    });
    await lite.waitReady;
  } catch (err) {
    unlock();
    throw err;
  }
  // pglite-prisma-adapter pins an older @prisma/driver-adapter-utils; the interfaces differ in
  // types only (checked at run time with Prisma 6.19: every test runs through it).
  const prisma = new PrismaClient({
    adapter: new PrismaPGlite(lite) as never,
    transactionOptions: transactionOptions(options),
  });
  registerDriver(
    prisma,
    async (text, values) => (await lite.query(text, values)).rows,
    (work) => lite.transaction((tx) => work(async (text, values) => (await tx.query(text, values)).rows)),
  );
  const sql: SqlConnection = {
    query: async (text, params) => (await lite.query(text, params)).rows as never,
    exec: async (script) => {
      await lite.exec(script);
    },
  };
  return {
    prisma,
    kind: 'pglite',
    withConnection: (fn) => fn(sql),
    ping: async () => {
      await lite.query('SELECT 1');
    },
    dump: () => lite.dumpDataDir('none'),
    close: async () => {
      try {
        await prisma.$disconnect();
        await lite.close();
      } finally {
        unlock();
      }
    },
  };
}

/**
 * A database that is down answers at once (connection refused); one that is stopped or cut off
 * answers never. Every wait is bounded so that a request fails within seconds instead of hanging:
 * getting a connection (a new one, or a free one from a busy pool: pg-pool applies the same limit
 * to both), each statement on the server (`statement_timeout`) and as seen from here
 * (`query_timeout`, for a server that stopped answering mid-statement). Keep-alive probes notice a
 * peer that vanished without closing. Broken connections are dropped by the pool, so the service
 * recovers by itself once the database is back.
 */
function openPostgres(connectionString: string, options: DatabaseOptions): Database {
  const statementTimeout = options.statementTimeoutMs ?? 10_000;
  const pool = new pg.Pool({
    connectionString,
    max: options.poolSize ?? 10,
    connectionTimeoutMillis: options.connectTimeoutMs ?? 5_000,
    statement_timeout: statementTimeout,
    // A lock held by another writer longer than this is contention, not a database that is down:
    // the statement fails first with 55P03, answered 409 with Retry-After (http/errors.ts).
    lock_timeout: Math.ceil(statementTimeout / 2),
    // A little longer than the server's own limit, which gives the clearer error when it can.
    query_timeout: statementTimeout + 1_000,
    idle_in_transaction_session_timeout: transactionOptions(options).timeout,
    keepAlive: true,
    keepAliveInitialDelayMillis: 10_000,
  });
  // An idle client that loses its connection emits 'error'; without a listener that kills the process.
  pool.on('error', () => {
    // the pool drops the broken client; the next query gets a fresh one
  });
  const untrack = measurePool(pool);
  const prisma = new PrismaClient({ adapter: new PrismaPg(pool), transactionOptions: transactionOptions(options) });
  /** A statement as pg runs it: named (prepared once per connection) when asked, else unnamed. */
  const statement = (text: string, values: unknown[], options?: StatementOptions) => {
    const name = options?.prepare ? preparedName(text) : undefined;
    return name ? { name, text, values } : { text, values };
  };
  registerDriver(
    prisma,
    async (text, values, options) => (await pool.query<Record<string, unknown>>(statement(text, values, options))).rows,
    async (work) => {
      const client = await pool.connect();
      let broken: Error | undefined;
      try {
        await client.query('BEGIN');
        const result = await work(
          async (text, values, options) =>
            (await client.query<Record<string, unknown>>(statement(text, values, options))).rows,
        );
        await client.query('COMMIT');
        return result;
      } catch (err) {
        await client.query('ROLLBACK').catch((rollbackErr: unknown) => {
          broken = rollbackErr as Error; // the connection is gone: the pool must not hand it out again
        });
        throw err;
      } finally {
        client.release(broken);
      }
    },
  );
  return {
    prisma,
    kind: 'postgresql',
    connectionString,
    // A connection of its own, without the statement limits: a migration may rightly take minutes,
    // and so may waiting for another instance's migration to release the advisory lock.
    withConnection: async (fn) => {
      const client = new pg.Client({
        connectionString,
        connectionTimeoutMillis: options.connectTimeoutMs ?? 5_000,
        keepAlive: true,
      });
      client.on('error', () => {
        // a broken connection fails the query in flight, or the next one
      });
      await client.connect();
      try {
        return await fn({
          query: async (text, params) => (await client.query(text, params)).rows as never,
          exec: async (script) => {
            await client.query(script);
          },
        });
      } finally {
        await client.end().catch(() => undefined);
      }
    },
    ping: async () => {
      await pool.query('SELECT 1');
    },
    close: async () => {
      untrack();
      await prisma.$disconnect();
      await pool.end();
    },
  };
}
