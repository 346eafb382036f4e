// Splitting a series at one of its occurrences (recurrence/rewrite.ts, splitLines, as a "this and
// following" edit does) loses no occurrence and adds none: the part before gives the starts before
// the cut, the part after (which begins at the cut) those from it, and together they give what the
// whole series gave, whatever the rule, its COUNT and the zone.
import fc from 'fast-check';
import { fuzzRuns } from '../setup/budget.js';
import { describe, expect, it } from 'vitest';
import { eventZone, UTC_ZONE } from '../../src/lib/event-times.js';
import { expand } from '../../src/recurrence/expand.js';
import { parseRecurrence } from '../../src/recurrence/parse.js';
import { splitLines } from '../../src/recurrence/rewrite.js';

const DAY = 86_400_000;
const UNTIL = new Date(Date.UTC(2031, 0, 1));
const LIMIT = 5_000;

const series = fc.record({
  freq: fc.constantFrom('DAILY', 'WEEKLY'),
  interval: fc.integer({ min: 1, max: 3 }),
  byday: fc.option(fc.subarray(['MO', 'TU', 'WE', 'TH', 'FR', 'SA', 'SU'], { minLength: 1 }), { nil: undefined }),
  count: fc.option(fc.integer({ min: 2, max: 60 }), { nil: undefined }),
  startDay: fc.integer({ min: 0, max: 365 }),
  hour: fc.integer({ min: 0, max: 23 }),
  zone: fc.constantFrom('UTC', 'America/New_York', 'Australia/Lord_Howe'),
  allDay: fc.boolean(),
  cut: fc.nat(),
});

const starts = (lines: string[], zoneName: string, dtstart: Date, allDay: boolean) =>
  expand(parseRecurrence(lines, zone(zoneName), allDay), dtstart, { until: UNTIL, limit: LIMIT }).starts.map((d) =>
    d.getTime(),
  );

const zone = (name: string) => (name === 'UTC' ? UTC_ZONE : eventZone(name)!);

describe('splitting a series at an occurrence', () => {
  it('keeps every occurrence on exactly one side of the cut', () => {
    fc.assert(
      fc.property(series, ({ freq, interval, byday, count, startDay, hour, zone: zoneName, allDay, cut }) => {
        const parts = [`FREQ=${freq}`, `INTERVAL=${interval}`];
        if (byday && freq === 'WEEKLY') parts.push(`BYDAY=${byday.join(',')}`);
        if (count !== undefined) parts.push(`COUNT=${count}`);
        const lines = [`RRULE:${parts.join(';')}`];
        const dtstart = new Date(Date.UTC(2026, 0, 1) + startDay * DAY + (allDay ? 0 : hour * 3_600_000));
        const whole = starts(lines, zoneName, dtstart, allDay);
        fc.pre(whole.length >= 2);
        // Cut at any occurrence but the first (cutting at the first is an edit of the whole series).
        const from = new Date(whole[1 + (cut % (whole.length - 1))]);
        const { before, after } = splitLines(lines, zone(zoneName), dtstart, allDay, from);
        const earlier = starts(before, zoneName, dtstart, allDay);
        const later = starts(after, zoneName, from, allDay);
        expect(earlier.every((t) => t < from.getTime())).toBe(true);
        expect(later[0]).toBe(from.getTime());
        expect([...earlier, ...later]).toEqual(whole);
      }),
      { numRuns: fuzzRuns(150), seed: 34 },
    );
  });

  it('sends an excluded or added date to the side it falls on', () => {
    const dtstart = new Date(Date.UTC(2026, 2, 2, 18));
    const lines = [
      'RRULE:FREQ=DAILY;COUNT=10',
      'EXDATE:20260303T180000',
      'EXDATE:20260309T180000',
      'RDATE:20260320T090000',
    ];
    const from = new Date(Date.UTC(2026, 2, 6, 18));
    const { before, after } = splitLines(lines, UTC_ZONE, dtstart, false, from);
    expect(before).toEqual(['RRULE:FREQ=DAILY;UNTIL=20260306T175959Z', 'EXDATE:20260303T180000Z']);
    expect(after).toEqual(['RRULE:FREQ=DAILY;COUNT=6', 'EXDATE:20260309T180000Z', 'RDATE:20260320T090000Z']);
  });
});
