// Calendars as other programs write them (test/fixtures/ics/, written for these tests in the shapes
// those programs write): Outlook and Exchange (a Windows zone with its VTIMEZONE, a Windows display
// name without one, an all-day series whose moved occurrences Exchange names by midnight in its
// zone or by a date), recurrence parts (RDATE periods, an RDATE before the start, a changed
// occurrence whose series is elsewhere), text that is not UTF-8 (Latin-1, UTF-16 with a byte order
// mark), a Google calendar's zone for its dates and floating times, cancelled events and dates and
// online links as Google, Outlook and Apple write them, and a file whose every event is refused: the summary, the progress and the exit status say
// what happened, and nothing is left behind of a refused event.
import fs from 'node:fs';
import path from 'node:path';
import { expect, it } from 'vitest';
import { importIcs } from '../../src/import/commands.js';
import { plainProgress } from '../../src/import/progress.js';
import { exitStatus, summaryLines } from '../../src/import/run-import.js';
import { describeEachDatabase } from '../setup/each-database.js';
import type { TestServer } from '../setup/server.js';

const fixture = (name: string) => fs.readFileSync(path.join(import.meta.dirname, '..', 'fixtures', 'ics', name));

async function bySlug(s: TestServer, slug: string) {
  const r = await s.get(`/events/by-slug/${slug}`);
  expect(r.status, `${slug}: ${r.text}`).toBe(200);
  return r.body;
}

/** The occurrences of a series between two dates: start (local), UTC start, title. */
async function occurrences(s: TestServer, series: { id: number }, from: string, to: string) {
  const r = await s.get(`/events?post_parent=${series.id}&start_date=${from}&end_date=${to}&per_page=50`);
  expect(r.status, r.text).toBe(200);
  return r.body.events.map((e: any) => [e.start_date, e.utc_start_date, e.title]);
}

describeEachDatabase('importing calendars as other programs write them', (s, kind) => {
  const lines: string[] = [];
  const run = (name: string) =>
    importIcs(
      {
        ctx: {
          db: s.db.prisma,
          caller: { id: s.users.administrator.id, login: 'administrator', role: 'administrator' },
          siteZone: 'UTC',
          now: new Date('2026-11-24T08:00:00Z'),
        },
        dryRun: false,
        concurrency: kind === 'postgresql' ? 4 : 1,
      },
      fixture(name),
      plainProgress({ write: (text: string) => lines.push(text) }),
      new AbortController().signal,
    );

  it('takes Outlook and Exchange: Windows zones, display names, moved all-day occurrences', async () => {
    const summary = await run('outlook-exchange.ics');
    expect(summary.skipped).toEqual([]);
    expect(exitStatus(summary)).toBe(0);

    const sync = await bySlug(s, 'team-sync');
    expect([sync.timezone, sync.start_date, sync.utc_start_date]).toEqual([
      'Europe/Berlin',
      '2027-01-05 10:00:00',
      '2027-01-05 09:00:00',
    ]);
    expect((await occurrences(s, sync, '2027-07-01', '2027-07-10'))[0]).toEqual([
      '2027-07-06 10:00:00',
      '2027-07-06 08:00:00',
      'Team sync',
    ]);

    // `(UTC+01:00) Amsterdam, Berlin, ...` without a VTIMEZONE: a zone of those cities and that offset.
    const named = await bySlug(s, 'display-name-zone');
    expect(named.timezone).toBe('Europe/Amsterdam');
    expect(named.utc_start_date).toBe('2027-01-04 08:00:00');
    expect(summaryLines(summary, false).join('\n')).not.toContain('read in the site');

    // Exchange names a moved occurrence of an all-day series by a date, or by midnight in its zone.
    const fridays = await bySlug(s, 'all-day-friday');
    expect(await occurrences(s, fridays, '2027-01-01', '2027-03-01')).toEqual([
      ['2027-01-08 00:00:00', '2027-01-08 00:00:00', 'All-day Friday'],
      ['2027-01-16 00:00:00', '2027-01-16 00:00:00', 'All-day Friday (moved)'],
      ['2027-01-23 00:00:00', '2027-01-23 00:00:00', 'All-day Friday (moved Exchange)'],
      ['2027-01-29 00:00:00', '2027-01-29 00:00:00', 'All-day Friday'],
      ['2027-02-05 00:00:00', '2027-02-05 00:00:00', 'All-day Friday'],
    ]);

    // A TZID whose quote Outlook closed after the value; an address in quotes; one that is none.
    const quoted = await bySlug(s, 'quote-after-the-value');
    expect([quoted.timezone, quoted.utc_start_date]).toEqual(['Europe/Berlin', '2027-06-10 07:00:00']);
    expect(quoted.organizer[0]).toMatchObject({ organizer: 'Ana Ribeiro', email: 'ana.ribeiro@example.com' });
    const desk = await bySlug(s, 'organizer-without-an-address');
    const front = (await s.get(`/organizers/${desk.organizer[0].id}`)).body;
    expect([front.organizer, front.email ?? '']).toEqual(['Front desk', '']); // empty fields are left out
    expect(summaryLines(summary, false).join('\n')).toContain(
      'an ORGANIZER address that is no e-mail address was left out',
    );

    // Exchange's own all-day series: midnight to midnight in a Windows zone, flagged all-day, its
    // EXDATE and its moved occurrence at midnight too.
    const closed = await bySlug(s, 'office-closed');
    expect([closed.all_day, closed.timezone, closed.recurrence]).toEqual([
      true,
      'America/New_York',
      ['RRULE:FREQ=WEEKLY;COUNT=4;BYDAY=MO', 'EXDATE;VALUE=DATE:20270118'],
    ]);
    expect((await occurrences(s, closed, '2027-01-01', '2027-03-01')).map((o: string[]) => [o[0], o[2]])).toEqual([
      ['2027-01-11 00:00:00', 'Office closed'],
      ['2027-01-26 00:00:00', 'Office closed (moved)'],
      ['2027-02-01 00:00:00', 'Office closed'],
    ]);
  });

  it('takes RDATE periods and dates before the start, and a changed occurrence whose series is elsewhere', async () => {
    const summary = await run('recurrence-parts.ics');
    expect(summary.skipped).toEqual([]);
    const periods = await bySlug(s, 'rule-and-periods');
    expect((await occurrences(s, periods, '2027-03-01', '2027-05-01')).map((o: string[]) => o[0])).toEqual([
      '2027-03-01 10:00:00',
      '2027-03-08 10:00:00',
      '2027-03-15 10:00:00',
      '2027-04-02 10:00:00',
      '2027-04-09 10:00:00',
    ]);
    // RFC 5545 3.8.5.2: RDATEs add occurrences, before DTSTART too.
    const dates = await bySlug(s, 'dates-before-and-after');
    expect((await occurrences(s, dates, '2027-04-01', '2027-06-01')).map((o: string[]) => o[0])).toEqual([
      '2027-04-20 18:00:00',
      '2027-05-01 18:00:00',
      '2027-05-10 18:00:00',
    ]);
    // `EXDATE:20270702` on a series with times: that day's occurrence, as calendar apps read it.
    const swim = await bySlug(s, 'early-swim');
    expect(swim.recurrence).toEqual(['RRULE:FREQ=DAILY;COUNT=4', 'EXDATE:20270702T070000Z']);
    expect((await occurrences(s, swim, '2027-07-01', '2027-07-10')).map((o: string[]) => o[1])).toEqual([
      '2027-07-01 07:00:00',
      '2027-07-03 07:00:00',
      '2027-07-04 07:00:00',
    ]);
    const moved = await bySlug(s, 'moved-series-elsewhere');
    expect([moved.start_date, moved.recurring_event_id]).toEqual(['2027-06-12 20:00:00', null]);
    expect(summaryLines(summary, false).join('\n')).toContain('a RECURRENCE-ID whose series is not in the file');
  });

  it("takes dates and floating times in the calendar's X-WR-TIMEZONE, and a LOCATION's name and address lines", async () => {
    const summary = await run('google-calendar-zone.ics');
    expect(summary.skipped).toEqual([]);
    const fair = await bySlug(s, 'club-fair');
    expect([fair.all_day, fair.timezone, fair.start_date, fair.end_date]).toEqual([
      true,
      'Europe/Berlin',
      '2027-03-01 00:00:00',
      '2027-03-02 23:59:59',
    ]);
    const evening = await bySlug(s, 'club-evening');
    expect([evening.timezone, evening.start_date, evening.utc_start_date]).toEqual([
      'Europe/Berlin',
      '2027-03-05 19:00:00',
      '2027-03-05 18:00:00',
    ]);
    expect([evening.venue.venue, evening.venue.address]).toEqual(['Blue Note Hall', '131 W 3rd St, New York']);
    expect(evening.description).toBe('<p>First line<br />\nsecond line</p>\n<p>New paragraph</p>');
  });

  it('reads a Latin-1 file and a UTF-16 one as what they say, and says it converted them', async () => {
    const latin = await run('latin1.ics');
    expect(latin.notes.join('\n')).toMatch(/not UTF-8 .*read as windows-1252 \(found by chardet\)/);
    const two = await bySlug(s, 'tva-dagar-i-vasteras');
    expect(two.title).toBe('Två dagar i Västerås');
    expect(two.venue.venue).toBe('Köpenhamn');
    expect(two.description).toBe('<p>Café och möte</p>');

    const wide = await run('utf16.ics');
    expect(wide.notes.join('\n')).toContain('read as utf-16le (found by its byte order mark)');
    const meeting = (await s.db.prisma.importedItem.findFirst({ where: { externalId: 'utf16@calendar.test' } }))!;
    expect((await s.get(`/events/${meeting.localId}`)).body.title).toBe('Réunion à Zürich – 東京');
  });

  it('takes cancelled events, single cancelled dates of a series, and online links as Google, Outlook and Apple write them', async () => {
    /** A series' dates in a window: start, event status, online link. */
    const dates = async (series: { id: number }, from: string, to: string) =>
      (await s.get(`/events?post_parent=${series.id}&start_date=${from}&end_date=${to}&per_page=50`)).body.events.map(
        (e: any) => `${e.start_date} ${e.event_status} ${e.virtual_url}`,
      );

    // Google: a weekly Meet at a library (hybrid), one Wednesday cancelled; a cancelled party.
    const google = await run('google-cancelled-online.ics');
    expect(google.skipped).toEqual([]);
    expect(google.events).toEqual({ cancelled: 2, occurrences: 1, postponed: 0, online: 2, hybrid: 2 });
    const meet = 'https://meet.google.com/abc-defg-hij';
    const club = await bySlug(s, 'book-club');
    expect(club).toMatchObject({ status: 'publish', event_status: 'scheduled', is_virtual: true, is_hybrid: true });
    expect(club.virtual_url).toBe(meet);
    expect(club.venue.venue).toBe('Riverside Library, 12 Mill Lane, Oxford');
    expect(await dates(club, '2027-01-01', '2027-01-31')).toEqual([
      `2027-01-06 19:00:00 scheduled ${meet}`,
      `2027-01-13 19:00:00 scheduled ${meet}`,
      `2027-01-20 19:00:00 canceled ${meet}`,
      `2027-01-27 19:00:00 scheduled ${meet}`,
    ]);
    // A cancelled event is published and says so, no longer a draft.
    expect(await bySlug(s, 'winter-social')).toMatchObject({
      status: 'publish',
      event_status: 'canceled',
      is_virtual: false,
    });
    expect(summaryLines(google, false)).toContain(
      'Events cancelled there: 2 (1 of them single dates of a series); online: 2 (2 of them hybrid).',
    );

    // Outlook: a Teams meeting, whose LOCATION names it (no venue), one Tuesday cancelled.
    const outlook = await run('outlook-teams-cancelled.ics');
    expect(outlook.skipped).toEqual([]);
    const planning = await bySlug(s, 'planning-call');
    expect(planning).toMatchObject({ is_virtual: true, is_hybrid: false, timezone: 'Europe/Berlin' });
    expect(planning.virtual_url).toMatch(/^https:\/\/teams\.microsoft\.com\/l\/meetup-join\/19%3ameeting_/);
    expect(planning.venue).toEqual([]);
    expect((await dates(planning, '2027-01-01', '2027-01-31')).map((d: string) => d.split(' https')[0])).toEqual([
      '2027-01-05 10:00:00 scheduled',
      '2027-01-12 10:00:00 canceled',
      '2027-01-19 10:00:00 scheduled',
      '2027-01-26 10:00:00 scheduled',
    ]);
    expect(await bySlug(s, 'quarterly-review')).toMatchObject({ event_status: 'canceled', is_virtual: false });

    // Apple: a Zoom link pasted as LOCATION, one date cancelled; CONFERENCE beside a studio (hybrid);
    // an http link, which is no join link.
    const apple = await run('apple-conference.ics');
    expect(apple.skipped).toEqual([]);
    expect(apple.events).toEqual({ cancelled: 1, occurrences: 1, postponed: 0, online: 3, hybrid: 1 });
    const yoga = await bySlug(s, 'yoga-for-beginners');
    const zoom = 'https://us02web.zoom.us/j/81234567890?pwd=abcDEF123';
    expect(yoga).toMatchObject({ is_virtual: true, is_hybrid: false, virtual_url: zoom, venue: [] });
    expect(await dates(yoga, '2027-02-01', '2027-02-28')).toEqual([
      `2027-02-04 17:30:00 scheduled ${zoom}`,
      `2027-02-11 17:30:00 scheduled ${zoom}`,
      `2027-02-18 17:30:00 canceled ${zoom}`,
      `2027-02-25 17:30:00 scheduled ${zoom}`,
    ]);
    expect(await bySlug(s, 'open-studio')).toMatchObject({
      is_virtual: true,
      is_hybrid: true,
      virtual_url: 'https://facetime.apple.com/join#v=1&p=AbCdEf&k=GhIjKl',
    });
    expect(await bySlug(s, 'film-night-http-link')).toMatchObject({ is_virtual: false, virtual_url: null });

    // Imported again: nothing changes.
    const again = await run('apple-conference.ics');
    expect(again.counts.event).toMatchObject({ created: 0, updated: 0 });
    expect(await dates(yoga, '2027-02-18', '2027-02-18 23:59')).toEqual([`2027-02-18 17:30:00 canceled ${zoom}`]);
  });

  it('leaves nothing behind of refused events, and says that nothing was imported', async () => {
    lines.length = 0;
    const summary = await run('all-refused.ics');
    expect(summary.counts.event).toMatchObject({ created: 0, skipped: 2 });
    expect([summary.counts.venue.created, summary.counts.organizer.created, summary.counts.category.created]).toEqual([
      0, 0, 0,
    ]);
    expect((await s.get('/venues?search=Nowhere')).body.venues).toEqual([]);
    expect((await s.get('/organizers?search=Nobody')).body.organizers).toEqual([]);
    expect((await s.get('/categories?search=Never&hide_empty=false')).body.categories).toEqual([]);
    expect(summaryLines(summary, false)[0]).toBe('Nothing imported: all 2 events were skipped.');
    expect(exitStatus(summary)).toBe(1);
    expect(lines).toContain('done 2 of 2 items (2 skipped)\n');
  });
});
