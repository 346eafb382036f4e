// A crash in the middle of a burst of writes, on PostgreSQL: the service runs as its own process
// (`npm start`'s entry point), is killed with SIGKILL while creates are in flight, and is started
// again on the same database. Every create that was acknowledged must be there, whole (its new tag,
// its inline venue), and nothing half-written may exist: no event without the tag it was created
// with, no inline venue or tag left behind by a create that did not commit.
import type { ChildProcess } from 'node:child_process';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPostgresDatabase, postgresTitle, postgresUrl } from '../setup/databases.js';
import { freePort, startProcess } from '../setup/process.js';

describe.runIf(postgresUrl)(postgresTitle('a crash during writes on PostgreSQL'), () => {
  let database: { url: string; drop: () => Promise<void> };
  let port: number;
  let child: ChildProcess | undefined;
  const base = () => `http://127.0.0.1:${port}/wp-json/calendar/events/v1`;
  const auth = `Basic ${Buffer.from('crash-admin:crash-admin-password').toString('base64')}`;

  async function start() {
    child = await startProcess(port, {
      DATABASE_URL: database.url,
      ADMIN_USER: 'crash-admin',
      ADMIN_PASSWORD: 'crash-admin-password',
    });
  }

  beforeAll(async () => {
    database = await createPostgresDatabase();
    port = await freePort();
    await start();
  }, 60_000);
  afterAll(async () => {
    child?.kill('SIGKILL');
    await database?.drop();
  });

  it('keeps every acknowledged create, whole, and no trace of the others', async () => {
    const acknowledged: { id: number; n: number }[] = [];
    let sent = 0;
    const write = async (n: number) => {
      const r = await fetch(`${base()}/events`, {
        method: 'POST',
        headers: { authorization: auth, 'content-type': 'application/json' },
        body: JSON.stringify({
          title: `Crash ${n}`,
          start_date: '2035-01-01 10:00',
          end_date: '2035-01-01 11:00',
          tags: [`crash-tag-${n}`],
          venue: { venue: `Crash hall ${n}` },
        }),
      });
      if (r.status === 201) acknowledged.push({ id: ((await r.json()) as { id: number }).id, n });
    };
    // Eight writers in parallel; the process is killed while they run.
    const writers = Array.from({ length: 8 }, async (_, w) => {
      for (let i = 0; ; i++) {
        const n = w * 10_000 + i;
        sent += 1;
        try {
          await write(n);
        } catch {
          return; // the connection died with the process
        }
      }
    });
    while (acknowledged.length < 40) await new Promise((resolve) => setTimeout(resolve, 20));
    child!.kill('SIGKILL');
    await Promise.all(writers);
    expect(sent).toBeGreaterThan(acknowledged.length);

    await start();
    const sql = new pg.Client({ connectionString: database.url });
    await sql.connect();
    try {
      for (const { id, n } of acknowledged) {
        const r = await fetch(`${base()}/events/${id}`, { headers: { authorization: auth } });
        expect(r.status, `event ${id}`).toBe(200);
        const event = (await r.json()) as { title: string; tags: { name: string }[]; venue: { venue: string } };
        expect(event.title).toBe(`Crash ${n}`);
        expect(event.tags.map((t) => t.name)).toEqual([`crash-tag-${n}`]);
        expect(event.venue.venue).toBe(`Crash hall ${n}`);
      }
      // Whatever committed is whole; whatever did not left nothing.
      const { rows: events } = await sql.query<{ id: number; title: string }>(
        "SELECT id, title FROM events WHERE title LIKE 'Crash %'",
      );
      const numbers = new Set(events.map((e) => e.title.slice('Crash '.length)));
      const { rows: bare } = await sql.query(
        "SELECT e.id FROM events e WHERE e.title LIKE 'Crash %' AND (NOT EXISTS (SELECT 1 FROM event_terms t WHERE t.event_id = e.id) OR NOT EXISTS (SELECT 1 FROM event_venues v WHERE v.event_id = e.id))",
      );
      expect(bare).toEqual([]);
      const { rows: tags } = await sql.query<{ name: string }>("SELECT name FROM terms WHERE name LIKE 'crash-tag-%'");
      expect(tags.map((t) => t.name.slice('crash-tag-'.length)).sort()).toEqual([...numbers].sort());
      const { rows: venues } = await sql.query<{ name: string }>(
        "SELECT name FROM venues WHERE name LIKE 'Crash hall %'",
      );
      expect(venues.map((v) => v.name.slice('Crash hall '.length)).sort()).toEqual([...numbers].sort());
    } finally {
      await sql.end();
    }
  }, 120_000);
});
