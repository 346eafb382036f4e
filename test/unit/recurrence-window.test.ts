// A rule's walk started near the window (recurrence/expand.ts, walkFrom) gives what the walk from
// DTSTART gives in that window, for hourly, daily and weekly rules of any interval and BY parts, and
// for monthly and yearly ones from centuries before it (a later 400-year cycle of the calendar); and
// lastStart names the last start of a series that ends.
import fc from 'fast-check';
import { fuzzRuns } from '../setup/budget.js';
import { describe, expect, it } from 'vitest';
import { UTC_ZONE } from '../../src/lib/event-times.js';
import { reaches } from '../../src/recurrence/can-occur.js';
import { expand, lastStart } from '../../src/recurrence/expand.js';
import { parseRecurrence, RecurrenceError } from '../../src/recurrence/parse.js';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

const rules = fc.record({
  freq: fc.constantFrom('HOURLY', 'DAILY', 'WEEKLY'),
  interval: fc.integer({ min: 1, max: 11 }),
  byday: fc.option(fc.subarray(['MO', 'TU', 'WE', 'TH', 'FR', 'SA', 'SU'], { minLength: 1 }), { nil: undefined }),
  byhour: fc.option(fc.subarray([0, 5, 9, 13, 18, 23], { minLength: 1 }), { nil: undefined }),
  bymonth: fc.option(fc.subarray([1, 2, 6, 11, 12], { minLength: 1 }), { nil: undefined }),
  wkst: fc.constantFrom('MO', 'SU', 'WE'),
});

describe('walking a rule from near its window', () => {
  it('gives the starts the walk from DTSTART gives after any time', () => {
    fc.assert(
      fc.property(
        rules,
        fc.integer({ min: 0, max: 6 * 365 * DAY }),
        fc.integer({ min: 0, max: 3 * 365 * DAY }),
        ({ freq, interval, byday, byhour, bymonth, wkst }, startOffset, skip) => {
          const parts = [`FREQ=${freq}`, `INTERVAL=${interval}`, `WKST=${wkst}`];
          if (byday) parts.push(`BYDAY=${byday.join(',')}`);
          if (byhour && freq !== 'WEEKLY') parts.push(`BYHOUR=${byhour.join(',')}`);
          if (bymonth) parts.push(`BYMONTH=${bymonth.join(',')}`);
          let recurrence;
          try {
            recurrence = parseRecurrence([`RRULE:${parts.join(';')}`], UTC_ZONE);
          } catch (err) {
            if (err instanceof RecurrenceError) return; // no day has all its BY parts
            throw err;
          }
          const dtstart = new Date(Date.UTC(2005, 0, 1, 7, 30) + Math.floor(startOffset / 60_000) * 60_000);
          const after = new Date(dtstart.getTime() + skip);
          const until = new Date(after.getTime() + 40 * DAY);
          const near = expand(recurrence, dtstart, { after, until, limit: Infinity }).starts;
          // The walk from DTSTART: a window from before it, filtered to the same times.
          const whole = expand(recurrence, dtstart, { until, limit: Infinity }).starts.filter((d) => d > after);
          expect(near.map((d) => d.toISOString())).toEqual(whole.map((d) => d.toISOString()));
        },
      ),
      { numRuns: fuzzRuns(60) },
    );
  });

  it('gives the starts of monthly and yearly rules from centuries ago, walked from a later cycle of the calendar', () => {
    const monthly = fc.record({
      freq: fc.constantFrom('MONTHLY', 'YEARLY'),
      interval: fc.integer({ min: 1, max: 13 }),
      byday: fc.option(fc.subarray(['1MO', '-1FR', 'TU', '2SU'], { minLength: 1 }), { nil: undefined }),
      bymonth: fc.option(fc.subarray([1, 2, 6, 11], { minLength: 1 }), { nil: undefined }),
      bymonthday: fc.option(fc.subarray([1, 13, 29, -1], { minLength: 1 }), { nil: undefined }),
    });
    fc.assert(
      fc.property(
        monthly,
        fc.integer({ min: 1550, max: 1620 }),
        ({ freq, interval, byday, bymonth, bymonthday }, year) => {
          const parts = [`FREQ=${freq}`, `INTERVAL=${interval}`];
          if (byday) parts.push(`BYDAY=${byday.join(',')}`);
          if (bymonth) parts.push(`BYMONTH=${bymonth.join(',')}`);
          if (bymonthday) parts.push(`BYMONTHDAY=${bymonthday.join(',')}`);
          let recurrence;
          try {
            recurrence = parseRecurrence([`RRULE:${parts.join(';')}`], UTC_ZONE);
          } catch (err) {
            if (err instanceof RecurrenceError) return; // no day has all its BY parts
            throw err;
          }
          const dtstart = new Date(Date.UTC(year, 1, 29 - (year % 4 ? 1 : 0), 9));
          const after = new Date(Date.UTC(2026, 0, 1));
          const until = new Date(Date.UTC(2036, 0, 1));
          const near = expand(recurrence, dtstart, { after, until, limit: Infinity }).starts;
          const whole = expand(recurrence, dtstart, { until, limit: Infinity }).starts.filter((d) => d > after);
          expect(near.map((d) => d.toISOString())).toEqual(whole.map((d) => d.toISOString()));
        },
      ),
      { numRuns: fuzzRuns(10) },
    );
  });

  it('names the last start of a series that ends, and none of one that goes on', () => {
    const dtstart = new Date(Date.UTC(2012, 0, 2, 18));
    const read = (lines: string[]) => lastStart(parseRecurrence(lines, UTC_ZONE), dtstart)?.toISOString();
    expect(read(['RRULE:FREQ=DAILY;COUNT=4000'])).toBe(new Date(dtstart.getTime() + 3999 * DAY).toISOString());
    // DTSTART is the first of COUNT though a rule of Tuesdays would not give it (2012-01-02 is a Monday).
    expect(read(['RRULE:FREQ=WEEKLY;BYDAY=TU;COUNT=3'])).toBe('2012-01-10T18:00:00.000Z');
    expect(read(['RRULE:FREQ=DAILY;UNTIL=20150101T000000Z'])).toBe('2015-01-01T00:00:00.000Z');
    expect(read(['RRULE:FREQ=DAILY;COUNT=2', 'RDATE:20200101T100000Z'])).toBe('2020-01-01T10:00:00.000Z');
    expect(read(['RRULE:FREQ=DAILY;COUNT=2', 'RRULE:FREQ=MONTHLY'])).toBeUndefined();
  });

  it('knows a walk whose steps never land on what its BY parts name, which rrule would walk for ever', () => {
    const at = (iso: string) => new Date(`${iso}Z`);
    const walk = (rule: string, start: string) => {
      const [{ parts }] = parseRecurrence([`RRULE:${rule}`], UTC_ZONE).rules;
      return reaches(parts, at(start));
    };
    expect(walk('FREQ=HOURLY;INTERVAL=3;BYHOUR=1', '2026-01-01T00:30')).toBe(false);
    expect(walk('FREQ=HOURLY;INTERVAL=3;BYHOUR=1', '2026-01-01T04:30')).toBe(true);
    expect(walk('FREQ=HOURLY;INTERVAL=5;BYHOUR=1', '2026-01-01T00:30')).toBe(true); // 5 and 24 share no factor
    expect(walk('FREQ=DAILY;INTERVAL=7;BYDAY=MO', '2026-01-03T10:00')).toBe(false); // a Saturday
    expect(walk('FREQ=DAILY;INTERVAL=7;BYDAY=MO', '2026-01-05T10:00')).toBe(true);
    expect(walk('FREQ=HOURLY;INTERVAL=168;BYDAY=MO', '2026-01-03T10:00')).toBe(false);
    expect(walk('FREQ=WEEKLY;INTERVAL=2;BYMONTH=1', '2026-03-03T10:00')).toBe(true);
    expect(
      walk('FREQ=DAILY;INTERVAL=2;BYMONTHDAY=1,3,5,7,9,11,13,15,17,19,21,23,25,27,29,31', '2026-01-02T10:00'),
    ).toBe(
      true, // months of 30 and 31 days change which days the steps land on
    );
    // And expanding such a rule gives DTSTART alone, at once.
    const never = parseRecurrence(['RRULE:FREQ=HOURLY;INTERVAL=3;BYHOUR=1'], UTC_ZONE);
    const dtstart = at('2026-01-01T00:30');
    expect(expand(never, dtstart, { until: at('2030-01-01T00:00'), limit: 10 }).starts).toEqual([dtstart]);
    expect(
      lastStart(parseRecurrence(['RRULE:FREQ=DAILY;INTERVAL=7;BYDAY=MO;COUNT=3'], UTC_ZONE), at('2026-01-03T10:00')),
    ).toEqual(at('2026-01-03T10:00'));
  });
});
