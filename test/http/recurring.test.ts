// Recurring events: a series' occurrences are events (listed, filtered, read as any event), at the
// wall-clock time the rule gives across daylight-saving changes, compared with ical.js's expander (the
// service expands with rrule); exceptions survive edits of the series; deletes become EXDATEs; scopes
// this, following and all; the horizon and the limit; the series as one VEVENT in iCalendar; and
// parallel writers of one series on PostgreSQL.
import { getVtimezoneComponent } from '@touch4it/ical-timezones';
import ICAL from 'ical.js';
import { beforeAll, expect, it } from 'vitest';
import { DEFAULT_RECURRENCE } from '../../src/config/limits.js';
import { extendSeries } from '../../src/services/series/window.js';
import { describeEachDatabase, itOnPostgres } from '../setup/each-database.js';
import { occurrencesOf } from '../setup/series.js';

/** Starts of a series as ical.js expands its rule, as UTC `YYYY-MM-DD HH:MM:SS` (an independent expander). */
function icalExpansion(dtstart: string, zone: string, lines: string[], count: number): string[] {
  const vtimezone = new ICAL.Component(ICAL.parse(getVtimezoneComponent(zone) ?? ''));
  const timezone = new ICAL.Timezone(vtimezone);
  const vevent = new ICAL.Component('vevent');
  const start = ICAL.Time.fromDateTimeString(dtstart.replace(' ', 'T'));
  start.zone = timezone;
  vevent.addPropertyWithValue('dtstart', start);
  for (const line of lines) vevent.addProperty(ICAL.Property.fromString(line));
  const expansion = new ICAL.RecurExpansion({ component: vevent, dtstart: start });
  const out: string[] = [];
  for (let next = expansion.next(); next && out.length < count; next = expansion.next()) {
    out.push(next.toJSDate().toISOString().replace('T', ' ').slice(0, 19));
  }
  return out;
}

const CALENDAR = { headers: { accept: 'text/calendar' } };

describeEachDatabase('recurring events', (s, kind) => {
  let venue: number;
  beforeAll(async () => {
    venue = (await s.post('/venues', { venue: 'Studio Recurring', city: 'Paris' })).body.id;
  });

  it('expands a weekly 19:00 class in Paris across both DST changes as ical.js does, and lists its occurrences', async () => {
    const rule = ['RRULE:FREQ=WEEKLY;BYDAY=TU;COUNT=30'];
    const r = await s.post('/events', {
      title: 'Tuesday yoga',
      start_date: '2030-09-03 19:00',
      end_date: '2030-09-03 20:30',
      timezone: 'Europe/Paris',
      venue,
      categories: ['Yoga'],
      recurrence: rule,
    });
    expect(r.status, r.text).toBe(201);
    expect(r.body.recurrence).toEqual(rule);
    expect(r.body.recurring_event_id).toBeNull();
    const occurrences = await occurrencesOf(s, r.body.id);
    expect(occurrences).toHaveLength(30);
    // Every occurrence at 19:00 local, before and after 27 Oct 2030 and 30 Mar 2031.
    expect(new Set(occurrences.map((o) => o.start_date.slice(11)))).toEqual(new Set(['19:00:00']));
    expect(new Set(occurrences.map((o) => o.end_date.slice(11)))).toEqual(new Set(['20:30:00']));
    expect(occurrences.map((o) => o.utc_start_date)).toEqual(
      icalExpansion('2030-09-03 19:00:00', 'Europe/Paris', rule, 30),
    );
    expect(new Set(occurrences.map((o) => o.utc_start_date.slice(11)))).toEqual(new Set(['17:00:00', '18:00:00']));
    for (const o of occurrences) {
      expect(o.recurring_event_id).toBe(r.body.id);
      expect(o.original_start_date).toBe(o.start_date);
      expect(o.venue.id).toBe(venue);
      expect(o.categories.map((c: any) => c.name)).toEqual(['Yoga']);
      expect(o.recurrence).toEqual([]);
    }
    // Lists show the occurrences, not the series; single_events=false shows the series instead.
    const listed = await s.get('/events?start_date=2030-09-01&end_date=2031-12-31&per_page=50&search=tuesday yoga');
    expect(listed.body.total).toBe(30);
    expect(listed.body.events.map((e: any) => e.id)).not.toContain(r.body.id);
    const series = await s.get(
      '/events?start_date=2030-12-01&end_date=2030-12-31&single_events=false&search=tuesday yoga',
    );
    expect(series.body.events.map((e: any) => e.id)).toEqual([r.body.id]);
    // Term counts count occurrences, not the series.
    const yoga = (await s.get('/categories?search=Yoga')).body.categories[0];
    expect(yoga.count).toBe(30);
  });

  it('matches ical.js for monthly, yearly, daily and all-day rules across DST in other zones', async () => {
    const cases = [
      { zone: 'America/New_York', start: '2031-01-31 18:30:00', rule: 'RRULE:FREQ=MONTHLY;BYDAY=-1FR;COUNT=14' },
      { zone: 'Australia/Sydney', start: '2031-03-30 08:00:00', rule: 'RRULE:FREQ=DAILY;INTERVAL=3;COUNT=40' },
      {
        zone: 'America/Chicago',
        start: '2031-06-15 12:00:00',
        rule: 'RRULE:FREQ=YEARLY;BYMONTH=1,6;BYMONTHDAY=15;COUNT=3',
      },
      {
        zone: 'Europe/London',
        start: '2031-03-29 10:30:00',
        rule: 'RRULE:FREQ=WEEKLY;BYDAY=SA,SU;UNTIL=20310420T000000Z',
      },
    ];
    for (const c of cases) {
      const r = await s.post('/events', {
        title: `Rule ${c.rule}`,
        start_date: c.start,
        end_date: c.start,
        timezone: c.zone,
        recurrence: [c.rule],
      });
      expect(r.status, r.text).toBe(201);
      const occurrences = await occurrencesOf(s, r.body.id);
      expect(
        occurrences.map((o) => o.utc_start_date),
        c.rule,
      ).toEqual(icalExpansion(c.start, c.zone, [c.rule], 100));
    }
    const allDay = await s.post('/events', {
      title: 'Market day',
      start_date: '2031-03-28',
      end_date: '2031-03-29',
      all_day: true,
      timezone: 'Europe/Berlin',
      recurrence: ['RRULE:FREQ=WEEKLY;COUNT=3', 'EXDATE;VALUE=DATE:20310404'],
    });
    expect(allDay.status, allDay.text).toBe(201);
    const days = await occurrencesOf(s, allDay.body.id);
    expect(days.map((o) => [o.all_day, o.start_date, o.end_date])).toEqual([
      [true, '2031-03-28 00:00:00', '2031-03-29 23:59:59'],
      [true, '2031-04-11 00:00:00', '2031-04-12 23:59:59'],
    ]);
  });

  it('refuses bad rules with a 400 naming recurrence, and changes nothing', async () => {
    for (const recurrence of [
      ['RRULE:FREQ=SECONDLY'],
      ['RRULE:FREQ=DAILY;FOO=1'],
      ['RRULE:FREQ=WEEKLY;BYDAY=XX'],
      ['RRULE:FREQ=DAILY;COUNT=2;UNTIL=20300101T000000Z'],
      ['RRULE:INTERVAL=2'],
      ['DTSTART:20300101T000000Z'],
      ['EXDATE:not-a-date'],
      ['EXDATE;VALUE=DATE:20300101'],
      ['EXDATE;TZID=Mars/Olympus:20300101T100000', 'RRULE:FREQ=DAILY'],
      ['RRULE:FREQ=DAILY\r\nX-INJECT:1'],
      'RRULE:FREQ=DAILY',
    ]) {
      const r = await s.post('/events', {
        title: 'Broken series',
        start_date: '2030-01-01 10:00',
        end_date: '2030-01-01 11:00',
        recurrence,
      });
      expect(r.status, JSON.stringify(recurrence)).toBe(400);
      expect(r.body.code).toBe('rest_invalid_param');
      expect(Object.keys(r.body.data.params).join()).toMatch(/recurrence/);
    }
    expect((await s.get('/events?search=broken series&start_date=2000-01-01')).body.total).toBe(0);
  });

  it('keeps an occurrence changed on its own through edits of the series, and a deleted one as an EXDATE', async () => {
    const series = (
      await s.post('/events', {
        title: 'Choir rehearsal',
        start_date: '2032-01-05 18:00',
        end_date: '2032-01-05 20:00',
        timezone: 'Europe/Paris',
        recurrence: ['RRULE:FREQ=WEEKLY;COUNT=6'],
      })
    ).body;
    const [first, second, third] = await occurrencesOf(s, series.id);
    // scope=this is an occurrence's default.
    const changed = await s.post(`/events/${second.id}`, {
      title: 'Choir rehearsal (with orchestra)',
      start_date: '2032-01-12 19:00',
      end_date: '2032-01-12 21:00',
    });
    expect(changed.status, changed.text).toBe(200);
    expect(changed.body.id).toBe(second.id);
    expect(changed.body.original_start_date).toBe('2032-01-12 18:00:00');
    const deleted = await s.request('DELETE', `/events/${third.id}?force=true`);
    expect(deleted.status, deleted.text).toBe(200);
    const afterDelete = (await s.get(`/events/${series.id}`)).body;
    expect(afterDelete.recurrence).toEqual(['RRULE:FREQ=WEEKLY;COUNT=6', 'EXDATE;TZID=Europe/Paris:20320119T180000']);
    // The series renamed and moved an hour later (scope=all is a series' default): every other
    // occurrence follows, the exception keeps its title and times, the deleted one stays deleted.
    const edited = await s.post(`/events/${series.id}`, {
      title: 'Choir',
      start_date: '2032-01-05 18:30',
      end_date: '2032-01-05 20:30',
    });
    expect(edited.status, edited.text).toBe(200);
    const now = await occurrencesOf(s, series.id);
    // The exception and the EXDATE moved with the series: still the occurrence of 12 January, and
    // 19 January still deleted; the others kept their IDs.
    expect(now.map((o) => [o.title, o.start_date, o.original_start_date])).toEqual([
      ['Choir', '2032-01-05 18:30:00', '2032-01-05 18:30:00'],
      ['Choir rehearsal (with orchestra)', '2032-01-12 19:00:00', '2032-01-12 18:30:00'],
      ['Choir', '2032-01-26 18:30:00', '2032-01-26 18:30:00'],
      ['Choir', '2032-02-02 18:30:00', '2032-02-02 18:30:00'],
      ['Choir', '2032-02-09 18:30:00', '2032-02-09 18:30:00'],
    ]);
    expect(now[0].id).toBe(first.id);
    expect((await s.get(`/events/${series.id}`)).body.recurrence).toEqual([
      'RRULE:FREQ=WEEKLY;COUNT=6',
      'EXDATE;TZID=Europe/Paris:20320119T183000',
    ]);
    // Only the title changed now: occurrences keep their IDs.
    const renamed = await s.post(`/events/${series.id}`, { title: 'Chamber choir' });
    expect(renamed.status).toBe(200);
    const again = await occurrencesOf(s, series.id);
    expect(again.map((o) => o.id)).toEqual(now.map((o) => o.id));
    expect(again.map((o) => o.title)).toEqual([
      'Chamber choir',
      'Choir rehearsal (with orchestra)',
      'Chamber choir',
      'Chamber choir',
      'Chamber choir',
    ]);
    // The series itself may not be updated with a scope meant for one occurrence.
    expect((await s.post(`/events/${series.id}?scope=this`, { title: 'x' })).status).toBe(400);
    // An occurrence's own rule is refused.
    expect((await s.post(`/events/${again[0].id}`, { recurrence: ['RRULE:FREQ=DAILY'] })).status).toBe(400);
    expect(again[0].recurring_event_id).toBe(series.id);
  });

  it('splits a series with scope=following, and changes the whole series from an occurrence with scope=all', async () => {
    const series = (
      await s.post('/events', {
        title: 'Book club',
        start_date: '2033-03-01 19:00',
        end_date: '2033-03-01 21:00',
        timezone: 'America/New_York',
        recurrence: ['RRULE:FREQ=WEEKLY;COUNT=8'],
      })
    ).body;
    const occurrences = await occurrencesOf(s, series.id);
    const fifth = occurrences[4];
    const split = await s.post(`/events/${fifth.id}?scope=following`, {
      title: 'Book club (new room)',
      start_date: '2033-03-29 18:00',
      end_date: '2033-03-29 20:00',
    });
    expect(split.status, split.text).toBe(200);
    const next = split.body;
    expect(next.id).not.toBe(series.id);
    expect(next.recurrence).toEqual(['RRULE:FREQ=WEEKLY;COUNT=4']);
    const before = (await s.get(`/events/${series.id}`)).body;
    expect(before.recurrence).toEqual(['RRULE:FREQ=WEEKLY;UNTIL=20330329T225959Z']);
    const old = await occurrencesOf(s, series.id);
    const later = await occurrencesOf(s, next.id);
    expect(old.map((o) => o.start_date)).toEqual(occurrences.slice(0, 4).map((o) => o.start_date));
    expect(later.map((o) => [o.title, o.start_date])).toEqual([
      ['Book club (new room)', '2033-03-29 18:00:00'],
      ['Book club (new room)', '2033-04-05 18:00:00'],
      ['Book club (new room)', '2033-04-12 18:00:00'],
      ['Book club (new room)', '2033-04-19 18:00:00'],
    ]);
    // The occurrence kept its ID: it moved to the new series with the others after it.
    expect(later[0].id).toBe(fifth.id);
    // scope=all from an occurrence: the series' title changes, and its times move by as much.
    const all = await s.post(`/events/${old[1].id}?scope=all`, {
      title: 'Early book club',
      start_date: '2033-03-08 18:30',
      end_date: '2033-03-08 20:30',
    });
    expect(all.status, all.text).toBe(200);
    expect(all.body.id).toBe(series.id);
    const moved = await occurrencesOf(s, series.id);
    expect(moved.map((o) => [o.title, o.start_date])).toEqual([
      ['Early book club', '2033-03-01 18:30:00'],
      ['Early book club', '2033-03-08 18:30:00'],
      ['Early book club', '2033-03-15 18:30:00'],
      ['Early book club', '2033-03-22 18:30:00'],
    ]);
    // Deleting from an occurrence on (following) ends the series before it.
    const cut = await s.request('DELETE', `/events/${later[2].id}?scope=following`);
    expect(cut.status, cut.text).toBe(200);
    expect((await s.get(`/events/${next.id}`)).body.recurrence).toEqual(['RRULE:FREQ=WEEKLY;UNTIL=20330412T215959Z']);
    const remaining = (await occurrencesOf(s, next.id)).filter((o) => o.status !== 'trash');
    expect(remaining.map((o) => o.start_date)).toEqual(['2033-03-29 18:00:00', '2033-04-05 18:00:00']);
    // Deleting the series takes every occurrence with it.
    const gone = await s.request('DELETE', `/events/${series.id}?force=true`);
    expect(gone.status, gone.text).toBe(200);
    expect((await s.get(`/events/${old[0].id}`)).status).toBe(404);
  });

  it('takes scope=following from the first occurrence as the whole series, leaving nothing behind', async () => {
    const series = (
      await s.post('/events', {
        title: 'Karaoke',
        start_date: '2034-02-01 20:00',
        end_date: '2034-02-01 23:00',
        recurrence: ['RRULE:FREQ=WEEKLY;COUNT=3'],
      })
    ).body;
    const [first] = await occurrencesOf(s, series.id);
    const r = await s.post(`/events/${first.id}?scope=following`, { title: 'Karaoke night' });
    expect(r.status, r.text).toBe(200);
    expect(r.body.id).toBe(series.id);
    const after = await occurrencesOf(s, series.id);
    expect(after.map((o) => o.title)).toEqual(['Karaoke night', 'Karaoke night', 'Karaoke night']);
    expect(after[0].id).toBe(first.id);
    const gone = await s.request('DELETE', `/events/${first.id}?scope=following&force=true`);
    expect(gone.status, gone.text).toBe(200);
    expect((await s.get(`/events/${series.id}`)).status).toBe(404);
  });

  it('lets the author of one occurrence change it, but not the series it belongs to', async () => {
    const series = (
      await s.post('/events', {
        title: 'Open studio',
        start_date: '2034-03-01 14:00',
        end_date: '2034-03-01 17:00',
        recurrence: ['RRULE:FREQ=WEEKLY;COUNT=3'],
      })
    ).body;
    const [, mine] = await occurrencesOf(s, series.id);
    expect((await s.post(`/events/${mine.id}`, { author: s.users.author.id })).status).toBe(200);
    const as = { as: 'author' as const };
    expect((await s.post(`/events/${mine.id}`, { title: 'My open studio' }, as)).status).toBe(200);
    expect((await s.post(`/events/${mine.id}?scope=all`, { title: 'Taken over' }, as)).status).toBe(403);
    expect((await s.post(`/events/${mine.id}?scope=following`, { title: 'Taken over' }, as)).status).toBe(403);
    expect((await s.request('DELETE', `/events/${mine.id}?scope=all`, as)).status).toBe(403);
    expect((await s.get(`/events/${series.id}`)).body.title).toBe('Open studio');
    expect((await occurrencesOf(s, series.id)).map((o) => o.title)).toEqual([
      'Open studio',
      'My open studio',
      'Open studio',
    ]);
  });

  it('trashes a series with its occurrences, and makes a series a single event again', async () => {
    const series = (
      await s.post('/events', {
        title: 'Pottery',
        start_date: '2034-05-02 10:00',
        end_date: '2034-05-02 12:00',
        recurrence: ['RRULE:FREQ=DAILY;COUNT=3'],
      })
    ).body;
    const [a] = await occurrencesOf(s, series.id);
    await s.post(`/events/${a.id}`, { title: 'Pottery (kiln day)' });
    expect((await s.request('DELETE', `/events/${series.id}`)).body.status).toBe('trash');
    expect((await occurrencesOf(s, series.id)).map((o) => o.status)).toEqual(['trash', 'trash', 'trash']);
    const single = await s.post(`/events/${series.id}`, { status: 'publish', recurrence: [] });
    expect(single.status, single.text).toBe(200);
    expect(single.body.recurrence).toEqual([]);
    expect(await occurrencesOf(s, series.id)).toEqual([]);
    // The exception lives on as an event of its own.
    const kept = (await s.get(`/events/${a.id}`)).body;
    expect([kept.title, kept.recurring_event_id, kept.original_start_date]).toEqual(['Pottery (kiln day)', null, null]);
  });

  it('expands an endless rule to the horizon, at most the limit per write, and housekeeping extends it', async () => {
    const r = await s.post('/events', {
      title: 'Daily standup',
      start_date: new Date().toISOString().slice(0, 10) + ' 09:00',
      end_date: new Date().toISOString().slice(0, 10) + ' 09:15',
      timezone: 'UTC',
      recurrence: ['RRULE:FREQ=DAILY'],
    });
    expect(r.status, r.text).toBe(201);
    const count = async () => await s.db.prisma.event.count({ where: { parentId: r.body.id } });
    // The test server keeps the defaults: two years ahead, 1,000 per write; daily is 731 or so.
    expect(await count()).toBeGreaterThanOrEqual(730);
    expect(await count()).toBeLessThanOrEqual(732);
    const hourly = await s.post('/events', {
      title: 'Hourly tour',
      start_date: '2030-06-01 09:00',
      end_date: '2030-06-01 09:30',
      recurrence: ['RRULE:FREQ=HOURLY'],
    });
    expect(hourly.status).toBe(201);
    const hours = () => s.db.prisma.event.count({ where: { parentId: hourly.body.id } });
    expect(await hours()).toBe(DEFAULT_RECURRENCE.maxOccurrences);
    // Housekeeping adds at most the limit again on each round.
    await extendSeries(s.db.prisma, DEFAULT_RECURRENCE);
    expect(await hours()).toBe(2 * DEFAULT_RECURRENCE.maxOccurrences);
    const last = await s.db.prisma.event.findFirst({
      where: { parentId: hourly.body.id },
      orderBy: { startUtc: 'desc' },
    });
    expect(last?.startUtc.toISOString()).toBe('2030-08-23T16:00:00.000Z');
  });

  it('gives a series as one VEVENT with RRULE, EXDATE and its overrides, which ical.js expands as the occurrences are', async () => {
    const series = (
      await s.post('/events', {
        title: 'Jazz jam',
        start_date: '2035-10-04 21:00',
        end_date: '2035-10-04 23:00',
        timezone: 'Europe/Paris',
        recurrence: ['RRULE:FREQ=WEEKLY;BYDAY=TH;UNTIL=20351130T230000Z'],
      })
    ).body;
    const occurrences = await occurrencesOf(s, series.id);
    await s.request('DELETE', `/events/${occurrences[1].id}`);
    await s.post(`/events/${occurrences[3].id}`, {
      title: 'Jazz jam: big band',
      start_date: '2035-10-25 20:00',
      end_date: '2035-10-25 23:30',
    });
    const r = await s.get(`/events/${series.id}`, CALENDAR);
    expect(r.status).toBe(200);
    expect(r.text).toMatch(/\r\nRRULE:FREQ=WEEKLY;BYDAY=TH;UNTIL=20351130T230000Z\r\n/);
    expect(r.text).toMatch(/\r\nEXDATE;TZID=Europe\/Paris:20351011T210000\r\n/);
    const calendar = new ICAL.Component(ICAL.parse(r.text));
    for (const zone of calendar.getAllSubcomponents('vtimezone')) ICAL.TimezoneService.register(zone);
    const [master, ...overrides] = calendar.getAllSubcomponents('vevent').map((c) => new ICAL.Event(c));
    expect(master.isRecurring()).toBe(true);
    expect(overrides).toHaveLength(1);
    expect(overrides[0].uid).toBe(master.uid);
    master.relateException(overrides[0]);
    const expansion = master.iterator();
    const seen: string[][] = [];
    for (let next = expansion.next(); next; next = expansion.next()) {
      const details = master.getOccurrenceDetails(next);
      seen.push([details.item.summary, details.startDate.toJSDate().toISOString().replace('T', ' ').slice(0, 19)]);
    }
    const live = (await occurrencesOf(s, series.id)).filter((o) => o.status !== 'trash');
    expect(seen).toEqual(live.map((o) => [o.title, o.utc_start_date]));
  });

  itOnPostgres(
    kind,
    'stays consistent with parallel writers of one series',
    'writers run one at a time on one connection',
    async () => {
      const series = (
        await s.post('/events', {
          title: 'Parallel series',
          start_date: '2036-01-01 10:00',
          end_date: '2036-01-01 11:00',
          recurrence: ['RRULE:FREQ=DAILY;COUNT=40'],
        })
      ).body;
      const occurrences = await occurrencesOf(s, series.id);
      // Ten writers change one occurrence each (this), two rename the series, two delete one each, and
      // housekeeping extends: no deadlock, no error, every change kept where it belongs.
      const results = await Promise.all([
        ...occurrences.slice(0, 10).map((o, i) => s.post(`/events/${o.id}`, { title: `Own ${i}` })),
        s.post(`/events/${series.id}`, { title: 'Renamed series' }),
        s.post(`/events/${occurrences[20].id}?scope=all`, { excerpt: 'From an occurrence' }),
        s.request('DELETE', `/events/${occurrences[30].id}?force=true`),
        s.request('DELETE', `/events/${occurrences[31].id}?force=true`),
        extendSeries(s.db.prisma, DEFAULT_RECURRENCE).then(() => ({ status: 200, text: '' })),
      ]);
      for (const r of results) expect(r.status, r.text).toBe(200);
      const now = await occurrencesOf(s, series.id);
      expect(now).toHaveLength(38);
      expect(now.slice(0, 10).map((o) => o.title)).toEqual(occurrences.slice(0, 10).map((_, i) => `Own ${i}`));
      expect(new Set(now.slice(10).map((o) => [o.title, o.excerpt].join()))).toEqual(
        new Set(['Renamed series,From an occurrence']),
      );
      const lines = (await s.get(`/events/${series.id}`)).body.recurrence;
      // Two dates left out, in one EXDATE line (the stored lines merge them).
      const excluded = lines
        .filter((l: string) => l.startsWith('EXDATE'))
        .flatMap((l: string) => l.split(':')[1].split(','));
      expect(excluded).toHaveLength(2);
    },
  );
});
