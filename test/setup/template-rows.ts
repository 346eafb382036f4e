// What a database holds as the template leaves it (global-setup.ts): every row of every table and
// where each sequence stands. An embedded database that a test file is done with is put back to that
// (databases.ts) and handed to the next file of the same worker: starting PGlite from the template
// costs 0.6 s and a second of CPU (WebAssembly start-up and a 42 MB data directory unpacked), the
// reset a few milliseconds.
import type { Database } from '../../src/db/client.js';
import type { SqlConnection } from '../../src/db/sql.js';

export interface TemplateRows {
  /** Every table of the schema but the migrations' own, which a reset leaves alone. */
  tables: string[];
  /** Each table's rows as JSON, for those that have any, and the columns a row is written with (not the generated ones). */
  rows: { table: string; columns: string[]; json: string }[];
  sequences: { name: string; value: string; called: boolean }[];
}

const quoted = (name: string) => `"${name.replaceAll('"', '""')}"`;

export async function readTemplateRows(db: Database): Promise<TemplateRows> {
  return db.withConnection(async (sql) => {
    const tables = (
      await sql.query<{ name: string }>(
        `SELECT tablename AS name FROM pg_tables
          WHERE schemaname = 'public' AND tablename <> '_prisma_migrations' ORDER BY tablename`,
      )
    ).map((t) => t.name);
    const rows: TemplateRows['rows'] = [];
    for (const table of tables) {
      const [{ json }] = await sql.query<{ json: string | null }>(
        `SELECT json_agg(t)::text AS json FROM ${quoted(table)} t`,
      );
      if (!json) continue;
      const columns = await sql.query<{ name: string }>(
        `SELECT column_name AS name FROM information_schema.columns
          WHERE table_schema = 'public' AND table_name = $1 AND is_generated = 'NEVER' ORDER BY ordinal_position`,
        [table],
      );
      rows.push({ table, columns: columns.map((c) => c.name), json });
    }
    const sequences = await sql.query<TemplateRows['sequences'][number]>(
      `SELECT quote_ident(schemaname) || '.' || quote_ident(sequencename) AS name,
              COALESCE(last_value, start_value)::text AS value, last_value IS NOT NULL AS called
         FROM pg_sequences WHERE schemaname = 'public'`,
    );
    return { tables, rows, sequences };
  });
}

/**
 * Puts the database back to the template's rows, in one transaction. The rows go back as they were,
 * without the triggers and foreign-key checks they passed once already (replica role), in any order;
 * the truncation fires no trigger either (it would raise the data version, migration data_versions).
 */
export async function resetToTemplate(db: Database, template: TemplateRows): Promise<void> {
  await db.withConnection(async (sql: SqlConnection) => {
    await sql.exec('BEGIN');
    try {
      await sql.exec('SET LOCAL session_replication_role = replica');
      await sql.exec(`TRUNCATE ${template.tables.map(quoted).join(', ')} RESTART IDENTITY CASCADE`);
      for (const { table, columns, json } of template.rows) {
        const list = columns.map(quoted).join(', ');
        await sql.query(
          `INSERT INTO ${quoted(table)} (${list}) OVERRIDING SYSTEM VALUE
           SELECT ${list} FROM json_populate_recordset(NULL::${quoted(table)}, $1)`,
          [json],
        );
      }
      for (const { name, value, called } of template.sequences) {
        await sql.query('SELECT setval($1::regclass, $2::bigint, $3)', [name, value, called]);
      }
      await sql.exec('COMMIT');
    } catch (err) {
      await sql.exec('ROLLBACK');
      throw err;
    }
  });
}
