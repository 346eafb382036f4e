// Series that began long ago (services/series/window.ts, expandSeries): their occurrences reach from a
// year before now (RECURRENCE_PAST_DAYS) to the horizon whatever their start, the limit of one write
// counts from now, a series that ended shows its last year, housekeeping mends a series whose rows
// stop years back, and an RDATE before the start is an occurrence.
import { expect, it } from 'vitest';
import { DEFAULT_RECURRENCE } from '../../src/config/limits.js';
import { extendSeries } from '../../src/services/series/window.js';
import { describeEachDatabase } from '../setup/each-database.js';
import { occurrencesOf } from '../setup/series.js';
import type { TestServer } from '../setup/server.js';

const DAY = 86_400_000;
const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);

/** The wall-clock original starts of a series' rows, in order, as epoch milliseconds (UTC series). */
async function originals(s: TestServer, id: number): Promise<number[]> {
  const rows = await s.db.prisma.$queryRawUnsafe<{ ms: number }[]>(
    `SELECT (extract(epoch FROM original_start_local) * 1000)::float8 AS ms FROM events
     WHERE parent_id = $1 ORDER BY original_start_local`,
    id,
  );
  return rows.map((r) => r.ms);
}

/** Its occurrences listed for the seven days from today. */
async function thisWeek(s: TestServer, title: string): Promise<string[]> {
  const today = Date.now();
  const r = await s.get(
    `/events?start_date=${day(today)}&end_date=${day(today + 6 * DAY)} 23:59:59&search=${encodeURIComponent(title)}&per_page=50`,
  );
  expect(r.status, r.text).toBe(200);
  return r.body.events.map((e: any) => e.start_date);
}

describeEachDatabase('series that began long ago', (s) => {
  const series = async (body: Record<string, unknown>) => {
    const r = await s.post('/events', { timezone: 'UTC', ...body });
    expect(r.status, r.text).toBe(201);
    return r.body;
  };

  it('shows this week of a daily series from 2012, and a year of its past, from its first write', async () => {
    const made = await series({
      title: 'Morning swim since 2012',
      start_date: '2012-01-02 07:00',
      end_date: '2012-01-02 08:00',
      recurrence: ['RRULE:FREQ=DAILY'],
    });
    expect(await thisWeek(s, 'Morning swim since 2012')).toHaveLength(7);
    const rows = await originals(s, made.id);
    const now = Date.now();
    // A year back (the first start is the series' own, which is not one of its rows)...
    expect(rows[0]).toBeGreaterThan(now - DEFAULT_RECURRENCE.pastDays * DAY - 2 * DAY);
    expect(rows[0]).toBeLessThan(now - DEFAULT_RECURRENCE.pastDays * DAY + 2 * DAY);
    // ... and the limit of the write counted from now: it reaches the horizon, two years ahead.
    expect(rows.at(-1)!).toBeGreaterThan(now + (DEFAULT_RECURRENCE.horizonDays - 2) * DAY);

    // Edited, it keeps its rows and moves them: this week at the new time. Half an hour earlier, the
    // day at the horizon may now begin inside it (when the edit runs between 06:30 and 07:00 UTC), so
    // a row may be added there, and only there.
    const rowIds = async () =>
      (await s.db.prisma.event.findMany({ where: { parentId: made.id }, select: { id: true } })).map((r) => r.id);
    const before = await rowIds();
    const edited = await s.post(`/events/${made.id}`, { start_date: '2012-01-02 06:30', end_date: '2012-01-02 07:30' });
    expect(edited.status, edited.text).toBe(200);
    const week = await thisWeek(s, 'Morning swim since 2012');
    expect(week).toHaveLength(7);
    expect(week.every((start) => start.endsWith('06:30:00'))).toBe(true);
    const after = await rowIds();
    expect(after).toEqual(expect.arrayContaining(before));
    const added = await s.db.prisma.event.findMany({
      where: { parentId: made.id, id: { notIn: before } },
      select: { startUtc: true },
    });
    expect(added.length).toBeLessThanOrEqual(1);
    for (const row of added)
      expect(row.startUtc.getTime()).toBeGreaterThan(now + (DEFAULT_RECURRENCE.horizonDays - 2) * DAY);
  }, 120_000);

  it('gives an hourly series from 2021 this week, though a year of it is far more than one write adds', async () => {
    const made = await series({
      title: 'Hourly beacon since 2021',
      start_date: '2021-03-01 00:15',
      end_date: '2021-03-01 00:20',
      recurrence: ['RRULE:FREQ=HOURLY;INTERVAL=3'],
    });
    const rows = await originals(s, made.id);
    const now = Date.now();
    // The latest thousand of the past year, and a thousand from now.
    expect(rows).toHaveLength(2 * DEFAULT_RECURRENCE.maxOccurrences);
    expect(rows.filter((ms) => ms < now)).toHaveLength(DEFAULT_RECURRENCE.maxOccurrences);
    // Every third hour from 00:15 on 2021-03-01, as the rule walked from its start gives them.
    expect(rows.every((ms) => (ms - Date.UTC(2021, 2, 1, 0, 15)) % (3 * 3_600_000) === 0)).toBe(true);
    expect(rows.every((ms, i) => i === 0 || ms - rows[i - 1] === 3 * 3_600_000)).toBe(true);
    expect((await thisWeek(s, 'Hourly beacon since 2021')).length).toBeGreaterThanOrEqual(50);
  }, 120_000);

  it('shows the last year of a series that ended: by COUNT, and by UNTIL', async () => {
    // 2012-01-02 and 4,000 days: the last start is 2022-12-14.
    const counted = await series({
      title: 'Counted series',
      start_date: '2012-01-02 18:00',
      end_date: '2012-01-02 19:00',
      recurrence: ['RRULE:FREQ=DAILY;COUNT=4000'],
    });
    const last = Date.UTC(2012, 0, 2, 18) + 3999 * DAY;
    const rows = await originals(s, counted.id);
    expect(rows.at(-1)).toBe(last);
    expect(rows[0]).toBe(last - DEFAULT_RECURRENCE.pastDays * DAY);
    expect(
      (await s.db.prisma.event.findUnique({ where: { id: counted.id } }))?.expandedUntilLocal?.getUTCFullYear(),
    ).toBe(9999);

    const until = await series({
      title: 'Until series',
      start_date: '2010-06-07 09:00',
      end_date: '2010-06-07 10:00',
      recurrence: ['RRULE:FREQ=WEEKLY;BYDAY=MO,TH;UNTIL=20150101T000000Z'],
    });
    const weekly = await occurrencesOf(s, until.id);
    expect(weekly.at(-1).start_date).toBe('2014-12-29 09:00:00');
    expect(weekly[0].start_date >= '2014-01-01').toBe(true);
    expect(weekly).toHaveLength(104);
  }, 120_000);

  it('mends in housekeeping a series whose rows stop years ago, as an earlier version left it', async () => {
    const made = await series({
      title: 'Stuck since 2015',
      start_date: '2012-01-02 12:00',
      end_date: '2012-01-02 13:00',
      recurrence: ['RRULE:FREQ=DAILY'],
    });
    await s.db.prisma.$executeRawUnsafe(
      `DELETE FROM events WHERE parent_id = $1 AND original_start_local >= '2015-01-01'`,
      made.id,
    );
    await s.db.prisma.$executeRawUnsafe(`UPDATE events SET expanded_until_local = '2015-01-01' WHERE id = $1`, made.id);
    expect(await thisWeek(s, 'Stuck since 2015')).toHaveLength(0);
    await extendSeries(s.db.prisma, DEFAULT_RECURRENCE);
    expect(await thisWeek(s, 'Stuck since 2015')).toHaveLength(7);
    const rows = await originals(s, made.id);
    expect(rows.at(-1)!).toBeGreaterThan(Date.now() + (DEFAULT_RECURRENCE.horizonDays - 2) * DAY);
  }, 120_000);

  it('counts an RDATE before the start as an occurrence, as RFC 5545 makes the set of both', async () => {
    const made = await series({
      title: 'Early extra',
      start_date: '2031-01-10 10:00',
      end_date: '2031-01-10 11:00',
      recurrence: ['RRULE:FREQ=DAILY;COUNT=2', 'RDATE:20310105T100000Z'],
    });
    expect((await occurrencesOf(s, made.id)).map((o) => o.start_date)).toEqual([
      '2031-01-05 10:00:00',
      '2031-01-10 10:00:00',
      '2031-01-11 10:00:00',
    ]);
  });
});
