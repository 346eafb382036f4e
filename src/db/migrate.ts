// Applies prisma/migrations/*/migration.sql in order, each in its own transaction, under an advisory
// lock so that several instances starting together migrate once. Applied migrations are recorded in
// Prisma's own `_prisma_migrations` table with Prisma's checksum (SHA-256 of the script), so that a
// `prisma migrate deploy` run elsewhere sees the same state. We run them ourselves because Prisma's
// WebAssembly engine cannot migrate PostgreSQL through a driver adapter (Prisma issue 27403, "Column
// type 'name' could not be deserialized"), and Prisma 7's engine is a native download.
import { createHash, randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { inProject } from '../project-root.js';
import type { SqlConnection } from './sql.js';

export const MIGRATIONS_DIR = inProject('prisma', 'migrations');

/** The key Prisma's own migrate commands lock on, so that they and we exclude each other. */
const MIGRATION_LOCK_KEY = 72707369;

export interface Migration {
  name: string;
  script: string;
  checksum: string;
}

export class MigrationError extends Error {}

export function readMigrations(dir = MIGRATIONS_DIR): Migration[] {
  return fs
    .readdirSync(dir, { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && fs.existsSync(path.join(dir, entry.name, 'migration.sql')))
    .map((entry) => entry.name)
    .sort()
    .map((name) => {
      const script = fs.readFileSync(path.join(dir, name, 'migration.sql'), 'utf8');
      return { name, script, checksum: createHash('sha256').update(script).digest('hex') };
    });
}

interface AppliedRow {
  migration_name: string;
  checksum: string;
  finished_at: Date | null;
  rolled_back_at: Date | null;
}

/** Applies pending migrations; returns the names of those it applied. */
export async function migrate(sql: SqlConnection, migrations = readMigrations()): Promise<string[]> {
  await sql.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK_KEY]);
  try {
    await sql.exec(`CREATE TABLE IF NOT EXISTS "_prisma_migrations" (
      "id" VARCHAR(36) PRIMARY KEY NOT NULL,
      "checksum" VARCHAR(64) NOT NULL,
      "finished_at" TIMESTAMPTZ,
      "migration_name" VARCHAR(255) NOT NULL,
      "logs" TEXT,
      "rolled_back_at" TIMESTAMPTZ,
      "started_at" TIMESTAMPTZ NOT NULL DEFAULT now(),
      "applied_steps_count" INTEGER NOT NULL DEFAULT 0
    )`);
    const rows = await sql.query<AppliedRow>(
      'SELECT migration_name, checksum, finished_at, rolled_back_at FROM "_prisma_migrations" WHERE rolled_back_at IS NULL',
    );
    const applied = new Map(rows.map((row) => [row.migration_name, row]));
    const done: string[] = [];
    for (const migration of migrations) {
      const row = applied.get(migration.name);
      if (row) {
        if (!row.finished_at) {
          throw new MigrationError(`Migration ${migration.name} was started but never finished; resolve it by hand.`);
        }
        if (row.checksum !== migration.checksum) {
          throw new MigrationError(`Migration ${migration.name} was changed after it was applied.`);
        }
        continue;
      }
      await applyOne(sql, migration);
      done.push(migration.name);
    }
    return done;
  } finally {
    await sql.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK_KEY]);
  }
}

async function applyOne(sql: SqlConnection, migration: Migration): Promise<void> {
  await sql.exec('BEGIN');
  try {
    await sql.exec(migration.script);
    await sql.query(
      `INSERT INTO "_prisma_migrations" (id, checksum, migration_name, started_at, finished_at, applied_steps_count)
       VALUES ($1, $2, $3, now(), now(), 1)`,
      [randomUUID(), migration.checksum, migration.name],
    );
    await sql.exec('COMMIT');
  } catch (err) {
    await sql.exec('ROLLBACK');
    throw new MigrationError(`Migration ${migration.name} failed: ${(err as Error).message}`);
  }
}
