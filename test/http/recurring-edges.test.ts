// Recurring events at their edges, from a hostile review: rules that never occur (no hang), lines
// stored in one form (parameters, spaces, duplicate and far-off dates), dates that keep naming their
// occurrences when the zone, the all-day flag or the start changes, splits with RDATEs and of
// exceptions, the per-write limit, restores from the trash, and iCalendar overrides that only
// stand with their series.
import ICAL from 'ical.js';
import { expect, it } from 'vitest';
import { DEFAULT_RECURRENCE } from '../../src/config/limits.js';
import { extendSeries } from '../../src/services/series/window.js';
import { describeEachDatabase } from '../setup/each-database.js';
import { occurrencesOf } from '../setup/series.js';

const starts = (occurrences: any[]) => occurrences.map((o) => o.start_date);

describeEachDatabase('recurring events at their edges', (s) => {
  const series = async (body: Record<string, unknown>) => {
    const r = await s.post('/events', { title: 'Series', timezone: 'Europe/Paris', ...body });
    expect(r.status, r.text).toBe(201);
    return r.body;
  };

  it('refuses at once rules that never give a start, which rrule would search for until the year 9999', async () => {
    for (const rule of [
      'RRULE:FREQ=DAILY;BYMONTH=2;BYMONTHDAY=30',
      'RRULE:FREQ=HOURLY;BYMONTH=4;BYMONTHDAY=31',
      'RRULE:FREQ=YEARLY;BYYEARDAY=366;BYMONTH=1',
      'RRULE:FREQ=YEARLY;BYWEEKNO=1;BYMONTH=6',
      'RRULE:FREQ=WEEKLY;BYDAY=MO,TU;BYSETPOS=5',
      'RRULE:FREQ=HOURLY;BYMINUTE=0,15,30,45', // finer than hourly
      // Steps that never land on what the BY parts name, from this start (a Saturday, 10:00):
      // rrule would walk the first for ever and the second until the year 9999.
      'RRULE:FREQ=HOURLY;INTERVAL=3;BYHOUR=0',
      'RRULE:FREQ=DAILY;INTERVAL=7;BYDAY=MO',
    ]) {
      const r = await s.post('/events', {
        title: 'Never',
        start_date: '2032-01-10 10:00',
        end_date: '2032-01-10 11:00',
        recurrence: [rule],
      });
      expect(r.status, `${rule}: ${r.text}`).toBe(400);
      expect(r.body.data.params.recurrence).toMatch(/never gives a start|at most hourly/);
    }
    // Rare is not never: 29 February, and week 53 of the years that have one.
    for (const rule of [
      'RRULE:FREQ=YEARLY;BYMONTH=2;BYMONTHDAY=29;COUNT=2',
      'RRULE:FREQ=YEARLY;BYWEEKNO=53;BYDAY=TH;COUNT=2',
    ]) {
      const made = await series({ start_date: '2032-01-10 10:00', end_date: '2032-01-10 11:00', recurrence: [rule] });
      expect(await occurrencesOf(s, made.id), rule).toHaveLength(2);
    }
    // A COUNT is walked from the start on the event loop: 5,000 at most (an UNTIL goes further).
    const counted = await s.post('/events', {
      title: 'Too many',
      start_date: '1990-01-01 00:00',
      end_date: '1990-01-01 00:30',
      recurrence: ['RRULE:FREQ=HOURLY;COUNT=999999'],
    });
    expect(counted.status, counted.text).toBe(400);
    expect(counted.body.data.params.recurrence).toMatch(/COUNT may be at most 5000/);
    // A start moved off the rule's steps leaves the series its first start, at once.
    const mondays = await series({
      start_date: '2032-01-12 10:00',
      end_date: '2032-01-12 11:00',
      recurrence: ['RRULE:FREQ=DAILY;INTERVAL=7;BYDAY=MO'],
    });
    const moved = await s.post(`/events/${mondays.id}`, {
      start_date: '2032-01-10 10:00',
      end_date: '2032-01-10 11:00',
    });
    expect(moved.status, moved.text).toBe(200);
    expect((await occurrencesOf(s, mondays.id)).map((o) => o.start_date)).toEqual(['2032-01-10 10:00:00']);
  }, 30_000);

  it('stores lines in one form, refuses dates out of range, and keeps one EXDATE per date', async () => {
    const made = await series({
      start_date: '2032-09-06 09:00',
      end_date: '2032-09-06 10:00',
      recurrence: ['RRULE;X-FOO=1:freq=daily; count=6'],
    });
    expect(made.recurrence).toEqual(['RRULE:FREQ=DAILY;COUNT=6']);
    for (const line of ['EXDATE:99991231T235959Z', 'EXDATE:20321301T100000Z', 'EXDATE:20320906T246000Z']) {
      const r = await s.post('/events', {
        title: 'Bad date',
        start_date: '2032-09-06 09:00',
        end_date: '2032-09-06 10:00',
        recurrence: ['RRULE:FREQ=DAILY;COUNT=3', line],
      });
      expect(r.status, `${line}: ${r.text}`).toBe(400);
      expect(r.body.data.params).toHaveProperty('recurrence');
    }
    const occurrences = await occurrencesOf(s, made.id);
    expect((await s.request('DELETE', `/events/${occurrences[2].id}`)).status).toBe(200);
    expect((await s.request('DELETE', `/events/${occurrences[2].id}?force=true`)).status).toBe(200);
    expect((await s.get(`/events/${made.id}`)).body.recurrence).toEqual([
      'RRULE:FREQ=DAILY;COUNT=6',
      'EXDATE;TZID=Europe/Paris:20320908T090000',
    ]);
    // The split of a rule written with a parameter ends the old series (it was not read as a rule).
    const cut = await s.post(`/events/${occurrences[4].id}?scope=following`, { title: 'Later' });
    expect(cut.status, cut.text).toBe(200);
    expect(starts(await occurrencesOf(s, made.id))).toEqual([
      '2032-09-06 09:00:00',
      '2032-09-07 09:00:00',
      '2032-09-09 09:00:00',
    ]);
  });

  it('keeps a deleted occurrence deleted when the zone or the all-day flag changes', async () => {
    const made = await series({
      start_date: '2032-05-03 18:00',
      end_date: '2032-05-03 19:00',
      recurrence: ['RRULE:FREQ=DAILY;COUNT=5'],
    });
    const third = (await occurrencesOf(s, made.id))[2];
    expect((await s.request('DELETE', `/events/${third.id}?force=true`)).status).toBe(200);
    const rezoned = await s.post(`/events/${made.id}`, { timezone: 'America/New_York' });
    expect(rezoned.status, rezoned.text).toBe(200);
    expect(rezoned.body.recurrence).toContain('EXDATE;TZID=America/New_York:20320505T180000');
    expect(starts(await occurrencesOf(s, made.id))).toEqual([
      '2032-05-03 18:00:00',
      '2032-05-04 18:00:00',
      '2032-05-06 18:00:00',
      '2032-05-07 18:00:00',
    ]);
    const allDay = await s.post(`/events/${made.id}`, { all_day: true });
    expect(allDay.status, allDay.text).toBe(200);
    expect(allDay.body.recurrence).toContain('EXDATE;VALUE=DATE:20320505');
    expect((await occurrencesOf(s, made.id)).map((o) => o.start_date.slice(0, 10))).toEqual([
      '2032-05-03',
      '2032-05-04',
      '2032-05-06',
      '2032-05-07',
    ]);
    const timed = await s.post(`/events/${made.id}`, {
      all_day: false,
      start_date: '2032-05-03 18:00',
      end_date: '2032-05-03 19:00',
    });
    expect(timed.status, timed.text).toBe(200);
    expect(starts(await occurrencesOf(s, made.id))).toEqual([
      '2032-05-03 18:00:00',
      '2032-05-04 18:00:00',
      '2032-05-06 18:00:00',
      '2032-05-07 18:00:00',
    ]);
  });

  it('moves exceptions and deletions with the series when its unchanged lines are sent again, and keeps a date UNTIL', async () => {
    const made = await series({
      start_date: '2032-12-06 18:00',
      end_date: '2032-12-06 19:00',
      recurrence: ['RRULE:FREQ=WEEKLY;COUNT=5'],
    });
    const before = await occurrencesOf(s, made.id);
    expect((await s.post(`/events/${before[1].id}`, { title: 'Own' })).status).toBe(200);
    expect((await s.request('DELETE', `/events/${before[2].id}?force=true`)).status).toBe(200);
    const lines = (await s.get(`/events/${made.id}`)).body.recurrence;
    const moved = await s.post(`/events/${made.id}`, {
      start_date: '2032-12-06 19:00',
      end_date: '2032-12-06 20:00',
      recurrence: lines,
    });
    expect(moved.status, moved.text).toBe(200);
    const after = await occurrencesOf(s, made.id);
    expect(after.map((o) => [o.start_date, o.title])).toEqual([
      ['2032-12-06 19:00:00', 'Series'],
      ['2032-12-13 18:00:00', 'Own'], // an exception keeps its own time
      ['2032-12-27 19:00:00', 'Series'],
      ['2033-01-03 19:00:00', 'Series'],
    ]);
    expect(after[1].id).toBe(before[1].id);

    const daily = await series({
      start_date: '2032-07-01 06:00',
      end_date: '2032-07-01 07:00',
      timezone: 'UTC',
      recurrence: ['RRULE:FREQ=DAILY;UNTIL=20320710'],
    });
    expect(await occurrencesOf(s, daily.id)).toHaveLength(10);
    expect(
      (await s.post(`/events/${daily.id}`, { start_date: '2032-07-01 19:00', end_date: '2032-07-01 20:00' })).status,
    ).toBe(200);
    expect(await occurrencesOf(s, daily.id)).toHaveLength(10);
  });

  it('keeps days a rule fixes when the start moves: BYDAY=TU stays on Tuesdays', async () => {
    const made = await series({
      start_date: '2032-02-03 10:00', // a Tuesday
      end_date: '2032-02-03 11:00',
      recurrence: ['RRULE:FREQ=WEEKLY;BYDAY=TU;COUNT=4'],
    });
    const before = await occurrencesOf(s, made.id);
    expect((await s.request('DELETE', `/events/${before[2].id}?force=true`)).status).toBe(200); // 17 Feb
    expect((await s.post(`/events/${before[1].id}`, { title: 'Own' })).status).toBe(200); // 10 Feb
    const moved = await s.post(`/events/${made.id}`, { start_date: '2032-02-04 10:00', end_date: '2032-02-04 11:00' });
    expect(moved.status, moved.text).toBe(200);
    const after = await occurrencesOf(s, made.id);
    const days = after.map((o) => o.start_date.slice(0, 10));
    expect(days).not.toContain('2032-02-17');
    expect(days.filter((d) => d === '2032-02-10')).toHaveLength(1);
    expect(after.find((o) => o.start_date.startsWith('2032-02-10')).title).toBe('Own');
  });

  it('splits with each RDATE on its side, refuses a split at an RDATE, and gives the change to an exception it starts at', async () => {
    const made = await series({
      start_date: '2032-06-01 10:00', // a Tuesday
      end_date: '2032-06-01 11:00',
      recurrence: ['RRULE:FREQ=WEEKLY;COUNT=6', 'RDATE;TZID=Europe/Paris:20320603T100000,20320805T100000'],
    });
    const all = await occurrencesOf(s, made.id);
    expect(all).toHaveLength(8);
    const added = all.find((o) => o.start_date === '2032-06-03 10:00:00');
    const refused = await s.post(`/events/${added.id}?scope=following`, { title: 'No' });
    expect(refused.status, refused.text).toBe(400);
    expect(refused.body.data.params).toHaveProperty('scope');

    const third = all.find((o) => o.start_date === '2032-06-15 10:00:00');
    expect(
      (
        await s.post(`/events/${third.id}`, {
          title: 'Moved',
          start_date: '2032-06-15 12:00',
          end_date: '2032-06-15 13:00',
        })
      ).status,
    ).toBe(200);
    const split = await s.post(`/events/${third.id}?scope=following`, { title: 'New' });
    expect(split.status, split.text).toBe(200);
    const old = await occurrencesOf(s, made.id);
    const fresh = await occurrencesOf(s, split.body.id);
    expect(starts(old)).toEqual(['2032-06-01 10:00:00', '2032-06-03 10:00:00', '2032-06-08 10:00:00']);
    // The exception it starts at takes the change, and keeps the time it was given on its own.
    expect(fresh.map((o) => [o.start_date, o.title])).toEqual([
      ['2032-06-15 12:00:00', 'New'],
      ['2032-06-22 10:00:00', 'New'],
      ['2032-06-29 10:00:00', 'New'],
      ['2032-07-06 10:00:00', 'New'],
      ['2032-08-05 10:00:00', 'New'],
    ]);
    expect(fresh[0].id).toBe(third.id);
  });

  it('takes an occurrence and a series out of the trash with what went with them', async () => {
    const made = await series({
      start_date: '2032-10-04 10:00',
      end_date: '2032-10-04 11:00',
      recurrence: ['RRULE:FREQ=DAILY;COUNT=4'],
    });
    const [first, secondOne, third] = await occurrencesOf(s, made.id);
    expect((await s.request('DELETE', `/events/${secondOne.id}`)).status).toBe(200);
    expect((await s.get(`/events/${made.id}`)).body.recurrence).toHaveLength(2);
    expect((await s.post(`/events/${secondOne.id}`, { status: 'publish' })).status).toBe(200);
    expect((await s.get(`/events/${made.id}`)).body.recurrence).toEqual(['RRULE:FREQ=DAILY;COUNT=4']);

    expect((await s.post(`/events/${third.id}`, { title: 'Own' })).status).toBe(200);
    expect((await s.request('DELETE', `/events/${first.id}`)).status).toBe(200); // trashed on its own
    expect((await s.request('DELETE', `/events/${made.id}`)).status).toBe(200); // the series, all with it
    expect((await s.post(`/events/${made.id}`, { status: 'publish' })).status).toBe(200);
    const back = await occurrencesOf(s, made.id, 'publish,trash');
    expect(back.map((o) => [o.start_date.slice(0, 10), o.status])).toEqual([
      ['2032-10-04', 'trash'],
      ['2032-10-05', 'publish'],
      ['2032-10-06', 'publish'],
      ['2032-10-07', 'publish'],
    ]);
  });

  it('writes an exception as an override only beside its series and on a start its rule gives', async () => {
    const made = await series({
      start_date: '2032-11-02 19:00',
      end_date: '2032-11-02 20:00',
      recurrence: ['RRULE:FREQ=WEEKLY;COUNT=6'],
    });
    const [, secondOne] = await occurrencesOf(s, made.id);
    expect((await s.post(`/events/${secondOne.id}`, { title: 'Special' })).status).toBe(200);
    expect((await s.post(`/events/${made.id}`, { recurrence: ['RRULE:FREQ=WEEKLY;INTERVAL=2;COUNT=3'] })).status).toBe(
      200,
    );
    const uids = (text: string) => {
      const calendar = new ICAL.Component(ICAL.parse(text));
      return calendar.getAllSubcomponents('vevent').map((v) => ({
        uid: String(v.getFirstPropertyValue('uid')),
        summary: String(v.getFirstPropertyValue('summary')),
        rid: v.getFirstPropertyValue('recurrence-id'),
      }));
    };
    const one = uids((await s.get(`/events/${made.id}`, { headers: { accept: 'text/calendar' } })).text);
    expect(one.map((v) => v.summary)).toEqual(['Series']);
    const listed = uids(
      (
        await s.get('/events?single_events=false&search=Special&start_date=2032-01-01&end_date=2033-12-31', {
          headers: { accept: 'text/calendar' },
        })
      ).text,
    );
    expect(listed).toEqual([{ uid: expect.stringContaining(`id=${secondOne.id}`), summary: 'Special', rid: null }]);

    // A draft series' published exception, to an anonymous reader: an event of its own.
    const draft = await series({
      status: 'draft',
      start_date: '2032-11-03 19:00',
      end_date: '2032-11-03 20:00',
      recurrence: ['RRULE:FREQ=WEEKLY;COUNT=3'],
    });
    const [, shown] = await occurrencesOf(s, draft.id, 'draft');
    expect((await s.post(`/events/${shown.id}`, { status: 'publish', title: 'Shown alone' })).status).toBe(200);
    const anonymous = uids(
      (
        await s.get('/events?single_events=false&search=alone&start_date=2032-01-01&end_date=2033-12-31', {
          headers: { accept: 'text/calendar' },
          as: null,
        })
      ).text,
    );
    expect(anonymous).toEqual([{ uid: expect.stringContaining(`id=${shown.id}`), summary: 'Shown alone', rid: null }]);
  });

  it('names a moved occurrence of an all-day series by its date, and keeps every occurrence as long as the first', async () => {
    // An all-day series with its third day moved: the override's RECURRENCE-ID is a date, which
    // ical.js (as calendar apps do) matches to the occurrence it replaces.
    const days = await series({
      title: 'Harvest days',
      all_day: true,
      start_date: '2032-09-06',
      end_date: '2032-09-06',
      recurrence: ['RRULE:FREQ=DAILY;COUNT=4'],
    });
    const [, , third] = await occurrencesOf(s, days.id);
    expect((await s.post(`/events/${third.id}`, { start_date: '2032-09-12', end_date: '2032-09-12' })).status).toBe(
      200,
    );
    const text = (
      await s.get('/events?single_events=false&search=Harvest days&start_date=2032-09-01&end_date=2032-09-30', {
        headers: { accept: 'text/calendar' },
      })
    ).text;
    expect(text.endsWith('END:VCALENDAR\r\n')).toBe(true);
    expect(text).toContain('RECURRENCE-ID;VALUE=DATE:20320908\r\n');
    const calendar = new ICAL.Component(ICAL.parse(text));
    const [master, moved] = calendar.getAllSubcomponents('vevent').map((v) => new ICAL.Event(v));
    master.relateException(moved);
    const shown: string[] = [];
    for (let it = master.iterator(), next = it.next(); next; next = it.next()) {
      shown.push(master.getOccurrenceDetails(next).startDate.toString());
    }
    expect(shown).toEqual(['2032-09-06', '2032-09-07', '2032-09-12', '2032-09-09']);

    // Lord Howe Island goes back half an hour on 2033-04-03 at 02:00: a 24-hour event each day stays
    // 24 hours (RFC 5545 gives every occurrence the exact length of the first), ending at 09:30.
    const watch = await series({
      title: 'Island watch',
      timezone: 'Australia/Lord_Howe',
      start_date: '2033-04-01 10:00',
      end_date: '2033-04-02 10:00',
      recurrence: ['RRULE:FREQ=DAILY;COUNT=4'],
    });
    const watches = await occurrencesOf(s, watch.id);
    expect(watches.map((o) => [o.start_date, o.end_date])).toEqual([
      ['2033-04-01 10:00:00', '2033-04-02 10:00:00'],
      ['2033-04-02 10:00:00', '2033-04-03 09:30:00'],
      ['2033-04-03 10:00:00', '2033-04-04 10:00:00'],
      ['2033-04-04 10:00:00', '2033-04-05 10:00:00'],
    ]);
    expect(
      watches.map((o) => (Date.parse(`${o.utc_end_date}Z`) - Date.parse(`${o.utc_start_date}Z`)) / 3_600_000),
    ).toEqual([24, 24, 24, 24]);
  });
});

// A series at the limits of one write and of the horizon: the rules hold at any limit, and at the
// configured 1,000 occurrences a write this test wrote some 3,500 rows (49 s of PGlite on a busy machine).
const SMALL_LIMITS = { ...DEFAULT_RECURRENCE, horizonDays: 60, maxOccurrences: 50 };

describeEachDatabase(
  'recurring events at the limits of a write',
  (s) => {
    const series = async (body: Record<string, unknown>) => {
      const r = await s.post('/events', { title: 'Series', timezone: 'Europe/Paris', ...body });
      expect(r.status, r.text).toBe(201);
      return r.body;
    };

    it('extends a series split from an endless one, and keeps occurrences past the limit of one write', async () => {
      const endless = await series({
        start_date: '2032-03-01 08:00',
        end_date: '2032-03-01 09:00',
        recurrence: ['RRULE:FREQ=DAILY'],
      });
      const [, second] = await occurrencesOf(s, endless.id);
      const split = await s.post(`/events/${second.id}?scope=following`, { title: 'Endless, renamed' });
      expect(split.status, split.text).toBe(200);
      const horizon = (await s.db.prisma.event.findUnique({ where: { id: split.body.id } }))?.expandedUntilLocal;
      expect(horizon).not.toBeNull();
      const later = new Date(Date.UTC(2032, 5, 1));
      await extendSeries(s.db.prisma, SMALL_LIMITS, later);
      const extended = (await s.db.prisma.event.findUnique({ where: { id: split.body.id } }))?.expandedUntilLocal;
      expect(extended!.getTime()).toBeGreaterThan(horizon!.getTime());

      const hourly = await series({
        start_date: '2032-04-01 00:00',
        end_date: '2032-04-01 00:30',
        timezone: 'UTC',
        recurrence: ['RRULE:FREQ=HOURLY'],
      });
      await extendSeries(s.db.prisma, SMALL_LIMITS);
      const rows = () =>
        s.db.prisma.event.findMany({ where: { parentId: hourly.id }, select: { id: true }, orderBy: { id: 'asc' } });
      const before = await rows();
      expect(before).toHaveLength(2 * SMALL_LIMITS.maxOccurrences);
      expect((await s.post(`/events/${hourly.id}`, { end_date: '2032-04-01 00:45' })).status).toBe(200);
      expect(await rows()).toEqual(before);
    });
  },
  {
    env: {
      RECURRENCE_HORIZON_DAYS: String(SMALL_LIMITS.horizonDays),
      RECURRENCE_MAX_OCCURRENCES: String(SMALL_LIMITS.maxOccurrences),
    },
  },
);
