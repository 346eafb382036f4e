// Importing iCalendar (src/ical/read-calendar.ts, through import/commands.ts): test/fixtures/ics/calendar.ics holds a weekly
// series across a daylight-saving change with an EXDATE and a moved occurrence, an all-day span, a
// DST-crossing night, escaped and folded text, a Windows zone name with its VTIMEZONE, a floating
// time with a DURATION, and two broken entries. Checked through our API; imported again (nothing
// duplicated) and with a changed entry (updated).
import fs from 'node:fs';
import v8 from 'node:v8';
import vm from 'node:vm';
import path from 'node:path';
import { expect, it } from 'vitest';
import { importIcs } from '../../src/import/commands.js';
import { plainProgress } from '../../src/import/progress.js';
import { type Summary, summaryLines } from '../../src/import/run-import.js';
import { describeEachDatabase } from '../setup/each-database.js';
import type { TestServer } from '../setup/server.js';

const FILE = path.join(import.meta.dirname, '..', 'fixtures', 'ics', 'calendar.ics');

const counts = (summary: Summary) => summary.counts.event;

async function bySlug(s: TestServer, slug: string) {
  const r = await s.get(`/events/by-slug/${slug}`);
  expect(r.status, `${slug}: ${r.text}`).toBe(200);
  return r.body;
}

describeEachDatabase('importing an iCalendar file', (s, kind) => {
  const progress = plainProgress({ write: () => undefined });
  const run = (text: string | Uint8Array, dryRun = false) =>
    importIcs(
      {
        ctx: {
          db: s.db.prisma,
          caller: { id: s.users.administrator.id, login: 'administrator', role: 'administrator' },
          siteZone: 'America/Chicago',
          now: new Date('2026-11-24T08:00:00Z'),
        },
        dryRun,
        concurrency: kind === 'postgresql' ? 4 : 1,
      },
      text,
      progress,
      new AbortController().signal,
    );

  it('writes each VEVENT as an event, reports and skips the broken ones, and a second run changes nothing', async () => {
    const text = fs.readFileSync(FILE, 'utf8');
    const dry = await run(text, true);
    expect(counts(dry)).toEqual({ created: 8, updated: 0, unchanged: 0, skipped: 1 });
    expect(await s.db.prisma.importedItem.count()).toBe(0);

    const first = await run(text);
    expect(counts(first)).toEqual({ created: 8, updated: 0, unchanged: 0, skipped: 1 });
    // A DTSTART that is no date cannot be an event; the refusal names the rule it broke.
    expect(first.skipped).toEqual([
      expect.objectContaining({
        externalId: 'broken-date@calendar.test',
        reason: expect.stringMatching(/RFC 5545 3\.3\./),
      }),
    ]);
    // A VEVENT without UID (older exports) comes, identified by its DTSTART and SUMMARY.
    expect((await bySlug(s, 'no-uid-at-all')).utc_start_date).toBe('2027-04-01 10:00:00');
    // LOCATION, ORGANIZER and CATEGORIES became venues, an organizer and categories, each once.
    expect([first.counts.venue.created, first.counts.organizer.created, first.counts.category.created]).toEqual([
      2, 1, 4,
    ]);

    // The series: 19:00 in Paris on both sides of the change to summer time, 24 March deleted, 31
    // March moved to 20:00 with its own title.
    const series = await bySlug(s, 'weekly-pottery-class');
    expect(series.recurrence).toEqual(['RRULE:FREQ=WEEKLY;COUNT=4', 'EXDATE;TZID=Europe/Paris:20270324T190000']);
    const occurrences = (
      await s.get(`/events?post_parent=${series.id}&start_date=2027-03-01&end_date=2027-05-01`)
    ).body.events.map((e: any) => [e.start_date, e.utc_start_date, e.title]);
    expect(occurrences).toEqual([
      ['2027-03-17 19:00:00', '2027-03-17 18:00:00', 'Weekly pottery class'],
      ['2027-03-31 20:00:00', '2027-03-31 18:00:00', 'Weekly pottery class (late start)'],
      ['2027-04-07 19:00:00', '2027-04-07 17:00:00', 'Weekly pottery class'],
    ]);
    expect(series.venue.venue).toBe('Atelier du Canal');
    expect(series.categories.map((c: any) => c.name)).toEqual(['Workshops']);

    const festival = await bySlug(s, 'harbor-folk-festival');
    expect(festival).toMatchObject({
      all_day: true,
      start_date: '2027-07-09 00:00:00',
      end_date: '2027-07-11 23:59:59',
      description: '<p>Three days of music by the water.</p>',
    });
    expect(festival.venue).toMatchObject({ venue: 'Harbor Park', geo_lat: 40.7006, geo_lng: -74.0133 });
    expect(festival.categories.map((c: any) => c.name).sort()).toEqual(['Family', 'Festivals', 'Outdoor']);

    const jazz = await bySlug(s, 'jazz-blues-more');
    expect(jazz).toMatchObject({
      title: 'Jazz, Blues ; more',
      status: 'private',
      timezone: 'UTC',
      start_date: '2027-01-15 19:00:00',
      website: 'https://example.com/jazz',
      description:
        '<p>Line one<br />\nLine two</p>\n<p>Second paragraph with &lt;b&gt;tags&lt;/b&gt; &amp; an ampersand, folded over two lines.</p>',
    });
    expect(jazz.organizer[0]).toMatchObject({ organizer: 'Ana Ribeiro', email: 'ana@example.com' });

    // Outlook's name of a zone, with its VTIMEZONE: the IANA zone CLDR gives it, 09:00 in June.
    expect(await bySlug(s, 'board-meeting')).toMatchObject({
      timezone: 'Europe/Berlin',
      start_date: '2027-06-10 09:00:00',
      utc_start_date: '2027-06-10 07:00:00',
      utc_end_date: '2027-06-10 08:00:00',
    });
    // 23:00 to 04:00 over the night the clocks go forward lasts four hours.
    expect(await bySlug(s, 'all-night-radio-marathon')).toMatchObject({
      timezone: 'America/New_York',
      start_date: '2027-03-13 23:00:00',
      end_date: '2027-03-14 04:00:00',
      utc_start_date: '2027-03-14 04:00:00',
      utc_end_date: '2027-03-14 08:00:00',
    });
    // A floating time is the site's.
    expect(await bySlug(s, 'open-studio-morning')).toMatchObject({
      timezone: 'America/Chicago',
      start_date: '2027-03-01 10:00:00',
      end_date: '2027-03-01 11:30:00',
    });

    const second = await run(text);
    expect(counts(second)).toEqual({ created: 0, updated: 0, unchanged: 8, skipped: 1 });
    expect(second.counts.venue.created + second.counts.category.created).toBe(0);
    const all = await s.get('/events?status=publish,private&start_date=2027-01-01&end_date=2027-12-31&per_page=50');
    expect(all.body.total).toBe(9); // three occurrences and six single events; the series itself is not listed
  });

  it('a changed entry is updated in place, and a file that is not iCalendar is refused', async () => {
    const text = fs.readFileSync(FILE, 'utf8').replace('SUMMARY:Board meeting', 'SUMMARY:Board meeting (moved online)');
    const summary = await run(text);
    expect(counts(summary)).toEqual({ created: 0, updated: 1, unchanged: 7, skipped: 1 });
    expect((await bySlug(s, 'board-meeting')).title).toBe('Board meeting (moved online)');
    await expect(run('this is not a calendar')).rejects.toThrow(/not an iCalendar file/);
    expect(fs.existsSync(FILE)).toBe(true);
  });

  it('reads awkward files: a block without its END, a fold inside a character, DURATION in days, overrides in another zone, a UID twice', async () => {
    const lines = [
      'BEGIN:VCALENDAR',
      'VERSION:2.0',
      'BEGIN:VEVENT',
      'UID:no-end@awkward.test',
      'DTSTART:20270301T100000Z',
      'SUMMARY:Never closed',
      'BEGIN:VEVENT',
      'UID:after-broken@awkward.test',
      'DTSTART:20270302T100000Z',
      'SUMMARY:Caf\u00e9 \u00e9t\u00e9',
      'END:VEVENT',
      'BEGIN:VEVENT',
      'UID:three-days@awkward.test',
      'DTSTART;VALUE=DATE:20270709',
      'DURATION:P3D',
      'SUMMARY:Three days',
      'END:VEVENT',
      'BEGIN:VEVENT',
      'UID:over-dst@awkward.test',
      'DTSTART;TZID=Europe/Paris:20270327T120000',
      'DURATION:P1D',
      'SUMMARY:A day over the change',
      'END:VEVENT',
      'BEGIN:VEVENT',
      'UID:weekly@awkward.test',
      'DTSTART;TZID=Europe/Paris:20270105T190000',
      'DTEND;TZID=Europe/Paris:20270105T200000',
      'RRULE:FREQ=WEEKLY;COUNT=3',
      'SUMMARY:Weekly',
      'END:VEVENT',
      'BEGIN:VEVENT',
      'UID:weekly@awkward.test',
      'RECURRENCE-ID:20270112T180000Z',
      'DTSTART;TZID=America/New_York:20270112T140000',
      'DTEND;TZID=America/New_York:20270112T150000',
      'SUMMARY:Weekly, from New York',
      'END:VEVENT',
      'BEGIN:VEVENT',
      'UID:long-location@awkward.test',
      'DTSTART:20270402T100000Z',
      'SUMMARY:Somewhere long',
      `LOCATION:${'Hall '.repeat(120)}`,
      'END:VEVENT',
      'BEGIN:VEVENT',
      'UID:twice@awkward.test',
      'SEQUENCE:2',
      'DTSTART:20270401T100000Z',
      'SUMMARY:Twice, the newer',
      'END:VEVENT',
      'BEGIN:VEVENT',
      'UID:twice@awkward.test',
      'SEQUENCE:1',
      'DTSTART:20270401T100000Z',
      'SUMMARY:Twice, the older',
      'END:VEVENT',
      'END:VCALENDAR',
    ];
    // The title's é split by a fold between its two bytes, as a 75-octet folder may do.
    const bytes = Buffer.from(lines.join('\r\n'), 'utf8');
    const at = bytes.indexOf(Buffer.from('\u00e9t\u00e9', 'utf8')) + 1;
    const folded = Buffer.concat([bytes.subarray(0, at), Buffer.from('\r\n '), bytes.subarray(at)]);
    const summary = await run(Buffer.from(folded));
    expect(summary.skipped.map((x) => [x.externalId, x.reason])).toEqual([
      ['no-end@awkward.test', expect.stringContaining('END:VEVENT')],
      ['twice@awkward.test', expect.stringContaining('higher SEQUENCE')],
    ]);
    expect(counts(summary)).toMatchObject({ created: 7, skipped: 2 }); // the override counts as one
    expect((await bySlug(s, 'cafe-ete')).title).toBe('Caf\u00e9 \u00e9t\u00e9');
    expect(await bySlug(s, 'three-days')).toMatchObject({ all_day: true, end_date: '2027-07-11 23:59:59' });
    // P1D is a calendar day: noon to noon across the change to summer time, 23 hours.
    expect(await bySlug(s, 'a-day-over-the-change')).toMatchObject({
      start_date: '2027-03-27 12:00:00',
      end_date: '2027-03-28 12:00:00',
    });
    // The override names its occurrence at 19:00 Paris (18:00 UTC) while it starts in New York.
    const weekly = await bySlug(s, 'weekly');
    const occurrences = (await s.get(`/events?post_parent=${weekly.id}&start_date=2027-01-01&end_date=2027-02-01`)).body
      .events;
    expect(occurrences.map((o: any) => [o.title, o.utc_start_date])).toEqual([
      ['Weekly', '2027-01-05 18:00:00'],
      ['Weekly, from New York', '2027-01-12 19:00:00'],
      ['Weekly', '2027-01-19 18:00:00'],
    ]);
    expect((await bySlug(s, 'twice-the-newer')).title).toBe('Twice, the newer');
    // A LOCATION longer than a venue's name may be: the venue's name is cut, the event comes.
    expect((await bySlug(s, 'somewhere-long')).venue.venue).toHaveLength(499);
    const again = await run(Buffer.from(folded));
    expect(counts(again)).toMatchObject({ created: 0, updated: 0, unchanged: 7 });
  });

  it('cleans a NUL byte or another control character out of an item, says so, and goes on', async () => {
    const calendar = (title: string) =>
      [
        'BEGIN:VCALENDAR',
        'VERSION:2.0',
        'BEGIN:VEVENT',
        'UID:nul\u0000in-uid@dirty.test',
        'DTSTART:20270501T100000Z',
        `SUMMARY:${title}`,
        'DESCRIPTION:A NUL \u0000 here\\, a bell \u0007 there',
        'END:VEVENT',
        'BEGIN:VEVENT',
        'UID:dirty-links@dirty.test',
        'DTSTART:20270502T100000Z',
        'SUMMARY:Dirty links',
        'LOCATION:Hall\u0000 B',
        'CATEGORIES:Talks\u0000,Music\u001b[31m',
        'ORGANIZER;CN=Ana\u0000:mailto:ana@example.com',
        'END:VEVENT',
        'BEGIN:VEVENT',
        'UID:clean@dirty.test',
        'DTSTART:20270503T100000Z',
        'SUMMARY:Clean one after them',
        'END:VEVENT',
        'END:VCALENDAR',
      ].join('\r\n');
    const first = await run(calendar('Dirty\u0000 title'));
    expect(first.skipped).toEqual([]);
    expect(counts(first)).toMatchObject({ created: 3, skipped: 0 });
    // The events, the second with the venue, organizer and categories it carries.
    expect(summaryLines(first, false).join('\n')).toMatch(
      /control characters removed[^:]*: 2 items \(event nulin-uid@dirty\.test, event dirty-links@dirty\.test\)/,
    );
    expect((await bySlug(s, 'dirty-title')).description).toBe('<p>A NUL  here, a bell  there</p>');
    const links = await bySlug(s, 'dirty-links');
    expect([links.venue.venue, links.organizer[0].organizer]).toEqual(['Hall B', 'Ana']);
    expect(links.categories.map((c: any) => c.name).sort()).toEqual(['Music[31m', 'Talks']);
    await bySlug(s, 'clean-one-after-them');
    // Cleaned the same way every time: nothing to change on the next run.
    expect(counts(await run(calendar('Dirty\u0000 title')))).toMatchObject({ created: 0, unchanged: 3 });
  });

  // What it checks is memory; its time (about a minute on the embedded database alone) doubles or
  // more on a machine busy with the rest of the slow part.
  it('holds a small multiple of the file while it imports it, not its events', async () => {
    // 6,000 short VEVENTs (about 1 MB): their parsed events held at once were 12 times the file.
    const calendar = (from: number, count: number) =>
      [
        'BEGIN:VCALENDAR',
        'VERSION:2.0',
        ...Array.from({ length: count }, (_, n) => vevent(from + n)),
        'END:VCALENDAR',
      ].join('\r\n');
    const vevent = (i: number) =>
      [
        'BEGIN:VEVENT',
        `UID:memory-${i}@big.test`,
        `DTSTART;TZID=Europe/Paris:2028${String((i % 12) + 1).padStart(2, '0')}${String((i % 28) + 1).padStart(2, '0')}T100000`,
        'DURATION:PT1H',
        `SUMMARY:Evening ${i}`,
        `LOCATION:Hall ${i % 50}`,
        `CATEGORIES:Topic ${i % 7}`,
        'END:VEVENT',
      ].join('\r\n');
    const file = Buffer.from(calendar(0, 6000)); // bytes, as the command reads them
    v8.setFlagsFromString('--expose-gc');
    const gc = vm.runInNewContext('gc') as () => void;
    const live = () => {
      gc();
      const memory = process.memoryUsage();
      return memory.heapUsed + memory.external; // external holds the array buffers
    };
    await run(calendar(100_000, 500), true); // what is loaded and compiled once, before the measure
    // What the warm-up left is released over a few turns of the event loop.
    let before = Infinity;
    for (let turn = 0; turn < 5; turn++) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      before = Math.min(before, live());
    }
    let peak = 0;
    // Once a second: each sample is a full collection of the worker's heap, and five a second were
    // half of the test's time alone (94 → 46 s on the embedded database) and took it past its
    // timeout beside the rest of the slow part. An import that held its events would hold them
    // for most of its run, through dozens of samples (2.1 MB was the peak measured for 1 MB).
    const sampler = setInterval(() => (peak = Math.max(peak, live() - before)), 1000);
    try {
      const summary = await run(file, true);
      expect(counts(summary)).toMatchObject({ created: 6000, skipped: 0 });
    } finally {
      clearInterval(sampler);
    }
    expect(peak, `${(peak / 2 ** 20).toFixed(1)} MB held for ${(file.length / 2 ** 20).toFixed(1)} MB`).toBeLessThan(
      3 * file.length,
    );
  }, 300_000);

  it('takes a series with more than 100 EXDATE lines, its dates packed as the API stores them', async () => {
    // A daily series of 400 days, 150 of them (every other day from the second) excluded one line each.
    const exdates = Array.from({ length: 150 }, (_, i) => {
      const day = new Date(Date.UTC(2028, 0, 2 + 2 * i));
      return `EXDATE;TZID=Europe/Paris:${day.toISOString().slice(0, 10).replaceAll('-', '')}T090000`;
    });
    const calendar = [
      'BEGIN:VCALENDAR',
      'VERSION:2.0',
      'BEGIN:VEVENT',
      'UID:many-exdates@series.test',
      'DTSTART;TZID=Europe/Paris:20280101T090000',
      'DTEND;TZID=Europe/Paris:20280101T100000',
      'RRULE:FREQ=DAILY;COUNT=400',
      ...exdates,
      'SUMMARY:Morning swim',
      'END:VEVENT',
      'END:VCALENDAR',
    ].join('\r\n');
    const summary = await run(calendar);
    expect(summary.skipped).toEqual([]);
    const series = await bySlug(s, 'morning-swim');
    expect(
      series.recurrence
        .filter((line: string) => line.startsWith('EXDATE'))
        .join(',')
        .split(','),
    ).toHaveLength(150);
    const january = await s.get(
      `/events?post_parent=${series.id}&start_date=2028-01-01&end_date=2028-01-10&per_page=50`,
    );
    expect(january.body.events.map((e: any) => e.start_date.slice(8, 10))).toEqual(['01', '03', '05', '07', '09']);
    expect(counts(await run(calendar))).toMatchObject({ unchanged: 1 });
  });

  it('takes at most --max-links categories and organizers of one VEVENT, and says so', async () => {
    const names = Array.from({ length: 11_000 }, (_, i) => `Tag number ${i}`);
    const calendar = [
      'BEGIN:VCALENDAR',
      'VERSION:2.0',
      'BEGIN:VEVENT',
      'UID:many-categories@links.test',
      'DTSTART:20280301T180000Z',
      'SUMMARY:Everything night',
      `CATEGORIES:${names.join(',')}`,
      ...Array.from({ length: 40 }, (_, i) => `ORGANIZER;CN=Host ${i}:mailto:host${i}@links.test`),
      'END:VEVENT',
      'END:VCALENDAR',
    ].join('\r\n');
    const before = await s.db.prisma.term.count();
    const summary = await run(calendar);
    expect(summary.skipped).toEqual([]);
    expect(counts(summary)).toMatchObject({ created: 1 });
    expect(await s.db.prisma.term.count()).toBe(before + 20);
    const event = await bySlug(s, 'everything-night');
    expect([event.categories.length, event.organizer.length]).toEqual([20, 20]);
    expect(summaryLines(summary, false).join('\n')).toContain('more than 20 CATEGORIES: the first 20 were taken');
  });

  it('imports what calendar programs write against RFC 5545, and refuses only what cannot be an event, naming the rule', async () => {
    const calendar = [
      'BEGIN:VCALENDAR',
      'VERSION:2.0',
      // No SUMMARY: titled as calendar apps title it.
      'BEGIN:VEVENT',
      'UID:untitled@lenient.test',
      'DTSTART:20280405T150000Z',
      'END:VEVENT',
      // No UID (older exports): identified by what names it, so that a second run finds it again.
      'BEGIN:VEVENT',
      'DTSTART:20280406T150000Z',
      'SUMMARY:Anonymous lecture',
      'END:VEVENT',
      // A date written without VALUE=DATE: a holiday, all day.
      'BEGIN:VEVENT',
      'UID:new-year@lenient.test',
      'DTSTART:20290101',
      'DTEND:20290102',
      'SUMMARY:New Year',
      'END:VEVENT',
      // A changed occurrence whose series is not in the file: an event of its own.
      'BEGIN:VEVENT',
      'UID:weekly-elsewhere@lenient.test',
      'RECURRENCE-ID;TZID=Europe/Paris:20280410T190000',
      'DTSTART;TZID=Europe/Paris:20280411T190000',
      'DTEND;TZID=Europe/Paris:20280411T200000',
      'SUMMARY:Moved rehearsal',
      'END:VEVENT',
      // A globally unique TZID, a RRULE with spaces and a trailing semicolon, a line without a colon.
      'BEGIN:VEVENT',
      'UID:mozilla@lenient.test',
      'DTSTART;TZID=/mozilla.org/20070129_1/America/New_York:20280501T090000',
      'RRULE:FREQ=WEEKLY;COUNT=3;BYDAY=MO, WE;',
      'this line is no property',
      'SUMMARY:Old Sunbird export',
      'END:VEVENT',
      // A weekly class in a zone of the file's own making: read in an IANA zone of the same rules.
      'BEGIN:VTIMEZONE',
      'TZID:Our office time',
      'BEGIN:DAYLIGHT',
      'TZOFFSETFROM:+0100',
      'TZOFFSETTO:+0200',
      'DTSTART:19700329T020000',
      'RRULE:FREQ=YEARLY;BYMONTH=3;BYDAY=-1SU',
      'END:DAYLIGHT',
      'BEGIN:STANDARD',
      'TZOFFSETFROM:+0200',
      'TZOFFSETTO:+0100',
      'DTSTART:19701025T030000',
      'RRULE:FREQ=YEARLY;BYMONTH=10;BYDAY=-1SU',
      'END:STANDARD',
      'END:VTIMEZONE',
      'BEGIN:VEVENT',
      'UID:office-class@lenient.test',
      'DTSTART;TZID=Our office time:20280320T190000',
      'DURATION:PT1H',
      'RRULE:FREQ=WEEKLY;COUNT=2',
      'SUMMARY:Office class',
      'END:VEVENT',
      // Outlook's weekly meeting, its zone by its Windows name (and no VTIMEZONE).
      'BEGIN:VEVENT',
      'UID:outlook-weekly@lenient.test',
      'DTSTART;TZID=Eastern Standard Time:20280508T090000',
      'DTEND;TZID=Eastern Standard Time:20280508T093000',
      'RRULE:FREQ=WEEKLY;COUNT=2',
      'SUMMARY:Team sync',
      'END:VEVENT',
      // No start: no event. Refused, with the rule.
      'BEGIN:VEVENT',
      'UID:no-start@lenient.test',
      'SUMMARY:Sometime',
      'END:VEVENT',
      'END:VCALENDAR',
    ].join('\r\n');
    const first = await run(calendar);
    expect(first.skipped).toEqual([
      expect.objectContaining({
        externalId: 'no-start@lenient.test',
        reason: expect.stringContaining('RFC 5545 3.6.1'),
      }),
    ]);
    expect(counts(first)).toMatchObject({ created: 7, skipped: 1 });
    expect((await bySlug(s, 'no-title')).utc_start_date).toBe('2028-04-05 15:00:00');
    expect((await bySlug(s, 'anonymous-lecture')).utc_start_date).toBe('2028-04-06 15:00:00');
    expect(await bySlug(s, 'new-year')).toMatchObject({
      all_day: true,
      start_date: '2029-01-01 00:00:00',
      end_date: '2029-01-01 23:59:59',
    });
    expect(await bySlug(s, 'moved-rehearsal')).toMatchObject({
      timezone: 'Europe/Paris',
      start_date: '2028-04-11 19:00:00',
      recurring_event_id: null,
    });
    const sunbird = await bySlug(s, 'old-sunbird-export');
    expect([sunbird.timezone, sunbird.recurrence]).toEqual([
      'America/New_York',
      ['RRULE:FREQ=WEEKLY;COUNT=3;BYDAY=MO,WE'],
    ]);
    const sync = await bySlug(s, 'team-sync');
    expect([sync.timezone, sync.start_date, sync.recurrence]).toEqual([
      'America/New_York',
      '2028-05-08 09:00:00',
      ['RRULE:FREQ=WEEKLY;COUNT=2'],
    ]);
    // 19:00 on both sides of the change to summer time, as its VTIMEZONE says.
    const office = await bySlug(s, 'office-class');
    const classes = await s.get(`/events?post_parent=${office.id}&start_date=2028-03-01&end_date=2028-04-30`);
    expect(classes.body.events.map((e: any) => [e.start_date, e.utc_start_date])).toEqual([
      ['2028-03-20 19:00:00', '2028-03-20 18:00:00'],
      ['2028-03-27 19:00:00', '2028-03-27 17:00:00'],
    ]);
    const notes = summaryLines(first, false).join('\n');
    expect(notes).toContain('no SUMMARY');
    expect(notes).toContain('no UID');
    expect(notes).toContain('a RECURRENCE-ID whose series is not in the file');
    // Again: the same events, nothing created twice.
    expect(counts(await run(calendar))).toMatchObject({ created: 0, unchanged: 7, skipped: 1 });
  });

  it('reads a file of VEVENTs without their VCALENDAR, and says so', async () => {
    const summary = await run(
      ['BEGIN:VEVENT', 'UID:bare@lenient.test', 'DTSTART:20280601T100000Z', 'SUMMARY:Bare event', 'END:VEVENT'].join(
        '\r\n',
      ),
    );
    expect(counts(summary)).toMatchObject({ created: 1, skipped: 0 });
    expect(summary.notes.join('\n')).toContain('no BEGIN:VCALENDAR');
  });

  it("reads a VTIMEZONE only within the bounds of a zone's rules, and skips the events in one past them with the reason", async () => {
    const zone = (tzid: string, dtstart: string, rule: string) =>
      ['BEGIN:VTIMEZONE', `TZID:${tzid}`, 'BEGIN:STANDARD', `DTSTART:${dtstart}`, `RRULE:${rule}`]
        .concat(['TZOFFSETFROM:+0100', 'TZOFFSETTO:+0100', 'END:STANDARD', 'END:VTIMEZONE'])
        .join('\r\n');
    const event = (uid: string, tzid: string, year = 2027) =>
      [`BEGIN:VEVENT`, `UID:${uid}`, 'DTSTAMP:20260101T000000Z', `DTSTART;TZID=${tzid}:${year}0101T100000`]
        .concat([`DTEND;TZID=${tzid}:${year}0101T110000`, `SUMMARY:${uid}`, 'END:VEVENT'])
        .join('\r\n');
    const file = [
      'BEGIN:VCALENDAR',
      'VERSION:2.0',
      'PRODID:-//tests//EN',
      // An hourly zone: ical.js would make every hour's change up to 2032 (52,000) before reading one time.
      zone('Custom/Hourly', '20260101T000000', 'FREQ=HOURLY'),
      zone('Custom/Ancient', '15000101T000000', 'FREQ=YEARLY;BYMONTH=10;BYDAY=-1SU'),
      // As Outlook writes zones, from 1601: read.
      zone('Custom/Outlook', '16010101T030000', 'FREQ=YEARLY;BYMONTH=10;BYDAY=-1SU'),
      // An IANA name is read by its own rules, whatever its VTIMEZONE says.
      zone('Europe/Paris', '20260101T000000', 'FREQ=MINUTELY'),
      event('zone-hourly@bounds.test', 'Custom/Hourly'),
      event('zone-ancient@bounds.test', 'Custom/Ancient'),
      event('zone-outlook@bounds.test', 'Custom/Outlook'),
      event('zone-paris@bounds.test', 'Europe/Paris'),
      // Its bounds hold to 2100: ical.js would expand the zone from 1601 to five years past the time.
      event('zone-far@bounds.test', 'Custom/Outlook', 9990),
      'END:VCALENDAR',
      '',
    ].join('\r\n');
    const summary = await run(file, true);
    expect(counts(summary)).toMatchObject({ created: 2, skipped: 3 });
    expect(summary.skipped).toEqual([
      expect.objectContaining({
        externalId: 'zone-hourly@bounds.test',
        reason: expect.stringContaining("repeats HOURLY: a zone's rules repeat YEARLY or MONTHLY"),
      }),
      expect.objectContaining({
        externalId: 'zone-ancient@bounds.test',
        reason: expect.stringContaining('starts in 1500: zones are read from the year 1600'),
      }),
      expect.objectContaining({
        externalId: 'zone-far@bounds.test',
        reason: expect.stringContaining('Custom/Outlook, which the file gives, are read up to the year 2100'),
      }),
    ]);
  });
});
