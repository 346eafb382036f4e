// Ordinary writes from many editors at once: creates (by term name and by ID, single events and
// series), edits that move events and change their terms, trashes, restores, category re-parenting
// and deletes for good, all on the same few categories and days. On PostgreSQL they interleave for
// real; none may deadlock (the locks are taken in one order, docs/architecture.md "Locks"), none may
// answer 5xx, and the counts the triggers keep must equal a recount afterwards.
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { expect, it } from 'vitest';
import { statementErrors } from '../../src/metrics/registry.js';
import { describeEachDatabase } from '../setup/each-database.js';
import type { TestResponse } from '../setup/server.js';

/**
 * Writers and rounds per database. PGlite has one connection, so its transactions run one after
 * another whatever the number of writers: a few writers check the counts there, and the many whose
 * transactions interleave (and could deadlock) are PostgreSQL's; 216 writes took 76 s of PGlite on a
 * busy machine.
 */
const LOAD = { postgresql: { writers: 8, rounds: 3 }, pglite: { writers: 3, rounds: 2 } };

async function deadlocks(): Promise<number> {
  const { values } = await statementErrors.get();
  return values.filter((v) => v.labels.code === '40P01').reduce((sum, v) => sum + v.value, 0);
}

describeEachDatabase('parallel writers of ordinary edits', (s, kind) => {
  it('mixes creates, edits, trashes, restores, re-parenting and deletes without deadlock or 5xx', async () => {
    const { writers, rounds } = LOAD[kind];
    const names = ['Mix Music', 'Mix Art', 'Mix Food'];
    const categories: number[] = [];
    for (const name of names) categories.push((await s.post('/categories', { name })).body.id);
    const parents = [(await s.post('/categories', { name: 'Mix Left' })).body.id];
    parents.push((await s.post('/categories', { name: 'Mix Right' })).body.id);
    const before = await deadlocks();
    const answers: { what: string; status: number; code?: string }[] = [];
    const note = (what: string, r: TestResponse) => {
      answers.push({ what, status: r.status, code: r.body?.code });
      return r;
    };
    const day = (d: number, hour = 10) => `2031-03-0${d} ${hour}:00`;

    async function writer(w: number) {
      for (let round = 0; round < rounds; round++) {
        const byName = note(
          'create by name',
          await s.post('/events', {
            title: `Mix ${w}.${round} named`,
            start_date: day(3),
            end_date: day(3, 11),
            categories: names,
            tags: ['mix-tag'],
          }),
        ).body;
        const byId = note(
          'create by ID',
          await s.post('/events', {
            title: `Mix ${w}.${round} by ID`,
            start_date: day(3, 12),
            end_date: day(3, 13),
            categories: [...categories].reverse(),
          }),
        ).body;
        const series = note(
          'create series',
          await s.post('/events', {
            title: `Mix ${w}.${round} series`,
            start_date: day(3, 14),
            end_date: day(3, 15),
            categories: [categories[w % 3]],
            recurrence: ['RRULE:FREQ=DAILY;COUNT=4'],
          }),
        ).body;
        note(
          'edit',
          await s.request('PATCH', `/events/${byName.id}`, {
            body: { start_date: day(4), end_date: day(4, 11), categories: [categories[(w + round) % 3]] },
          }),
        );
        note('trash', await s.request('DELETE', `/events/${byId.id}`));
        note('restore', await s.request('PATCH', `/events/${byId.id}`, { body: { status: 'publish' } }));
        note(
          're-parent',
          await s.request('PATCH', `/categories/${categories[w % 3]}`, { body: { parent: parents[(w + round) % 2] } }),
        );
        note('trash series', await s.request('DELETE', `/events/${series.id}`));
        note('delete', await s.request('DELETE', `/events/${byName.id}?force=true`));
      }
    }
    await Promise.all(Array.from({ length: writers }, (_, w) => writer(w)));

    expect(answers.filter((a) => a.status >= 300)).toEqual([]);
    expect(answers).toHaveLength(writers * rounds * 9);
    expect((await deadlocks()) - before).toBe(0);

    // The counts kept at commit equal a recount.
    const [wrongTerms] = await s.db.prisma.$queryRawUnsafe<{ n: number }[]>(
      `SELECT count(*)::int AS n FROM terms t WHERE t.event_count <> (SELECT count(*) FROM event_terms l
         JOIN events e ON e.id = l.event_id WHERE l.term_id = t.id AND e.status = 'publish' AND e.recurrence = '{}')`,
    );
    expect(wrongTerms.n).toBe(0);
    const [wrongDays] = await s.db.prisma.$queryRawUnsafe<{ n: number }[]>(
      `SELECT count(*)::int AS n FROM (
         SELECT (start_utc AT TIME ZONE 'UTC')::date AS day, count(*)::int AS events FROM events
         WHERE status = 'publish' AND NOT hide_from_listings AND recurrence = '{}' GROUP BY 1) c
       FULL JOIN (SELECT day, events FROM listed_events_per_day WHERE events <> 0) k USING (day)
       WHERE c.events IS DISTINCT FROM k.events`,
    );
    expect(wrongDays.n).toBe(0);
    const [pending] = await s.db.prisma.$queryRawUnsafe<{ n: number }[]>(
      `SELECT ((SELECT count(*) FROM pending_counts) + (SELECT count(*) FROM pending_counts_due))::int AS n`,
    );
    expect(pending.n).toBe(0);
  }, 120_000);
});

// A lock held longer than a writer may wait (half the statement limit, db/client.ts) is contention:
// 409 with Retry-After, as an exhausted retry is, never 503 "database unavailable". Only PostgreSQL
// has other connections to hold a lock from.
describeEachDatabase(
  'a writer waiting on a lock held elsewhere on %s',
  (s) => {
    it('answers 409 rest_conflict with Retry-After once its lock wait runs out', async () => {
      const event = (
        await s.post('/events', { title: 'Held', start_date: '2031-05-05 10:00', end_date: '2031-05-05 11:00' })
      ).body;
      const holder = new pg.Client({ connectionString: s.db.connectionString });
      await holder.connect();
      try {
        await holder.query('BEGIN');
        await holder.query('SELECT id FROM events WHERE id = $1 FOR UPDATE', [event.id]);
        const started = Date.now();
        const r = await s.request('PATCH', `/events/${event.id}`, { body: { title: 'Waited' } });
        expect([r.status, r.body.code, r.headers.get('retry-after')]).toEqual([409, 'rest_conflict', '1']);
        expect(Date.now() - started).toBeLessThan(1900);
      } finally {
        await holder.query('ROLLBACK');
        await holder.end();
      }
      expect((await s.request('PATCH', `/events/${event.id}`, { body: { title: 'Later' } })).status).toBe(200);
    });
  },
  { kinds: ['postgresql'], env: { DATABASE_STATEMENT_TIMEOUT_SECONDS: '2' } },
);

describeEachDatabase(
  'a write that waits its turn on %s',
  (s) => {
    it('may take longer than Prisma’s default five seconds, within the limits the configuration sets', async () => {
      const series = (
        await s.post('/events', {
          title: 'Patient',
          start_date: '2031-06-01 10:00',
          end_date: '2031-06-01 11:00',
          recurrence: ['RRULE:FREQ=DAILY;COUNT=3'],
        })
      ).body;
      const occurrence = (await s.db.prisma.event.findFirstOrThrow({ where: { parentId: series.id } })) as {
        id: number;
      };
      // Two holders, each under the lock wait's limit (5 s of the default 10 s statement limit), one
      // after the other: the update waits about 7 s in all, within its transaction.
      const holders = [new pg.Client({ connectionString: s.db.connectionString })];
      holders.push(new pg.Client({ connectionString: s.db.connectionString }));
      for (const holder of holders) await holder.connect();
      try {
        await holders[0].query('BEGIN');
        await holders[0].query('SELECT id FROM events WHERE id = $1 FOR UPDATE', [series.id]);
        await holders[1].query('BEGIN');
        await holders[1].query('SELECT id FROM events WHERE id = $1 FOR UPDATE', [occurrence.id]);
        const update = s.request('PATCH', `/events/${occurrence.id}`, { body: { title: 'Waited its turn' } });
        await sleep(3500);
        await holders[0].query('ROLLBACK');
        await sleep(3500);
        await holders[1].query('ROLLBACK');
        const r = await update;
        expect([r.status, r.body.title?.rendered ?? r.body.title]).toEqual([200, 'Waited its turn']);
      } finally {
        for (const holder of holders) await holder.end();
      }
    }, 30_000);
  },
  { kinds: ['postgresql'] },
);
