// The databases the HTTP tests run against: embedded PGlite always, and PostgreSQL when
// TEST_DATABASE_URL (or DATABASE_URL) names a server. Each test file gets a database of its own, so
// files run in parallel without seeing each other's rows.
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { type Database, openDatabase } from '../../src/db/client.js';

export type DatabaseKind = 'pglite' | 'postgresql';

export const postgresUrl = process.env.TEST_DATABASE_URL || process.env.DATABASE_URL || undefined;

export const databaseKinds: DatabaseKind[] = postgresUrl ? ['pglite', 'postgresql'] : ['pglite'];

export interface TestDatabase {
  db: Database;
  /** The connection string of the private PostgreSQL database, if any. */
  url?: string;
  drop(): Promise<void>;
}

/** Creates an empty PostgreSQL database on the test server and returns its URL. */
export async function createPostgresDatabase(): Promise<{ url: string; drop: () => Promise<void> }> {
  if (!postgresUrl) throw new Error('TEST_DATABASE_URL is not set');
  const name = `cal_test_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: postgresUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE "${name}"`);
  await admin.end();
  const url = new URL(postgresUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    drop: async () => {
      const client = new pg.Client({ connectionString: postgresUrl });
      await client.connect();
      await client.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
      await client.end();
    },
  };
}

export async function openTestDatabase(kind: DatabaseKind): Promise<TestDatabase> {
  if (kind === 'pglite') {
    const db = await openDatabase({ dataDir: 'memory://' });
    return { db, drop: () => db.close() };
  }
  const created = await createPostgresDatabase();
  const db = await openDatabase({ databaseUrl: created.url, dataDir: '', poolSize: 5 });
  return {
    db,
    url: created.url,
    drop: async () => {
      await db.close();
      await created.drop();
    },
  };
}
