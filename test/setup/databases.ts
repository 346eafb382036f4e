// The databases the HTTP tests run against: embedded PGlite always, and PostgreSQL when
// TEST_DATABASE_URL (or DATABASE_URL) names a server. Each test file gets a database of its own, so
// files run in parallel without seeing each other's rows; it starts as a copy of the template that
// global-setup.ts prepared (migrated, one user per role).
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import pg from 'pg';
import { inject } from 'vitest';
import { type Database, type DatabaseOptions, openDatabase } from '../../src/db/client.js';
import type { RoleUsers } from './role-users.js';
import { readTemplateRows, resetToTemplate, type TemplateRows } from './template-rows.js';

export type DatabaseKind = 'pglite' | 'postgresql';

export const postgresUrl = process.env.TEST_DATABASE_URL || process.env.DATABASE_URL || undefined;

export const databaseKinds: DatabaseKind[] = postgresUrl ? ['pglite', 'postgresql'] : ['pglite'];

/** Why a part that needs PostgreSQL is skipped in a run without it: in its title, so every report shows it. */
export const NEEDS_POSTGRES = 'needs PostgreSQL: set TEST_DATABASE_URL';

/** The title of a suite or test that needs PostgreSQL, with the reason it is skipped when the run has none. */
export const postgresTitle = (title: string) => (postgresUrl ? title : `${title} [skipped: ${NEEDS_POSTGRES}]`);

export interface TestDatabase {
  db: Database;
  /** The template's users, one per role. */
  users: RoleUsers;
  /** The connection string of the private PostgreSQL database, if any. */
  url?: string;
  drop(): Promise<void>;
}

/** Creates a PostgreSQL database on the test server (empty, or a copy of `template`) and returns its URL. */
export async function createPostgresDatabase(template?: string): Promise<{ url: string; drop: () => Promise<void> }> {
  if (!postgresUrl) throw new Error('TEST_DATABASE_URL is not set');
  const name = `cal_test_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: postgresUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE "${name}"${template ? ` TEMPLATE "${template}"` : ''}`);
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

/**
 * Embedded databases the worker's earlier test files are done with, back at the template's rows
 * (template-rows.ts): the files of a worker run one after another and share its modules
 * (vitest.config.ts), so the next file with the same limits takes one instead of starting PGlite.
 */
const idlePGlite: { key: string; db: Database }[] = [];
/** Each idle database holds a few hundred MB of WebAssembly memory: a worker keeps this many at most. */
const MAX_IDLE = 2;

/** The template's rows as a database started from it has them (read from the worker's first one). */
let templateRows: TemplateRows | undefined;

function reusedPGlite(key: string): Database | undefined {
  const index = idlePGlite.findIndex((idle) => idle.key === key);
  return index < 0 ? undefined : idlePGlite.splice(index, 1)[0].db;
}

async function openPGliteTemplate(limits: Pick<DatabaseOptions, 'statementTimeoutMs' | 'transactionTimeoutMs'>) {
  const { file } = inject('databaseTemplates').pglite;
  const db = await openDatabase({ dataDir: 'memory://', loadDataDir: new Blob([fs.readFileSync(file)]), ...limits });
  if (inject('sharedModules')) templateRows ??= await readTemplateRows(db);
  return db;
}

/** Puts the database back for the next file, or closes it when no file could take it. */
async function handOnOrClose(db: Database, key: string): Promise<void> {
  if (!templateRows || idlePGlite.length >= MAX_IDLE) {
    await db.close();
    return;
  }
  try {
    await resetToTemplate(db, templateRows);
  } catch (err) {
    await db.close();
    throw err;
  }
  idlePGlite.push({ key, db });
}

export async function openTestDatabase(
  kind: DatabaseKind,
  limits: Pick<DatabaseOptions, 'statementTimeoutMs' | 'transactionTimeoutMs'> = {},
): Promise<TestDatabase> {
  const templates = inject('databaseTemplates');
  if (kind === 'pglite') {
    const key = JSON.stringify(limits);
    const db = reusedPGlite(key) ?? (await openPGliteTemplate(limits));
    return {
      db,
      users: templates.pglite.users,
      drop: () => handOnOrClose(db, key),
    };
  }
  if (!templates.postgresql) throw new Error('TEST_DATABASE_URL is not set');
  const created = await createPostgresDatabase(templates.postgresql.name);
  const db = await openDatabase({ databaseUrl: created.url, dataDir: '', poolSize: 5, ...limits });
  return {
    db,
    users: templates.postgresql.users,
    url: created.url,
    drop: async () => {
      await db.close();
      await created.drop();
    },
  };
}
