// A calendar exported as iCalendar and imported into a fresh service comes back as it was: times and
// zones (all-day events in theirs, not UTC), venues with their address, organizers, categories,
// descriptions with their line breaks, series with their EXDATEs and moved occurrences (all-day ones
// too), and the UIDs, so that importing the export of the copy again changes nothing.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { importIcs } from '../../src/import/commands.js';
import { plainProgress } from '../../src/import/progress.js';
import { describeEachDatabase } from '../setup/each-database.js';
import { startServer, type TestServer } from '../setup/server.js';

const WINDOW = 'start_date=2031-01-01&end_date=2031-12-31';

/** The calendar of the window, series as their rule (single_events=false), as an administrator reads it. */
async function exported(s: TestServer, window = WINDOW): Promise<Buffer> {
  const r = await s.get(`/events?ical=1&single_events=false&${window}`, { as: null });
  expect(r.status, r.text).toBe(200);
  return Buffer.from(r.text);
}

/**
 * Every event of the window, occurrences included, by title and start, in the fields a calendar
 * carries. An event without a website links to its page (URL), which is the original's in a copy.
 */
async function calendarOf(s: TestServer, pages: string, search = 'RT', window = WINDOW) {
  const events: any[] = [];
  for (let page = 1; ; page++) {
    const r = await s.get(`/events?${window}&search=${search}&per_page=50&page=${page}`);
    expect(r.status, r.text).toBe(200);
    events.push(...r.body.events);
    if (!r.body.next_rest_url) break;
  }
  const rows = await Promise.all(
    events.map(async (e) => {
      const series = e.recurring_event_id ? (await s.get(`/events/${e.recurring_event_id}`)).body : undefined;
      return {
        title: e.title,
        description: e.description,
        start: [e.start_date, e.end_date, e.utc_start_date, e.utc_end_date, e.timezone, e.all_day],
        venue: e.venue?.venue ? [e.venue.venue, e.venue.address] : null,
        organizers: e.organizer.map((o: any) => [o.organizer, o.email]),
        categories: e.categories.map((c: any) => c.name).sort(),
        recurrence: series?.recurrence ?? null,
        website: e.website.startsWith(`${pages}/event/`) ? '(its page)' : e.website,
      };
    }),
  );
  return rows.sort((a, b) => `${a.start[2]} ${a.title}`.localeCompare(`${b.start[2]} ${b.title}`));
}

/** The fields that differ, event by event (`title.field`), and the events only one side has. */
function differences(a: Awaited<ReturnType<typeof calendarOf>>, b: Awaited<ReturnType<typeof calendarOf>>) {
  const found: string[] = [];
  for (let i = 0; i < Math.max(a.length, b.length); i++) {
    if (!a[i] || !b[i]) {
      found.push(`${(a[i] ?? b[i]).title}: on one side only`);
      continue;
    }
    for (const key of Object.keys(a[i]) as (keyof (typeof a)[number])[]) {
      if (JSON.stringify(a[i][key]) !== JSON.stringify(b[i][key])) found.push(`${a[i].title}.${key}`);
    }
  }
  return found;
}

describeEachDatabase('a calendar exported and imported again', (s, kind) => {
  let copy: TestServer;
  const progress: string[] = [];
  beforeAll(async () => {
    copy = await startServer(kind);
  });
  afterAll(async () => {
    await copy?.close();
  });
  const importInto = (target: TestServer, bytes: Buffer) =>
    importIcs(
      {
        ctx: {
          db: target.db.prisma,
          caller: { id: target.users.administrator.id, login: 'administrator', role: 'administrator' },
          siteZone: 'UTC',
          now: new Date(),
        },
        dryRun: false,
        concurrency: kind === 'postgresql' ? 4 : 1,
      },
      bytes,
      plainProgress({ write: (line: string) => progress.push(line) }),
      new AbortController().signal,
    );

  it('comes back field for field, and keeps its UIDs', async () => {
    const created = async (body: Record<string, unknown>) => {
      const r = await s.post('/events', body);
      expect(r.status, r.text).toBe(201);
      return r.body;
    };
    await created({
      title: 'RT jazz night',
      description: '<p>Doors at seven.<br />\nBar open late.</p>\n<p>Bring a friend.</p>',
      start_date: '2031-03-14 20:00',
      end_date: '2031-03-14 23:30',
      timezone: 'America/New_York',
      website: 'https://example.org/jazz',
      venue: { venue: 'RT Blue Note Hall', address: '131 W 3rd St' },
      organizer: [{ organizer: 'RT Ana Ribeiro', email: 'ana@example.org' }],
      categories: ['RT Jazz'],
    });
    await created({
      title: 'RT harvest festival',
      all_day: true,
      start_date: '2031-09-05',
      end_date: '2031-09-07',
      timezone: 'Europe/Paris',
    });
    const weekly = await created({
      title: 'RT weekly class',
      start_date: '2031-04-01 18:30',
      end_date: '2031-04-01 20:00',
      timezone: 'Europe/Paris',
      recurrence: ['RRULE:FREQ=WEEKLY;COUNT=6', 'EXDATE;TZID=Europe/Paris:20310415T183000'],
      categories: ['RT Classes'],
    });
    const classes = (await s.get(`/events?post_parent=${weekly.id}&${WINDOW}`)).body.events;
    const moved = await s.post(`/events/${classes[2].id}`, {
      title: 'RT weekly class (moved)',
      start_date: '2031-04-23 19:00',
      end_date: '2031-04-23 20:30',
    });
    expect(moved.status, moved.text).toBe(200);
    const days = await created({
      title: 'RT market days',
      all_day: true,
      start_date: '2031-06-02',
      end_date: '2031-06-02',
      timezone: 'Europe/Paris',
      recurrence: ['RRULE:FREQ=DAILY;COUNT=3'],
    });
    const markets = (await s.get(`/events?post_parent=${days.id}&${WINDOW}`)).body.events;
    expect(
      (await s.post(`/events/${markets[1].id}`, { start_date: '2031-06-10', end_date: '2031-06-10' })).status,
    ).toBe(200);

    const original = await calendarOf(s, s.origin);
    const first = await importInto(copy, await exported(s));
    expect(first.skipped).toEqual([]);
    const copied = await calendarOf(copy, s.origin);
    console.log(`round trip: ${original.length} events, differences: ${JSON.stringify(differences(original, copied))}`);
    expect(copied).toEqual(original);

    // The copy's export names the events by the UIDs they came with: importing it again into the
    // copy finds every one of them, and adds nothing.
    const text = (await exported(copy)).toString();
    const uids = (calendar: string) =>
      calendar
        .split('\r\n')
        .filter((line) => line.startsWith('UID:'))
        .sort();
    expect(uids(text)).toEqual(uids((await exported(s)).toString()));
    const before = await copy.db.prisma.event.count();
    await importInto(copy, Buffer.from(text));
    expect(await copy.db.prisma.event.count()).toBe(before);
    expect(await calendarOf(copy, s.origin)).toEqual(original);
  }, 120_000);

  it('keeps a calendar written elsewhere as its first import read it', async () => {
    // A monthly series of 2012 with a moved occurrence of 2012 (before the series' window: its row
    // is added for the override) and an RDATE; a description with lines of spaces and spaces at
    // line ends, as TripIt writes them; an ORGANIZER with no name and no address.
    const elsewhere = fs.readFileSync(path.join(import.meta.dirname, '..', 'fixtures', 'ics', 'written-elsewhere.ics'));
    const window = 'start_date=2012-01-01&end_date=2032-12-31';
    const first = await importInto(s, elsewhere);
    expect(first.skipped).toEqual([]);
    const original = await calendarOf(s, s.origin, 'EL', window);
    expect(original.find((e) => e.title === 'EL monthly board (moved)')?.start.slice(0, 2)).toEqual([
      '2012-10-03 15:00:00',
      '2012-10-03 16:00:00',
    ]);
    const flight = original.find((e) => e.title === 'EL flight to Lisbon');
    expect(flight?.description).toBe('<p>Confirmation 1234</p>\n<p>[Flight] BXQ9WH<br />\nBooked by Ana</p>');
    expect(flight?.organizers).toEqual([]);

    const again = await importInto(copy, await exported(s, `${window}&search=EL`));
    expect(again.skipped).toEqual([]);
    expect(await calendarOf(copy, s.origin, 'EL', window)).toEqual(original);
  }, 120_000);
});
