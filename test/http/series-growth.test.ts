// What one account's series cost the database and the integrations (docs/decisions.md, "Recurring
// events" and "Quotas"): a series' text is stored once, not once per occurrence; one write of a
// series is one change in the feed (so one webhook message), however many occurrences it touches;
// an unpublished series gets only a glimpse of its dates; and an account below editor is held to
// quotas of creates per hour, series and occurrences, which parallel writers cannot overrun.
import { expect, it } from 'vitest';
import { DEFAULT_RECURRENCE } from '../../src/config/limits.js';
import { extendSeries } from '../../src/services/series/window.js';
import { describeEachDatabase } from '../setup/each-database.js';
import type { TestServer } from '../setup/server.js';

interface Change {
  type: string;
  id: number;
  action: string;
}

/** The feed's end, once every write so far shows in it. */
async function feedEnd(s: TestServer): Promise<string> {
  let cursor: string | undefined;
  for (;;) {
    const r = await s.get(`/changes?per_page=500${cursor ? `&since=${cursor}` : ''}`);
    cursor = r.body.next_cursor;
    if (!r.body.more) return cursor!;
  }
}

/**
 * The changes after `since` of these objects (`type:id`), waiting for transactions still running to
 * end: on a shared server, other tests' transactions hold the feed back for a while, and changes of
 * earlier tests may appear after the cursor then.
 */
async function changesAfter(s: TestServer, since: string, expected: number, of: Set<string>): Promise<Change[]> {
  const read = async () =>
    ((await s.get(`/changes?per_page=500&since=${since}`)).body.changes as Change[])
      .filter((c) => of.has(`${c.type}:${c.id}`))
      .map(({ type, id, action }) => ({ type, id, action }));
  for (let i = 0; i < 400 && (await read()).length < expected; i++) {
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  // Then a moment more, for any change beyond those expected.
  await new Promise((resolve) => setTimeout(resolve, 200));
  return read();
}

const occurrenceRows = (s: TestServer, series: number) => s.db.prisma.event.count({ where: { parentId: series } });

describeEachDatabase('what a series costs', (s) => {
  it('stores its text once: occurrences show it, and a change of it, without a copy each', async () => {
    const text = `<p>${'A programme note that runs long. '.repeat(600)}</p>`; // about 20 KB
    const series = (
      await s.post('/events', {
        title: 'Long notes',
        description: text,
        excerpt: 'Every week',
        start_date: '2036-01-05 18:00',
        end_date: '2036-01-05 19:00',
        recurrence: ['RRULE:FREQ=WEEKLY;COUNT=20'],
      })
    ).body;
    const [stored] = await s.db.prisma.$queryRawUnsafe<{ n: number; copies: number; bytes: number; own: number }[]>(
      `SELECT count(*)::int AS n, count(description)::int AS copies, avg(pg_column_size(o.*))::int AS bytes,
         (SELECT pg_column_size(s.*) FROM events s WHERE s.id = $1) AS own
       FROM events o WHERE o.parent_id = $1`,
      series.id,
    );
    expect(stored.n).toBe(20);
    expect(stored.copies).toBe(0);
    expect(stored.bytes).toBeLessThan(600);
    const occurrence = await s.db.prisma.event.findFirstOrThrow({
      where: { parentId: series.id },
      orderBy: { id: 'asc' },
    });
    const before = await s.get(`/events/${occurrence.id}`);
    expect([before.body.description, before.body.excerpt]).toEqual([text, 'Every week']);

    await s.request('PATCH', `/events/${series.id}`, { body: { description: '<p>Shorter now.</p>' } });
    const after = await s.get(`/events/${occurrence.id}`);
    expect(after.body.description).toBe('<p>Shorter now.</p>');
    expect(after.headers.get('etag')).not.toBe(before.headers.get('etag'));
    expect(after.body.modified_utc >= before.body.modified_utc).toBe(true);
    // Found by the words of the series' text, which it shows.
    const found = await s.get(`/events?search=shorter&start_date=2036-01-01&end_date=2036-12-31&per_page=50`);
    expect(found.body.events.map((e: { id: number }) => e.id)).toContain(occurrence.id);
    expect(found.body.total).toBe(20);
    // An occurrence given a text of its own keeps it; one changed otherwise goes on showing the series'.
    const [own, other] = await s.db.prisma.event.findMany({
      where: { parentId: series.id },
      orderBy: { id: 'asc' },
      skip: 1,
      take: 2,
    });
    await s.request('PATCH', `/events/${own.id}`, { body: { description: 'Its own words' } });
    await s.request('PATCH', `/events/${other.id}`, { body: { title: 'Moved title' } });
    await s.request('PATCH', `/events/${series.id}`, { body: { description: 'Newest' } });
    expect((await s.get(`/events/${own.id}`)).body.description).toBe('Its own words');
    expect((await s.get(`/events/${other.id}`)).body.description).toBe('Newest');
    // A series made a single event again leaves its exceptions with the text they showed.
    await s.request('PATCH', `/events/${series.id}`, { body: { recurrence: [] } });
    expect((await s.get(`/events/${other.id}`)).body.description).toBe('Newest');
  });

  it('records one change for one write of a series, however many occurrences it touches', async () => {
    const venue = (await s.post('/venues', { venue: 'Series Hall' })).body;
    const start = await feedEnd(s);
    const series = (
      await s.post('/events', {
        title: 'Daily',
        start_date: '2037-03-01 09:00',
        end_date: '2037-03-01 10:00',
        venue: venue.id,
        categories: ['Series category'],
        recurrence: ['RRULE:FREQ=DAILY;COUNT=40'],
      })
    ).body;
    const occurrenceIds = (await s.db.prisma.event.findMany({ where: { parentId: series.id } })).map((o) => o.id);
    expect(occurrenceIds).toHaveLength(40);
    const of = new Set([`event:${series.id}`, `venue:${venue.id}`, ...occurrenceIds.map((id) => `event:${id}`)]);
    const created = (await changesAfter(s, start, 1, of)).filter((c) => c.type === 'event');
    expect(created).toEqual([{ type: 'event', id: series.id, action: 'created' }]);

    let cursor = await feedEnd(s);
    await s.request('PATCH', `/events/${series.id}`, {
      body: { title: 'Daily, renamed', start_date: '2037-03-01 10:00' },
    });
    expect(await changesAfter(s, cursor, 1, of)).toEqual([{ type: 'event', id: series.id, action: 'updated' }]);

    cursor = await feedEnd(s);
    await s.request('PATCH', `/venues/${venue.id}`, { body: { venue: 'Series Hall, renamed' } });
    const renamed = await changesAfter(s, cursor, 2, of);
    expect(renamed).toEqual(
      expect.arrayContaining([
        { type: 'venue', id: venue.id, action: 'updated' },
        { type: 'event', id: series.id, action: 'updated' },
      ]),
    );
    expect(renamed).toHaveLength(2);

    const occurrence = await s.db.prisma.event.findFirstOrThrow({ where: { parentId: series.id } });
    cursor = await feedEnd(s);
    await s.request('PATCH', `/events/${occurrence.id}`, { body: { title: 'This one alone' } });
    expect(await changesAfter(s, cursor, 1, of)).toEqual([{ type: 'event', id: occurrence.id, action: 'updated' }]);

    cursor = await feedEnd(s);
    await s.request('DELETE', `/events/${series.id}`);
    const trashed = await changesAfter(s, cursor, 2, of);
    expect(trashed).toEqual(
      expect.arrayContaining([
        { type: 'event', id: series.id, action: 'trashed' },
        { type: 'event', id: occurrence.id, action: 'trashed' },
      ]),
    );
    expect(trashed.filter((c) => c.type === 'event')).toHaveLength(2);
  });

  it('gives an unpublished series a glimpse of its dates, and the rest once it is published', async () => {
    const r = await s.post(
      '/events',
      {
        title: 'Endless draft',
        start_date: '2036-06-01 07:00',
        end_date: '2036-06-01 08:00',
        recurrence: ['RRULE:FREQ=HOURLY'],
      },
      { as: 'contributor' },
    );
    expect([r.status, r.body.status]).toEqual([201, 'draft']);
    expect(await occurrenceRows(s, r.body.id)).toBe(DEFAULT_RECURRENCE.draftMaxOccurrences);
    await extendSeries(s.db.prisma, DEFAULT_RECURRENCE);
    expect(await occurrenceRows(s, r.body.id)).toBe(DEFAULT_RECURRENCE.draftMaxOccurrences);

    const daily = (
      await s.post(
        '/events',
        {
          title: 'Daily draft',
          start_date: '2036-06-01 07:00',
          end_date: '2036-06-01 08:00',
          recurrence: ['RRULE:FREQ=DAILY'],
        },
        { as: 'contributor' },
      )
    ).body;
    expect(await occurrenceRows(s, daily.id)).toBe(DEFAULT_RECURRENCE.draftHorizonDays + 1);
    await s.request('PATCH', `/events/${daily.id}`, { body: { status: 'publish' }, as: 'editor' });
    expect(await occurrenceRows(s, daily.id)).toBe(DEFAULT_RECURRENCE.horizonDays + 1);
  });
});

const QUOTAS = { QUOTA_CREATES_PER_HOUR: '6', QUOTA_SERIES: '2', QUOTA_OCCURRENCES: '60' };

describeEachDatabase(
  'quotas of an account below editor',
  (s) => {
    const weekly = (title: string, count: number) => ({
      title,
      start_date: '2038-01-04 10:00',
      end_date: '2038-01-04 11:00',
      recurrence: [`RRULE:FREQ=WEEKLY;COUNT=${count}`],
    });

    it('holds series and occurrences, for authors and contributors, and not for editors', async () => {
      const first = await s.post('/events', weekly('First', 25), { as: 'author' });
      const second = await s.post('/events', weekly('Second', 30), { as: 'author' });
      expect([first.status, second.status]).toEqual([201, 201]);
      const third = await s.post('/events', weekly('Third', 2), { as: 'author' });
      expect([third.status, third.body.code, third.body.data.quota]).toEqual([403, 'rest_quota_exceeded', 'series']);
      // Longer than the occurrences left (60 - 55): refused, and nothing of it stays.
      const longer = await s.request('PATCH', `/events/${second.body.id}`, {
        body: { recurrence: ['RRULE:FREQ=WEEKLY;COUNT=40'] },
        as: 'author',
      });
      expect([longer.status, longer.body.data?.quota]).toEqual([403, 'occurrences']);
      expect(await occurrenceRows(s, second.body.id)).toBe(30);
      // An editor is held to none.
      const editors = await s.post('/events', weekly('Editor', 100), { as: 'editor' });
      expect(editors.status).toBe(201);
      // A series in the trash leaves room for another.
      await s.request('DELETE', `/events/${first.body.id}`, { as: 'author' });
      expect((await s.post('/events', weekly('Fourth', 2), { as: 'author' })).status).toBe(201);
    });

    it('lets parallel writers of one account through only as far as its quotas', async () => {
      const series = await Promise.all(
        Array.from({ length: 6 }, (_, i) => s.post('/events', weekly(`Parallel ${i}`, 5), { as: 'contributor' })),
      );
      const statuses = series.map((r) => r.status);
      expect(statuses.filter((status) => status === 201)).toHaveLength(2);
      expect(statuses.filter((status) => status !== 201)).toEqual([403, 403, 403, 403]);
      const held = await s.db.prisma.event.count({
        where: { authorId: s.users.contributor.id, recurrence: { isEmpty: false }, status: { not: 'trash' } },
      });
      expect(held).toBe(2);
    });

    it('counts creates per hour, in parallel too, refusing those past the quota with Retry-After', async () => {
      // Two of the contributor's six are spent (the test above; refused writes count for nothing).
      const answers = await Promise.all(
        Array.from({ length: 7 }, (_, i) => s.post('/venues', { venue: `Quota hall ${i}` }, { as: 'contributor' })),
      );
      expect(answers.map((a) => a.status).sort()).toEqual([201, 201, 201, 201, 429, 429, 429]);
      const refused = answers.find((a) => a.status === 429)!;
      expect(refused.body.code).toBe('rest_quota_exceeded');
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
      expect(Number(refused.headers.get('retry-after'))).toBeLessThanOrEqual(3600);
      const halls = await s.db.prisma.venue.count({ where: { name: { startsWith: 'Quota hall' } } });
      expect(halls).toBe(4);
      expect((await s.post('/venues', { venue: 'Editor hall' }, { as: 'editor' })).status).toBe(201);
    });
  },
  { env: QUOTAS },
);
