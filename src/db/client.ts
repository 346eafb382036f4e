// The one place that constructs the Prisma client, on embedded PGlite or on PostgreSQL.
import fs from 'node:fs';
import path from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { PrismaPg } from '@prisma/adapter-pg';
import pg from 'pg';
import { PrismaPGlite } from 'pglite-prisma-adapter';
import { PrismaClient } from '../../generated/prisma/client.js';
import type { SqlConnection } from './sql.js';
import { migrate } from './migrate.js';

export type Prisma = PrismaClient;
/** The client a `$transaction` callback receives. */
export type Tx = Omit<PrismaClient, '$connect' | '$disconnect' | '$on' | '$transaction' | '$extends'>;

export interface Database {
  prisma: PrismaClient;
  kind: 'pglite' | 'postgresql';
  /** Runs `fn` on one dedicated connection (the migration runner needs a session for its lock). */
  withConnection<T>(fn: (sql: SqlConnection) => Promise<T>): Promise<T>;
  /** Cheap round trip, for readiness checks. */
  ping(): Promise<void>;
  close(): Promise<void>;
}

export interface DatabaseOptions {
  databaseUrl?: string;
  /** Directory for PGlite; `memory://` keeps it in memory (tests). */
  dataDir: string;
  poolSize?: number;
}

export async function openDatabase(options: DatabaseOptions): Promise<Database> {
  const db = options.databaseUrl ? openPostgres(options.databaseUrl, options.poolSize) : await openPGlite(options.dataDir);
  try {
    await db.withConnection((sql) => migrate(sql));
  } catch (err) {
    await db.close();
    throw err;
  }
  return db;
}

async function openPGlite(dataDir: string): Promise<Database> {
  const inMemory = dataDir.startsWith('memory://');
  if (!inMemory) fs.mkdirSync(path.resolve(dataDir), { recursive: true });
  const lite = inMemory ? new PGlite() : new PGlite(path.resolve(dataDir));
  await lite.waitReady;
  // pglite-prisma-adapter pins an older @prisma/driver-adapter-utils; the interfaces differ in
  // types only (STACK.md: verified at run time with Prisma 6.19).
  const prisma = new PrismaClient({ adapter: new PrismaPGlite(lite) as never });
  const sql: SqlConnection = {
    query: async (text, params) => (await lite.query(text, params)).rows as never,
    exec: async (script) => void (await lite.exec(script)),
  };
  return {
    prisma,
    kind: 'pglite',
    withConnection: (fn) => fn(sql),
    ping: async () => void (await lite.query('SELECT 1')),
    close: async () => {
      await prisma.$disconnect();
      await lite.close();
    },
  };
}

function openPostgres(connectionString: string, poolSize = 10): Database {
  const pool = new pg.Pool({ connectionString, max: poolSize });
  // An idle client that loses its connection emits 'error'; without a listener that kills the process.
  pool.on('error', () => {});
  const prisma = new PrismaClient({ adapter: new PrismaPg(pool) });
  return {
    prisma,
    kind: 'postgresql',
    withConnection: async (fn) => {
      const client = await pool.connect();
      try {
        return await fn({
          query: async (text, params) => (await client.query(text, params as unknown[])).rows,
          exec: async (script) => void (await client.query(script)),
        });
      } finally {
        client.release();
      }
    },
    ping: async () => void (await pool.query('SELECT 1')),
    close: async () => {
      await prisma.$disconnect();
      await pool.end();
    },
  };
}
