// The databases the parts measure: made fresh on the PostgreSQL server (or a PGlite folder), seeded
// with a calendar (scripts/bench/calendar.ts), with an editor to write as and what the scenarios ask for.
import pg from 'pg';
import { createUser, issueAppPassword } from '../../src/auth/accounts.js';
import { openDatabase } from '../../src/db/client.js';
import type { SqlConnection } from '../../src/db/sql.js';
import { type CalendarSize, seedCalendar } from './calendar.js';
import { NOW, SERVER_URL } from './settings.js';

/** What the scenarios ask for, picked from the seeded data. */
export interface Fixtures {
  eventIds: number[];
  venueId: number;
  categoryId: number;
  organizerId: number;
  tagId: number;
  windowStart: string;
  windowEnd: string;
  /** An editor's application password: the account creation writes as. */
  bearer: string;
  /**
   * A subscriber's application password: a signed-in reader, whose answers are built every time
   * (http/answer-cache.ts keeps anonymous ones only) from the same published events as an
   * anonymous caller's, so with the same queries as the baseline's (an editor's lists would hold
   * drafts too: auth/permissions.ts listScope).
   */
  reader: string;
}

export type Storage = { kind: 'postgresql'; url: string } | { kind: 'pglite'; dataDir: string };

/** A fresh database on the server, dropped by `drop()`. */
export async function createPostgres(label: string): Promise<{ url: string; drop(): Promise<void> }> {
  const name = `calendar_bench_${label}_${process.pid}`;
  const admin = async (statement: string) => {
    const client = new pg.Client({ connectionString: SERVER_URL });
    await client.connect();
    try {
      await client.query(statement);
    } finally {
      await client.end();
    }
  };
  await admin(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
  await admin(`CREATE DATABASE "${name}"`);
  const url = new URL(SERVER_URL);
  url.pathname = `/${name}`;
  return { url: url.toString(), drop: () => admin(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`) };
}

/** Migrates and seeds the database, adds an editor and a subscriber with an application password each, picks the fixtures. */
export async function seed(storage: Storage, size: CalendarSize): Promise<Fixtures> {
  const started = Date.now();
  const db = await openDatabase(
    storage.kind === 'postgresql' ? { databaseUrl: storage.url, dataDir: '' } : { dataDir: storage.dataDir },
  );
  try {
    await db.withConnection(async (sql) => {
      await seedCalendar(sql, size, NOW);
      // As a database in service would be: vacuumed (index-only scans need the visibility map), so
      // that autovacuum does not start in the middle of a measurement.
      await sql.exec('VACUUM ANALYZE');
    });
    // An editor, as an integration syncing a calendar would be: accounts below editor have a quota
    // of creates per hour (QUOTA_CREATES_PER_HOUR), which the creation scenario would meet at once.
    await createUser(db.prisma, { login: 'bench', password: 'bench-password', role: 'editor' });
    const { password } = await issueAppPassword(db.prisma, 'bench', 'benchmark');
    await createUser(db.prisma, { login: 'bench-reader', password: 'bench-password', role: 'subscriber' });
    const reader = (await issueAppPassword(db.prisma, 'bench-reader', 'benchmark')).password;
    const fixtures = await db.withConnection((sql) => pickFixtures(sql, password, reader));
    console.log(
      `  (seeded ${size.events.toLocaleString('en')} events on ${storage.kind} in ${((Date.now() - started) / 1000).toFixed(1)} s)`,
    );
    return fixtures;
  } finally {
    await db.close();
  }
}

/** Published upcoming events to read, and the busiest venue and category of the coming year. */
export async function pickFixtures(sql: SqlConnection, bearer: string, reader: string): Promise<Fixtures> {
  const day = (offsetDays: number) => new Date(NOW.getTime() + offsetDays * 86_400_000).toISOString().slice(0, 10);
  const [windowStart, windowEnd] = [day(0), day(365)];
  const events = await sql.query<{ id: number }>(
    `SELECT id FROM events WHERE status = 'publish' ORDER BY id LIMIT 1000`,
  );
  const [busiest] = await sql.query<{ venue_id: number; term_id: number }>(
    `SELECT ev.venue_id, et.term_id FROM events e
     JOIN event_venues ev ON ev.event_id = e.id JOIN event_terms et ON et.event_id = e.id JOIN terms t ON t.id = et.term_id
     WHERE t.taxonomy = 'tribe_events_cat' AND e.status = 'publish' AND NOT e.hide_from_listings AND e.start_utc BETWEEN $1 AND $2
     GROUP BY 1, 2 ORDER BY count(*) DESC, 1, 2 LIMIT 1`,
    [windowStart, windowEnd],
  );
  const [other] = await sql.query<{ organizer_id: number; tag_id: number }>(
    `SELECT (SELECT min(id) FROM organizers) AS organizer_id, (SELECT min(id) FROM terms WHERE taxonomy = 'post_tag') AS tag_id`,
  );
  return {
    eventIds: events.map((e) => e.id),
    venueId: busiest.venue_id,
    categoryId: busiest.term_id,
    organizerId: other.organizer_id,
    tagId: other.tag_id,
    windowStart,
    windowEnd,
    bearer,
    reader,
  };
}
