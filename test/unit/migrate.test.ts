import { PGlite } from '@electric-sql/pglite';
import { PGLITE_EXTENSIONS } from '../../src/db/client.js';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import type { SqlConnection } from '../../src/db/sql.js';
import { openDatabase } from '../../src/db/client.js';
import { type Migration, migrate, MigrationError, readMigrations } from '../../src/db/migrate.js';
import { createPostgresDatabase, postgresTitle, postgresUrl } from '../setup/databases.js';

const liteConnection = (lite: PGlite): SqlConnection => ({
  query: async (sql, params) => (await lite.query(sql, params)).rows as never,
  exec: async (script) => {
    await lite.exec(script);
  },
});

const migration = (name: string, script: string): Migration => ({
  name,
  script,
  checksum: `sum-${script.length}-${name}`,
});

describe('the migration runner on PGlite', () => {
  it('applies the project migrations once and records them as Prisma does', async () => {
    const lite = new PGlite({ extensions: PGLITE_EXTENSIONS });
    const sql = liteConnection(lite);
    const names = readMigrations().map((m) => m.name);
    expect(await migrate(sql)).toEqual(names);
    expect(await migrate(sql)).toEqual([]);
    const rows = await sql.query<{ migration_name: string; checksum: string; finished_at: Date }>(
      'SELECT migration_name, checksum, finished_at FROM _prisma_migrations ORDER BY migration_name',
    );
    expect(rows.map((r) => r.migration_name)).toEqual(names);
    expect(rows.every((r) => /^[0-9a-f]{64}$/.test(r.checksum) && r.finished_at)).toBe(true);
    await lite.close();
  });

  it('rolls back a failing migration whole and records nothing for it', async () => {
    const lite = new PGlite({ extensions: PGLITE_EXTENSIONS });
    const sql = liteConnection(lite);
    const good = migration('001_good', 'CREATE TABLE a (id int);');
    const bad = migration('002_bad', 'CREATE TABLE b (id int); SELECT no_such_function();');
    await expect(migrate(sql, [good, bad])).rejects.toBeInstanceOf(MigrationError);
    const tables = await sql.query<{ name: string }>(
      "SELECT tablename AS name FROM pg_tables WHERE tablename IN ('a', 'b')",
    );
    expect(tables.map((t) => t.name)).toEqual(['a']);
    expect((await sql.query('SELECT * FROM _prisma_migrations')).length).toBe(1);
    await lite.close();
  });

  it('refuses to start when an applied migration was changed', async () => {
    const lite = new PGlite({ extensions: PGLITE_EXTENSIONS });
    const sql = liteConnection(lite);
    await migrate(sql, [migration('001', 'CREATE TABLE a (id int);')]);
    await expect(migrate(sql, [migration('001', 'CREATE TABLE a (id bigint);')])).rejects.toThrow(
      /changed after it was applied/,
    );
    await lite.close();
  });
});

describe.skipIf(!postgresUrl)(postgresTitle('the migration runner on PostgreSQL'), () => {
  let drop: (() => Promise<void>) | undefined;
  afterAll(() => drop?.());

  it('migrates once when several instances start at the same moment', async () => {
    const created = await createPostgresDatabase();
    drop = created.drop;
    const clients = await Promise.all(
      Array.from({ length: 4 }, async () => {
        const client = new pg.Client({ connectionString: created.url });
        await client.connect();
        return client;
      }),
    );
    const results = await Promise.all(
      clients.map((client) =>
        migrate({
          query: async (sql, params) => (await client.query(sql, params)).rows,
          exec: async (s) => {
            await client.query(s);
          },
        }),
      ),
    );
    const names = readMigrations().map((m) => m.name);
    expect(results.flat().sort()).toEqual(names.sort());
    expect(results.filter((r) => r.length > 0).length).toBe(1);
    const count = await clients[0].query('SELECT count(*)::int AS n FROM _prisma_migrations');
    expect(count.rows[0].n).toBe(names.length);
    await Promise.all(clients.map((c) => c.end()));
  });

  it("waits for another instance's migrations past the statement timeout of ordinary requests", async () => {
    const created = await createPostgresDatabase();
    const holder = new pg.Client({ connectionString: created.url });
    await holder.connect();
    try {
      // Another instance holds the migration lock for longer than a statement may take.
      await holder.query('SELECT pg_advisory_lock(72707369)');
      const release = setTimeout(() => void holder.query('SELECT pg_advisory_unlock(72707369)'), 1500);
      const started = Date.now();
      const db = await openDatabase({
        databaseUrl: created.url,
        dataDir: '',
        statementTimeoutMs: 300,
        connectTimeoutMs: 1000,
      });
      clearTimeout(release);
      expect(Date.now() - started).toBeGreaterThanOrEqual(1400);
      await db.close();
    } finally {
      await holder.end();
      await created.drop();
    }
  });
});
