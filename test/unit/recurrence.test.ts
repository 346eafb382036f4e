// A series' lines (src/recurrence/) expanded into the wall-clock starts of its occurrences, and
// the lines as stored: each kind of rule against starts worked out by hand from the calendar, random
// rules against ical.js's expander (an implementation independent of rrule, which the service
// expands with), daylight-saving changes in Paris and New York, the stored form of the lines and how
// it follows a change of zone or of the all-day flag, and the lines refused.
import { getVtimezoneComponent } from '@touch4it/ical-timezones';
import fc from 'fast-check';
import ICAL from 'ical.js';
import { describe, expect, it } from 'vitest';
import { eventZone, type EventZone, fromWallClock, UTC_ZONE } from '../../src/lib/event-times.js';
import { expand, firstStart, givesStart } from '../../src/recurrence/expand.js';
import { parseRecurrence, RecurrenceError } from '../../src/recurrence/parse.js';
import { canonicalLines, convertLines, exdateLine, shiftOf } from '../../src/recurrence/rewrite.js';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const paris = eventZone('Europe/Paris')!;
const newYork = eventZone('America/New_York')!;

/** A wall-clock time written `2026-03-29T02:30`: a Date whose UTC fields hold the reading. */
const wall = (text: string) => new Date(`${text}Z`);
const written = (date: Date) => date.toISOString().slice(0, 16);
/** An instant written `2026-03-29T01:30Z`. */
const instant = (date: Date) => `${date.toISOString().slice(0, 16)}Z`;

interface Window {
  zone?: EventZone;
  allDay?: boolean;
  after?: string;
  until?: string;
  limit?: number;
}

/** The wall-clock starts the lines give from `dtstart`, by default up to 2030. */
function startsOf(lines: string[], dtstart: string, window: Window = {}): string[] {
  const { zone = UTC_ZONE, allDay = false, after, until = '2030-01-01T00:00', limit = 1000 } = window;
  const recurrence = parseRecurrence(lines, zone, allDay);
  const found = expand(recurrence, wall(dtstart), {
    after: after === undefined ? undefined : wall(after),
    until: wall(until),
    limit,
  });
  return found.starts.map(written);
}

/** The instants of those starts, as a series' occurrences are stored (services/series/occurrences.ts). */
const instantsOf = (lines: string[], dtstart: string, zone: EventZone, until?: string) =>
  startsOf(lines, dtstart, { zone, until }).map((start) => instant(fromWallClock(wall(start), zone).toJSDate()));

/** The message a RecurrenceError gives for the lines; fails when they are taken or another error is thrown. */
function refusal(lines: string[], allDay = false): string {
  try {
    parseRecurrence(lines, UTC_ZONE, allDay);
  } catch (err) {
    if (err instanceof RecurrenceError) return err.message;
    throw err;
  }
  throw new Error(`taken: ${lines.join(' ')}`);
}

// 2026 begins on a Thursday; the days of the week below follow from that.
describe('expanding a rule', () => {
  it.each([
    {
      behaviour: 'repeats daily until its COUNT, DTSTART counted first',
      lines: ['RRULE:FREQ=DAILY;COUNT=3'],
      dtstart: '2026-01-05T10:00',
      starts: ['2026-01-05T10:00', '2026-01-06T10:00', '2026-01-07T10:00'],
    },
    {
      behaviour: 'steps by its INTERVAL and keeps a start that falls on UNTIL',
      lines: ['RRULE:FREQ=DAILY;INTERVAL=3;UNTIL=20260114T100000'],
      dtstart: '2026-01-05T10:00',
      starts: ['2026-01-05T10:00', '2026-01-08T10:00', '2026-01-11T10:00', '2026-01-14T10:00'],
    },
    {
      behaviour: 'takes the days BYDAY names in each week',
      lines: ['RRULE:FREQ=WEEKLY;BYDAY=MO,WE,FR;COUNT=5'],
      dtstart: '2026-01-05T10:00',
      starts: ['2026-01-05T10:00', '2026-01-07T10:00', '2026-01-09T10:00', '2026-01-12T10:00', '2026-01-14T10:00'],
    },
    {
      behaviour: 'skips weeks by INTERVAL and takes the whole day of a date UNTIL',
      lines: ['RRULE:FREQ=WEEKLY;INTERVAL=2;BYDAY=TU,TH;UNTIL=20260122'],
      dtstart: '2026-01-06T19:00',
      starts: ['2026-01-06T19:00', '2026-01-08T19:00', '2026-01-20T19:00', '2026-01-22T19:00'],
    },
    {
      behaviour: 'skips the months that have no 31st',
      lines: ['RRULE:FREQ=MONTHLY;BYMONTHDAY=31;COUNT=4'],
      dtstart: '2026-01-31T09:00',
      starts: ['2026-01-31T09:00', '2026-03-31T09:00', '2026-05-31T09:00', '2026-07-31T09:00'],
    },
    {
      behaviour: 'counts BYMONTHDAY=-1 from the end of each month',
      lines: ['RRULE:FREQ=MONTHLY;BYMONTHDAY=-1;COUNT=4'],
      dtstart: '2026-01-31T09:00',
      starts: ['2026-01-31T09:00', '2026-02-28T09:00', '2026-03-31T09:00', '2026-04-30T09:00'],
    },
    {
      behaviour: 'gives the second Tuesday of each month for BYDAY=2TU',
      lines: ['RRULE:FREQ=MONTHLY;BYDAY=2TU;COUNT=4'],
      dtstart: '2026-01-13T18:00',
      starts: ['2026-01-13T18:00', '2026-02-10T18:00', '2026-03-10T18:00', '2026-04-14T18:00'],
    },
    {
      behaviour: 'gives the last Friday of each month for BYDAY=-1FR',
      lines: ['RRULE:FREQ=MONTHLY;BYDAY=-1FR;COUNT=4'],
      dtstart: '2026-01-30T20:00',
      starts: ['2026-01-30T20:00', '2026-02-27T20:00', '2026-03-27T20:00', '2026-04-24T20:00'],
    },
    {
      behaviour: 'gives the first Monday of every other month up to UNTIL',
      lines: ['RRULE:FREQ=MONTHLY;INTERVAL=2;BYDAY=1MO;UNTIL=20260801T000000'],
      dtstart: '2026-01-05T10:00',
      starts: ['2026-01-05T10:00', '2026-03-02T10:00', '2026-05-04T10:00', '2026-07-06T10:00'],
    },
    {
      behaviour: 'gives the months BYMONTH names, each counted once toward COUNT',
      lines: ['RRULE:FREQ=MONTHLY;BYMONTH=3,11;COUNT=3'],
      dtstart: '2025-11-01T00:00',
      starts: ['2025-11-01T00:00', '2026-03-01T00:00', '2026-11-01T00:00'],
    },
    {
      behaviour: 'gives the last day of February, the 29th in a leap year, for BYMONTH=2;BYMONTHDAY=-1',
      lines: ['RRULE:FREQ=YEARLY;BYMONTH=2;BYMONTHDAY=-1;COUNT=3'],
      dtstart: '2027-02-28T09:00',
      starts: ['2027-02-28T09:00', '2028-02-29T09:00', '2029-02-28T09:00'],
    },
    {
      behaviour: 'repeats the 29th of February in leap years only',
      lines: ['RRULE:FREQ=YEARLY;COUNT=3'],
      dtstart: '2024-02-29T12:00',
      until: '2040-01-01T00:00',
      starts: ['2024-02-29T12:00', '2028-02-29T12:00', '2032-02-29T12:00'],
    },
    {
      behaviour: 'gives the last Sunday of March each year for BYMONTH=3;BYDAY=-1SU',
      lines: ['RRULE:FREQ=YEARLY;BYMONTH=3;BYDAY=-1SU;COUNT=3'],
      dtstart: '2026-03-29T10:00',
      starts: ['2026-03-29T10:00', '2027-03-28T10:00', '2028-03-26T10:00'],
    },
    {
      // RFC 5545 reads a numbered BYDAY with BYMONTHDAY as both: the first Monday that is the 1st to 7th.
      behaviour: 'gives the first Monday of each month as BYDAY=1MO;BYMONTHDAY=1,2,...,7',
      lines: ['RRULE:FREQ=MONTHLY;BYDAY=1MO;BYMONTHDAY=1,2,3,4,5,6,7;COUNT=3'],
      dtstart: '2026-01-05T10:00',
      starts: ['2026-01-05T10:00', '2026-02-02T10:00', '2026-03-02T10:00'],
    },
    {
      behaviour: 'skips years by INTERVAL up to a date UNTIL',
      lines: ['RRULE:FREQ=YEARLY;INTERVAL=2;UNTIL=20310101'],
      dtstart: '2026-07-14T21:00',
      starts: ['2026-07-14T21:00', '2028-07-14T21:00', '2030-07-14T21:00'],
      until: '2040-01-01T00:00',
    },
    {
      behaviour: 'steps hourly by INTERVAL into the next day',
      lines: ['RRULE:FREQ=HOURLY;INTERVAL=6;COUNT=4'],
      dtstart: '2026-01-05T09:00',
      starts: ['2026-01-05T09:00', '2026-01-05T15:00', '2026-01-05T21:00', '2026-01-06T03:00'],
    },
    {
      // RFC 5545: DTSTART is the first instance, counted in COUNT, even when the rule would not give it.
      behaviour: 'counts DTSTART first though the rule would not give it (a Monday for BYDAY=TU)',
      lines: ['RRULE:FREQ=WEEKLY;BYDAY=TU;COUNT=3'],
      dtstart: '2026-01-05T10:00',
      starts: ['2026-01-05T10:00', '2026-01-06T10:00', '2026-01-13T10:00'],
    },
    {
      behaviour: 'gives the union of several rules, a start they share once',
      lines: ['RRULE:FREQ=WEEKLY;BYDAY=MO;COUNT=3', 'RRULE:FREQ=WEEKLY;BYDAY=MO,WE;COUNT=3'],
      dtstart: '2026-01-05T10:00',
      starts: ['2026-01-05T10:00', '2026-01-07T10:00', '2026-01-12T10:00', '2026-01-19T10:00'],
    },
    {
      // The excluded start still counts: RFC 5545 takes EXDATEs out of the set COUNT made.
      behaviour: 'leaves out an EXDATE, which still counts toward COUNT',
      lines: ['RRULE:FREQ=DAILY;COUNT=5', 'EXDATE:20260107T100000'],
      dtstart: '2026-01-05T10:00',
      starts: ['2026-01-05T10:00', '2026-01-06T10:00', '2026-01-08T10:00', '2026-01-09T10:00'],
    },
    {
      behaviour: 'excludes nothing for an EXDATE at a time the rule does not give',
      lines: ['RRULE:FREQ=DAILY;COUNT=3', 'EXDATE:20260106T100100'],
      dtstart: '2026-01-05T10:00',
      starts: ['2026-01-05T10:00', '2026-01-06T10:00', '2026-01-07T10:00'],
    },
    {
      behaviour: 'adds RDATEs, one before DTSTART too, and a start the rule gives as well only once',
      lines: ['RRULE:FREQ=DAILY;COUNT=3', 'RDATE:20260103T150000,20260106T100000,20260120T080000'],
      dtstart: '2026-01-05T10:00',
      starts: ['2026-01-03T15:00', '2026-01-05T10:00', '2026-01-06T10:00', '2026-01-07T10:00', '2026-01-20T08:00'],
    },
    {
      behaviour: 'leaves out an RDATE that an EXDATE names as well',
      lines: ['RRULE:FREQ=DAILY;COUNT=2', 'RDATE:20260120T080000', 'EXDATE:20260120T080000'],
      dtstart: '2026-01-05T10:00',
      starts: ['2026-01-05T10:00', '2026-01-06T10:00'],
    },
    {
      behaviour: 'gives DTSTART and the RDATEs of a series without a rule',
      lines: ['RDATE:20260110T100000,20260201T100000'],
      dtstart: '2026-01-05T10:00',
      starts: ['2026-01-05T10:00', '2026-01-10T10:00', '2026-02-01T10:00'],
    },
  ])('$behaviour', ({ lines, dtstart, until, starts }) => {
    expect(startsOf(lines, dtstart, { until })).toEqual(starts);
  });

  it('gives only the starts after `after` and up to `until`, both as the window says', () => {
    const lines = ['RRULE:FREQ=DAILY'];
    const window = { after: '2026-01-07T10:00', until: '2026-01-09T10:00' };
    expect(startsOf(lines, '2026-01-05T10:00', window)).toEqual(['2026-01-08T10:00', '2026-01-09T10:00']);
  });

  it('stops at the limit, says where, and that more may follow', () => {
    const recurrence = parseRecurrence(['RRULE:FREQ=DAILY;COUNT=10'], UTC_ZONE);
    const found = expand(recurrence, wall('2026-01-05T10:00'), { until: wall('2027-01-01T00:00'), limit: 2 });
    expect(found.starts.map(written)).toEqual(['2026-01-05T10:00', '2026-01-06T10:00']);
    expect(written(found.through)).toBe('2026-01-06T10:00');
    expect(found.ended).toBe(false);
  });

  it('says a series ended when its COUNT or UNTIL runs out in the window, and not when it goes on', () => {
    const ended = (line: string) =>
      expand(parseRecurrence([line], UTC_ZONE), wall('2026-01-05T10:00'), {
        until: wall('2026-02-01T00:00'),
        limit: 100,
      }).ended;
    expect(ended('RRULE:FREQ=DAILY;COUNT=3')).toBe(true);
    expect(ended('RRULE:FREQ=DAILY;UNTIL=20260110T100000')).toBe(true);
    expect(ended('RRULE:FREQ=DAILY;COUNT=40')).toBe(false);
    expect(ended('RRULE:FREQ=DAILY')).toBe(false);
  });

  it('tells whether the rule still gives a start, an excluded one not', () => {
    const recurrence = parseRecurrence(['RRULE:FREQ=WEEKLY;BYDAY=TU', 'EXDATE:20260113T190000'], UTC_ZONE);
    const gives = (start: string) => givesStart(recurrence, wall('2026-01-06T19:00'), wall(start));
    expect(gives('2026-01-20T19:00')).toBe(true);
    expect(gives('2026-01-13T19:00')).toBe(false); // excluded
    expect(gives('2026-01-20T18:00')).toBe(false); // another time
    expect(gives('2026-01-21T19:00')).toBe(false); // a Wednesday
  });

  it('begins the series at an RDATE before DTSTART', () => {
    const recurrence = parseRecurrence(['RRULE:FREQ=DAILY', 'RDATE:20251224T180000'], UTC_ZONE);
    expect(written(firstStart(recurrence, wall('2026-01-05T10:00')))).toBe('2025-12-24T18:00');
  });
});

describe('an all-day series', () => {
  it('starts each occurrence at midnight, and an EXDATE with a time leaves out its whole day', () => {
    const lines = [
      'RRULE:FREQ=DAILY;COUNT=5',
      'EXDATE;VALUE=DATE:20260328',
      'EXDATE;TZID=Europe/Paris:20260329T153000',
      'RDATE;TZID=Europe/Paris:20260402T183000',
    ];
    const options = { zone: paris, allDay: true };
    expect(startsOf(lines, '2026-03-27T00:00', options)).toEqual([
      '2026-03-27T00:00',
      '2026-03-30T00:00',
      '2026-03-31T00:00',
      '2026-04-02T00:00',
    ]);
  });

  it("starts at midnight in the zone's offset of that day, on either side of the change", () => {
    const starts = startsOf(['RRULE:FREQ=DAILY;COUNT=3'], '2026-03-28T00:00', { zone: paris, allDay: true });
    expect(starts.map((start) => instant(fromWallClock(wall(start), paris).toJSDate()))).toEqual([
      '2026-03-27T23:00Z',
      '2026-03-28T23:00Z',
      '2026-03-29T22:00Z',
    ]);
  });
});

describe('daylight-saving changes', () => {
  it('keeps a weekly 19:00 class at 19:00 in Paris across both changes of 2026', () => {
    const lines = ['RRULE:FREQ=WEEKLY;BYDAY=TU;UNTIL=20261103T180000Z'];
    const starts = startsOf(lines, '2026-03-17T19:00', { zone: paris });
    expect(starts).toHaveLength(34);
    expect(new Set(starts.map((start) => start.slice(11)))).toEqual(new Set(['19:00']));
    const instants = instantsOf(lines, '2026-03-17T19:00', paris);
    // Winter time (UTC+1) until 29 March, summer time (UTC+2) until 25 October.
    expect(instants.slice(0, 3)).toEqual(['2026-03-17T18:00Z', '2026-03-24T18:00Z', '2026-03-31T17:00Z']);
    expect(instants.slice(-3)).toEqual(['2026-10-20T17:00Z', '2026-10-27T18:00Z', '2026-11-03T18:00Z']);
  });

  it('reads an UNTIL instant in the offset of its day: a second earlier leaves the last class out', () => {
    // 17:59:59Z on 3 November is 18:59:59 in Paris (winter time), before the 19:00 class; read with
    // the summer offset it would be 19:59:59, after it.
    const starts = startsOf(['RRULE:FREQ=WEEKLY;BYDAY=TU;UNTIL=20261103T175959Z'], '2026-03-17T19:00', { zone: paris });
    expect(starts.at(-1)).toBe('2026-10-27T19:00');
  });

  it('keeps the 02:30 occurrence of the day Paris springs forward, at the offset before the gap', () => {
    // 02:30 does not exist on 29 March; RFC 5545 reads it with the offset before the gap (UTC+1),
    // which is 03:30 in summer time.
    const lines = ['RRULE:FREQ=DAILY;COUNT=3'];
    expect(startsOf(lines, '2026-03-28T02:30', { zone: paris })).toEqual([
      '2026-03-28T02:30',
      '2026-03-29T02:30',
      '2026-03-30T02:30',
    ]);
    expect(instantsOf(lines, '2026-03-28T02:30', paris)).toEqual([
      '2026-03-28T01:30Z',
      '2026-03-29T01:30Z',
      '2026-03-30T00:30Z',
    ]);
  });

  it('takes the first of the two 02:30s of the day Paris falls back', () => {
    expect(instantsOf(['RRULE:FREQ=DAILY;COUNT=3'], '2026-10-24T02:30', paris)).toEqual([
      '2026-10-24T00:30Z',
      '2026-10-25T00:30Z',
      '2026-10-26T01:30Z',
    ]);
  });

  it('does the same in New York, whose clocks change on other days and at other hours', () => {
    expect(instantsOf(['RRULE:FREQ=DAILY;COUNT=3'], '2026-03-07T02:30', newYork)).toEqual([
      '2026-03-07T07:30Z',
      '2026-03-08T07:30Z',
      '2026-03-09T06:30Z',
    ]);
    expect(instantsOf(['RRULE:FREQ=DAILY;COUNT=3'], '2026-10-31T01:30', newYork)).toEqual([
      '2026-10-31T05:30Z',
      '2026-11-01T05:30Z',
      '2026-11-02T06:30Z',
    ]);
  });

  it('reads an EXDATE in UTC or in another zone as the instant it names', () => {
    const lines = [
      'RRULE:FREQ=DAILY;COUNT=4',
      'EXDATE:20261102T063000Z', // 01:30 EST
      'EXDATE;TZID=Europe/Paris:20261101T063000', // 05:30Z: the first 01:30 in New York, still EDT
    ];
    expect(startsOf(lines, '2026-10-31T01:30', { zone: newYork })).toEqual(['2026-10-31T01:30', '2026-11-03T01:30']);
  });
});

// ical.js knows a zone from its VTIMEZONE; registered, it also reads the TZID of EXDATE and RDATE lines.
const ORACLE_ZONES = ['UTC', 'Europe/Paris', 'America/New_York', 'Australia/Lord_Howe'];
const icalZones = new Map(
  ORACLE_ZONES.slice(1).map((name) => {
    const timezone = new ICAL.Timezone(new ICAL.Component(ICAL.parse(getVtimezoneComponent(name) ?? '')));
    ICAL.TimezoneService.register(timezone, name);
    return [name, timezone] as const;
  }),
);
const icalZone = (name: string) => (name === 'UTC' ? ICAL.Timezone.utcTimezone : icalZones.get(name)!);

/** The instants (ms) ical.js gives for the lines from a wall-clock DTSTART in the zone, up to `end`. */
function icalInstants(lines: string[], dtstart: Date, zone: string, end: Date): number[] {
  const start = ICAL.Time.fromDateTimeString(dtstart.toISOString().slice(0, 19));
  start.zone = icalZone(zone);
  const vevent = new ICAL.Component('vevent');
  vevent.addPropertyWithValue('dtstart', start);
  for (const line of lines) vevent.addProperty(ICAL.Property.fromString(line));
  const expansion = new ICAL.RecurExpansion({ component: vevent, dtstart: start });
  const out: number[] = [];
  for (let next = expansion.next(); next && next.toJSDate() <= end; next = expansion.next()) {
    out.push(next.toJSDate().getTime());
  }
  return out;
}

/** `20260105T100000`, with the wall-clock reading of an instant in an ical.js zone. */
const icalText = (ms: number, zone: string) => {
  const time = ICAL.Time.fromJSDate(new Date(ms), true).convertToZone(icalZone(zone));
  return time.toICALString();
};
/** `20260105T090000`, the UTC reading of an instant (a Z follows where it is a value). */
const utcText = (ms: number) => new Date(ms).toISOString().replace(/[-:]|\.\d{3}Z/g, '');

const WEEKDAYS = ['MO', 'TU', 'WE', 'TH', 'FR', 'SA', 'SU'];
const oracleRules = fc.record({
  freq: fc.constantFrom('DAILY', 'WEEKLY', 'MONTHLY', 'YEARLY'),
  interval: fc.integer({ min: 1, max: 3 }),
  days: fc.subarray(WEEKDAYS, { minLength: 1, maxLength: 3 }),
  ordinal: fc.constantFrom(1, 2, 4, -1, -2),
  monthDays: fc.subarray([1, 10, 15, 28, 30, 31, -1], { minLength: 1, maxLength: 2 }),
  months: fc.subarray([2, 3, 7, 10, 11], { minLength: 1, maxLength: 2 }),
  // Which BY parts: none, weekdays, month days (MONTHLY and YEARLY), nth weekdays (MONTHLY and YEARLY).
  shape: fc.constantFrom('plain', 'days', 'monthDays', 'nthDays'),
  inMonths: fc.boolean(),
  wkst: fc.constantFrom('MO', 'SU'),
  // No end, a COUNT, or an UNTIL at the nth start or a second before it, where a misread one shows.
  end: fc.oneof(
    fc.constant(undefined),
    fc.integer({ min: 1, max: 30 }),
    fc.record({ nth: fc.nat(), early: fc.boolean() }),
  ),
  zone: fc.constantFrom(...ORACLE_ZONES),
  day: fc.integer({ min: 0, max: 500 }),
  // Hours outside 01:00 to 03:00, where no zone here skips or repeats one (ical.js reads a time in the
  // gap with the offset after it and a repeated time as the later one, where RFC 5545 says the
  // offset before and the first: the tests above check those).
  hour: fc.constantFrom(0, 5, 9, 12, 18, 23),
  minute: fc.constantFrom(0, 30),
  excluded: fc.array(fc.nat(), { maxLength: 3 }),
  added: fc.array(fc.record({ day: fc.integer({ min: 1, max: 400 }), hour: fc.constantFrom(7, 13, 20) }), {
    maxLength: 2,
  }),
});
type OracleRule = typeof oracleRules extends fc.Arbitrary<infer T> ? T : never;

/** The rule's parts: BYDAY with an ordinal only for MONTHLY and YEARLY (RFC 5545 allows it only there). */
function ruleParts(r: OracleRule): string[] {
  const parts = [`FREQ=${r.freq}`, `INTERVAL=${r.interval}`];
  const periodic = r.freq === 'MONTHLY' || r.freq === 'YEARLY';
  if (r.shape === 'days') parts.push(`BYDAY=${r.days.join(',')}`);
  // ical.js takes the 30th of February, and its last day, as days of March in a yearly rule: yearly
  // rules keep to days every month has, counted from its start (the table above has the others).
  const monthDays = r.freq === 'YEARLY' ? r.monthDays.filter((d) => d > 0 && d < 29) : r.monthDays;
  if (r.shape === 'monthDays' && periodic && monthDays.length) parts.push(`BYMONTHDAY=${monthDays.join(',')}`);
  if (r.shape === 'nthDays' && periodic) parts.push(`BYDAY=${r.days.map((d) => `${r.ordinal}${d}`).join(',')}`);
  // A monthly rule's BYMONTH is left to the table above: ical.js counts the months it skips toward
  // COUNT and gives some nth weekdays twice. A yearly rule of month days names its months: without,
  // rrule takes every month's (as RFC 5545's table expands BYMONTHDAY) and ical.js DTSTART's alone.
  const yearlyDays = r.freq === 'YEARLY' && r.shape === 'monthDays';
  if (yearlyDays || (r.inMonths && r.freq !== 'MONTHLY')) parts.push(`BYMONTH=${r.months.join(',')}`);
  if (r.freq === 'WEEKLY') parts.push(`WKST=${r.wkst}`);
  return parts;
}

describe('expanding random rules', () => {
  it('gives the instants ical.js gives, EXDATE and RDATE lines included, in four zones', () => {
    const BASE = Date.UTC(2025, 0, 1);
    // Days compared after DTSTART: a few hundred starts at most, each rule taking a few milliseconds.
    const SPAN: Record<string, number> = { DAILY: 90, WEEKLY: 250, MONTHLY: 2 * 365, YEARLY: 6 * 365 };
    fc.assert(
      fc.property(oracleRules, (r) => {
        const zone = r.zone === 'UTC' ? UTC_ZONE : eventZone(r.zone)!;
        const parts = ruleParts(r);
        const raw = new Date(BASE + r.day * DAY + r.hour * HOUR + r.minute * 60_000);
        let recurrence;
        try {
          recurrence = parseRecurrence([`RRULE:${parts.join(';')}`], zone);
        } catch (err) {
          if (err instanceof RecurrenceError) return; // no day has all its BY parts (30 February)
          throw err;
        }
        // A DTSTART that the rule gives (RFC 5545 leaves the set of an unsynchronized one undefined,
        // and the two libraries differ there on purpose): the first start after the raw time.
        const [dtstart] = expand(recurrence, raw, { after: raw, until: wall('2029-01-01T00:00'), limit: 1 }).starts;
        fc.pre(dtstart !== undefined);
        const end = fromWallClock(dtstart, zone).toMillis() + SPAN[r.freq] * DAY;
        const given = icalInstants([`RRULE:${parts.join(';')}`], dtstart, r.zone, new Date(end));
        expect(given[0], 'ical.js gives DTSTART as well').toBe(fromWallClock(dtstart, zone).toMillis());
        if (typeof r.end === 'number') parts.push(`COUNT=${r.end}`);
        else if (r.end) {
          // DTSTART is a start whatever the UNTIL (docs/decisions.md), where ical.js gives none before it.
          const last = given[r.end.nth % given.length];
          parts.push(`UNTIL=${utcText(last - (r.end.early && last > given[0] ? 1000 : 0))}Z`);
        }
        const lines = [`RRULE:${parts.join(';')}`];
        // Each once: ical.js excludes only the first of two equal values and nothing after them.
        const excluded = [...new Set(r.excluded.map((n) => given[n % given.length]))];
        if (excluded.length) lines.push(`EXDATE:${excluded.map((ms) => `${utcText(ms)}Z`).join(',')}`);
        for (const { day, hour } of r.added) {
          const days = day % SPAN[r.freq];
          const reading = new Date(dtstart.getTime() - (dtstart.getTime() % DAY) + days * DAY + hour * HOUR);
          const value = reading.toISOString().replace(/[-:]|\.\d{3}Z/g, '');
          lines.push(r.zone === 'UTC' ? `RDATE:${value}Z` : `RDATE;TZID=${r.zone}:${value}`);
        }
        // Each once: ical.js gives an RDATE that two lines name twice.
        const expected = [...new Set(icalInstants(lines, dtstart, r.zone, new Date(end)))];
        const found = expand(parseRecurrence(lines, zone), dtstart, {
          until: new Date(dtstart.getTime() + (SPAN[r.freq] + 1) * DAY), // a day past `end`, whatever the zone
          limit: 10_000,
        });
        const actual = found.starts
          .map((start) => fromWallClock(start, zone).toMillis())
          .filter((ms) => ms <= end)
          .sort((a, b) => a - b);
        const show = (list: number[]) => list.map((ms) => `${icalText(ms, r.zone)} (${utcText(ms)}Z)`);
        expect(show(actual), lines.join(' ')).toEqual(show(expected));
      }),
      { numRuns: 60, seed: 5545 },
    );
  });
});

describe('canonicalLines', () => {
  it('writes each rule upper-cased, without parameters, spaces or the + of an ordinal', () => {
    const lines = ['rrule:freq=monthly; byday=+2tu', 'RRULE;X-NOTE=x:FREQ=DAILY;COUNT=2'];
    expect(canonicalLines(lines, paris, false)).toEqual(['RRULE:FREQ=MONTHLY;BYDAY=2TU', 'RRULE:FREQ=DAILY;COUNT=2']);
  });

  it("writes the dates as wall-clock times in the event's zone, each once, in order", () => {
    const lines = [
      'RRULE:FREQ=DAILY',
      'EXDATE:20260401T170000Z,20260301T180000Z', // 19:00 in Paris, in summer and in winter time
      'EXDATE;TZID=Europe/Paris:20260301T190000', // the same start again
      // 14:00 in New York, in summer time since 8 March, is 19:00 in Paris, still in winter time.
      'rdate;tzid=America/New_York:20260310T140000',
      'RDATE:20260310T180000Z', // the same start again
    ];
    expect(canonicalLines(lines, paris, false)).toEqual([
      'RRULE:FREQ=DAILY',
      'EXDATE;TZID=Europe/Paris:20260301T190000,20260401T190000',
      'RDATE;TZID=Europe/Paris:20260310T190000',
    ]);
  });

  it('writes the dates in UTC for a zone that is a fixed offset, and as dates for an all-day series', () => {
    expect(canonicalLines(['RRULE:FREQ=DAILY', 'EXDATE:20260301T190000'], eventZone('UTC+5')!, false)).toEqual([
      'RRULE:FREQ=DAILY',
      'EXDATE:20260301T140000Z',
    ]);
    const allDay = ['RRULE:FREQ=DAILY', 'EXDATE;VALUE=DATE:20260302,20260301', 'EXDATE:20260303T100000'];
    expect(canonicalLines(allDay, paris, true)).toEqual([
      'RRULE:FREQ=DAILY',
      'EXDATE;VALUE=DATE:20260301,20260302,20260303',
    ]);
  });

  it('puts at most 100 dates on a line', () => {
    const days = Array.from({ length: 250 }, (_, i) => written(new Date(Date.UTC(2026, 0, 1) + i * DAY)));
    const values = days.map((day) => `${day.slice(0, 10).replace(/-/g, '')}T100000`);
    const lines = canonicalLines(['RRULE:FREQ=DAILY', `EXDATE:${values.join(',')}`], paris, false);
    expect(lines.map((line) => line.split(',').length)).toEqual([1, 100, 100, 50]);
    expect(
      lines
        .slice(1)
        .join(',')
        .match(/\d{8}T\d{6}/g),
    ).toEqual(values);
  });

  it('is its own canonical form, and expands as the lines it was made from', () => {
    const forms = fc.record({
      zone: fc.constantFrom('Europe/Paris', 'America/New_York', 'UTC+5:30', 'UTC'),
      allDay: fc.boolean(),
      // Offsets of days (from DTSTART) and the form each date is written in.
      dates: fc.array(
        fc.record({
          kind: fc.constantFrom('EXDATE', 'RDATE'),
          day: fc.integer({ min: 0, max: 300 }),
          form: fc.constantFrom('floating', 'utc', 'paris'),
        }),
        { maxLength: 8 },
      ),
    });
    fc.assert(
      fc.property(forms, ({ zone: name, allDay, dates }) => {
        const zone = eventZone(name)!;
        const dtstart = allDay ? wall('2026-01-05T00:00') : wall('2026-01-05T19:00');
        const lines = ['RRULE:freq=weekly;byday=mo,th'];
        for (const { kind, day, form } of dates) {
          const value = new Date(dtstart.getTime() + day * DAY).toISOString().replace(/[-:]|\.\d{3}Z/g, '');
          if (form === 'floating') lines.push(`${kind}:${value}`);
          else if (form === 'utc') lines.push(`${kind}:${value}Z`);
          else lines.push(`${kind};TZID=Europe/Paris:${value}`);
        }
        const canonical = canonicalLines(lines, zone, allDay);
        expect(canonicalLines(canonical, zone, allDay)).toEqual(canonical);
        const window = { until: wall('2027-01-01T00:00'), limit: 1000 };
        const starts = (given: string[]) =>
          expand(parseRecurrence(given, zone, allDay), dtstart, window).starts.map(written);
        expect(starts(canonical)).toEqual(starts(lines));
      }),
      { numRuns: 50, seed: 11 },
    );
  });
});

describe('convertLines', () => {
  const timed = [
    'RRULE:FREQ=DAILY',
    'EXDATE;TZID=Europe/Paris:20260301T180000',
    'RDATE;TZID=Europe/Paris:20260315T090000',
  ];

  it('keeps the wall-clock time of each date when the zone changes', () => {
    const lines = convertLines(
      timed,
      { zone: paris, allDay: false },
      { zone: newYork, allDay: false, startLocal: wall('2026-02-01T18:00') },
    );
    expect(lines).toEqual([
      'RRULE:FREQ=DAILY',
      'EXDATE;TZID=America/New_York:20260301T180000',
      'RDATE;TZID=America/New_York:20260315T090000',
    ]);
    // Read in New York, they leave out and add the same wall-clock starts as before.
    const starts = startsOf(lines, '2026-02-28T18:00', { zone: newYork, until: '2026-03-03T00:00' });
    expect(starts).toEqual(['2026-02-28T18:00', '2026-03-02T18:00']);
  });

  it('writes them in UTC when the new zone is a fixed offset', () => {
    const to = { zone: eventZone('UTC+5')!, allDay: false, startLocal: wall('2026-02-01T18:00') };
    expect(convertLines(timed, { zone: paris, allDay: false }, to)).toEqual([
      'RRULE:FREQ=DAILY',
      'EXDATE:20260301T130000Z',
      'RDATE:20260315T040000Z',
    ]);
  });

  it('turns times into their days when the series becomes all-day, and days into the start time back', () => {
    const allDay = convertLines(
      [...timed, 'EXDATE;TZID=Europe/Paris:20260301T200000'], // the same day as the first
      { zone: paris, allDay: false },
      { zone: paris, allDay: true, startLocal: wall('2026-02-01T00:00') },
    );
    expect(allDay).toEqual(['RRULE:FREQ=DAILY', 'EXDATE;VALUE=DATE:20260301', 'RDATE;VALUE=DATE:20260315']);
    const back = convertLines(
      allDay,
      { zone: paris, allDay: true },
      { zone: paris, allDay: false, startLocal: wall('2026-02-01T18:30') },
    );
    expect(back).toEqual([
      'RRULE:FREQ=DAILY',
      'EXDATE;TZID=Europe/Paris:20260301T183000',
      'RDATE;TZID=Europe/Paris:20260315T183000',
    ]);
  });
});

describe('exdateLine and shiftOf', () => {
  it('writes the EXDATE of an occurrence in the form the stored lines use', () => {
    expect(exdateLine(wall('2026-03-01T18:00'), paris, false)).toBe('EXDATE;TZID=Europe/Paris:20260301T180000');
    expect(exdateLine(wall('2026-03-01T00:00'), paris, true)).toBe('EXDATE;VALUE=DATE:20260301');
    expect(exdateLine(wall('2026-03-01T18:00'), eventZone('UTC-3:30')!, false)).toBe('EXDATE:20260301T213000Z');
  });

  it('moves occurrences as the start moves, except the days or the time the rule fixes', () => {
    const before = wall('2026-01-05T10:00');
    const after = wall('2026-01-07T12:30'); // two days and two and a half hours later
    const shift = (line: string) => shiftOf(parseRecurrence([line], UTC_ZONE), before, after);
    expect(shift('RRULE:FREQ=DAILY')).toBe(2 * DAY + 2.5 * HOUR);
    expect(shift('RRULE:FREQ=WEEKLY;BYDAY=MO')).toBe(2.5 * HOUR);
    expect(shift('RRULE:FREQ=DAILY;BYHOUR=10')).toBe(2 * DAY);
    expect(shift('RRULE:FREQ=MONTHLY;BYMONTHDAY=5;BYHOUR=10')).toBe(0);
  });
});

describe('lines refused', () => {
  it.each([
    { lines: [], message: 'recurrence needs an RRULE or an RDATE line.' },
    { lines: ['EXDATE:20260101T100000'], message: 'recurrence needs an RRULE or an RDATE line.' },
    { lines: ['RRULE:INTERVAL=2'], message: 'recurrence[0]: the rule needs FREQ.' },
    {
      lines: ['RRULE:FREQ=MINUTELY'],
      message: 'recurrence[0]: FREQ must be HOURLY, DAILY, WEEKLY, MONTHLY or YEARLY.',
    },
    { lines: ['RRULE:FREQ=DAILY;COUNT=3;UNTIL=20270101'], message: 'COUNT and UNTIL may not both be given.' },
    {
      lines: ['RRULE:FREQ=HOURLY;BYMINUTE=0,30'],
      message: 'BYMINUTE takes one value: an event happens at most hourly.',
    },
    { lines: ['RRULE:FREQ=DAILY;COUNT=0'], message: 'COUNT must be a whole number from 1 to 999999.' },
    { lines: ['RRULE:FREQ=DAILY;INTERVAL=-1'], message: 'INTERVAL must be a whole number from 1 to 999999.' },
    {
      lines: ['RRULE:FREQ=DAILY;COUNT=5001'],
      message: 'COUNT may be at most 5000; give an UNTIL for a longer series.',
    },
    { lines: ['RRULE:FREQ=DAILY;FOO=1'], message: 'FOO is not a part of an RFC 5545 rule.' },
    { lines: ['RRULE:FREQ=DAILY;freq=WEEKLY'], message: 'FREQ is given twice.' },
    {
      lines: ['RRULE:FREQ=YEARLY;BYMONTH=2;BYMONTHDAY=30'],
      message: 'the rule never gives a start (no day has all its BY parts).',
    },
    {
      lines: ['RRULE:FREQ=MONTHLY;BYDAY=MO;BYSETPOS=6'],
      message: 'the rule never gives a start (no day has all its BY parts).',
    },
    // A numbered weekday counts in its month: the first Monday is never the 15th, the second last
    // Monday never the last day (rrule would search for either until the year 9999).
    {
      lines: ['RRULE:FREQ=MONTHLY;BYDAY=1MO;BYMONTHDAY=15'],
      message: 'the rule never gives a start (no day has all its BY parts).',
    },
    {
      lines: ['RRULE:FREQ=MONTHLY;BYDAY=-2MO;BYMONTHDAY=-1'],
      message: 'the rule never gives a start (no day has all its BY parts).',
    },
    {
      lines: ['RRULE:FREQ=YEARLY;BYMONTH=3;BYDAY=-1SU;BYMONTHDAY=1,2,3,4,5,6,7'],
      message: 'the rule never gives a start (no day has all its BY parts).',
    },
    { lines: ['RRULE:FREQ=DAILY;BYHOUR=25'], message: 'recurrence[0]: the rule cannot be read: BYHOUR' },
    { lines: ['RRULE:FREQ=DAILY;UNTIL=99991231'], message: 'UNTIL must be between the years 1000 and 9998.' },
    {
      lines: ['DTSTART:20260101T100000'],
      message: "only RRULE, EXDATE and RDATE lines are taken (the start is the event's start_date).",
    },
    { lines: ['RRULE:FREQ=DAILY', 'EXRULE:FREQ=WEEKLY'], message: 'recurrence[1]: only RRULE, EXDATE and RDATE lines' },
    {
      lines: ['RRULE:FREQ=DAILY', 'EXDATE;VALUE=DATE:20260101'],
      message: 'recurrence[1]: EXDATE of a series that is not all-day must be date-times.',
    },
    {
      lines: ['RRULE:FREQ=DAILY', 'EXDATE:20261301T100000'],
      message: 'recurrence[1]: 20261301T100000 is not a date (and time) between the years 1000 and 9998.',
    },
    {
      lines: ['RRULE:FREQ=DAILY', 'RDATE:20260230T100000'],
      message: 'recurrence[1]: 20260230T100000 is not a date (and time) between the years 1000 and 9998.',
    },
    {
      lines: ['RRULE:FREQ=DAILY', 'EXDATE:09991231T100000'],
      message: '09991231T100000 is not a date (and time) between the years 1000 and 9998.',
    },
    {
      lines: ['RRULE:FREQ=DAILY', 'EXDATE;TZID=Mars/Olympus:20260101T100000'],
      message: 'recurrence[1]: Mars/Olympus is not a time zone.',
    },
    {
      lines: ['RRULE:FREQ=DAILY', 'RDATE;VALUE=PERIOD:20260101T100000Z/PT1H'],
      message: 'recurrence[1]: dates must be DATE or DATE-TIME values.',
    },
  ])('refuses $lines: $message', ({ lines, message }) => {
    expect(refusal(lines)).toContain(message);
  });

  it('takes dates without a time in an all-day series', () => {
    expect(() => parseRecurrence(['RRULE:FREQ=DAILY', 'EXDATE;VALUE=DATE:20260101'], UTC_ZONE, true)).not.toThrow();
  });
});
