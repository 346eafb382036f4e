// A series expanded into the wall-clock starts of its occurrences in a window (docs/decisions.md,
// "Recurring events"), bounded by a limit of starts: the rule is walked in the series' wall-clock time,
// as RFC 5545 reads a rule whose DTSTART has a TZID (a weekly 19:00 class stays at 19:00 local across
// a daylight-saving change), and each start is turned into an instant in the event's zone afterwards
// (lib/event-times.ts). Only rules cost.ts says are walkable are walked, from as late a point as gives
// the same starts (walkFrom), so a series that began centuries ago costs only its window.
import rrulePackage from 'rrule';
import { gcd } from './can-occur.js';
import { walkable } from './cost.js';
import { DAY } from './dates.js';
import type { Recurrence } from './parse.js';

// rrule's package has no ES module exports Node can read by name.
const { RRule } = rrulePackage;
type Rule = InstanceType<typeof RRule>;

export interface Expansion {
  /** Wall-clock starts in order, at most `limit` of them. */
  starts: Date[];
  /** Where the expansion stopped: the last start when the limit cut it, else `until`. */
  through: Date;
  /** The series has no start after `through`: it ended (COUNT, UNTIL) before. */
  ended: boolean;
}

export interface Window {
  /** Only starts after this one (exclusive), when given. */
  after?: Date;
  /** Only starts up to this one (inclusive). */
  until: Date;
  limit: number;
}

/**
 * The starts of the series that fall in the window, at most `limit` of them. The first occurrence is
 * `dtstart` (RFC 5545 counts it first, even when the rule would not give it); excluded dates are left
 * out. All wall-clock times.
 */
export function expand(recurrence: Recurrence, dtstart: Date, { after, until, limit }: Window): Expansion {
  const found = new Set<number>();
  let ended = true;
  const take = (date: Date) => {
    if (after && date <= after) return;
    if (!recurrence.exdates.has(date.getTime())) found.add(date.getTime());
  };
  if (dtstart <= until) take(dtstart);
  else ended = false;
  for (const rule of recurrence.rules) {
    if (!walkable(rule, dtstart)) continue; // rrule would search for a start for ever, or too long
    if (takeRuleStarts(rule, dtstart, { after, until, limit }, take)) ended = false;
  }
  // An RDATE before DTSTART is an occurrence all the same: RFC 5545 makes the set of both.
  for (const date of recurrence.rdates) {
    if (date > until) ended = false;
    else take(date);
  }
  const starts = [...found].sort((a, b) => a - b).map((ms) => new Date(ms));
  if (starts.length > limit) {
    return { starts: starts.slice(0, limit), through: starts[limit - 1], ended: false };
  }
  return { starts, through: until, ended };
}

/**
 * Passes the starts one rule gives in the window to `take`, at most one more than `limit` of them;
 * returns whether more may follow the window.
 */
function takeRuleStarts(
  { rule, count }: Recurrence['rules'][number],
  dtstart: Date,
  { after, until, limit }: Window,
  take: (date: Date) => void,
): boolean {
  // The iteration stops at the window's end, where rrule stops looking: a rule that never gives a
  // start (BYMONTH=2;BYMONTHDAY=30) would otherwise be searched for until the year 9999.
  const own = rule.origOptions.until ?? undefined;
  const from = count === undefined ? walkFrom(rule, dtstart, after) : dtstart;
  const bound = new RRule({
    ...rule.origOptions,
    dtstart: from,
    count: null,
    until: own && own < until ? own : until,
  });
  // DTSTART is the first of COUNT even when the rule would not give it.
  let left = count === undefined ? Infinity : count - (matches(bound, dtstart) ? 0 : 1);
  let taken = 0;
  const stopped = { byLimit: false }; // set in the callback
  bound.all((date) => {
    if (left <= 0) return false;
    left--;
    // The limit reached with starts of this rule alone: more may follow.
    if (taken > limit) {
      stopped.byLimit = true;
      return false;
    }
    if (!after || date > after) taken++;
    take(date);
    return true;
  });
  // More may follow the window unless the rule ran out of its COUNT or ended by its UNTIL.
  return stopped.byLimit || (left > 0 && !(own && own <= until));
}

const matches = (rule: Rule, date: Date) => rule.between(date, date, true).length > 0;

/** The fixed length of one period of the rules whose periods all have one (wall-clock time has no DST). */
const PERIOD_MS = new Map<number, number>([
  [RRule.HOURLY, 3_600_000],
  [RRule.DAILY, DAY],
  [RRule.WEEKLY, 7 * DAY],
]);

/**
 * Where the walk of a rule without COUNT may begin so as to give what it gives after `after`: a
 * whole number of its periods (FREQ times INTERVAL) past DTSTART, one period short of `after`. An
 * hourly, daily or weekly rule gives the same starts from there, its BY parts and weeks aligned as
 * from DTSTART, so a series that began years ago costs only the window's starts. Monthly and yearly
 * rules, whose months have no fixed length, begin a whole number of 400-year cycles of the calendar
 * past DTSTART (after which dates fall on the same weekdays), as many as their INTERVAL keeps
 * aligned: a monthly rule from the year 1000 walks at most 4,800 months, not 12,000.
 */
function walkFrom(rule: Rule, dtstart: Date, after: Date | undefined): Date {
  if (!after || after <= dtstart) return dtstart;
  const interval = rule.origOptions.interval ?? 1;
  const length = PERIOD_MS.get(rule.origOptions.freq ?? -1);
  if (!length) return cyclesOn(rule, dtstart, after, interval);
  const period = length * interval;
  const periods = Math.floor((after.getTime() - dtstart.getTime()) / period) - 1;
  return periods > 0 ? new Date(dtstart.getTime() + periods * period) : dtstart;
}

/** DTSTART moved on by whole 400-year cycles (a multiple that keeps INTERVAL's steps), not past `after`. */
function cyclesOn(rule: Rule, dtstart: Date, after: Date, interval: number): Date {
  const periodsPerCycle = rule.origOptions.freq === RRule.MONTHLY ? 4800 : 400;
  const step = interval / gcd(interval, periodsPerCycle); // cycles per jump
  const cycles = Math.floor((after.getUTCFullYear() - dtstart.getUTCFullYear() - 1) / 400 / step) * step;
  if (cycles <= 0) return dtstart;
  const moved = new Date(dtstart);
  moved.setUTCFullYear(dtstart.getUTCFullYear() + 400 * cycles);
  return moved;
}

/**
 * The last start of a series whose every rule ends, or undefined when one goes on for ever. A rule's
 * UNTIL stands for its last start, which it bounds; a COUNT is walked.
 */
export function lastStart(recurrence: Recurrence, dtstart: Date): Date | undefined {
  let last = dtstart.getTime();
  for (const { rule, count, parts } of recurrence.rules) {
    const until = rule.origOptions.until;
    if (!walkable({ parts, count }, dtstart)) continue; // no start but DTSTART, or not walked
    if (until) last = Math.max(last, until.getTime());
    else if (count === undefined) return undefined;
    else {
      // DTSTART is the first of COUNT even when the rule would not give it: one start less then.
      const given = count - (matches(new RRule({ ...rule.origOptions, dtstart, count: null }), dtstart) ? 0 : 1);
      const starts = given > 0 ? new RRule({ ...rule.origOptions, dtstart, count: given }).all() : [];
      if (starts.length) last = Math.max(last, starts[starts.length - 1].getTime());
    }
  }
  for (const date of recurrence.rdates) last = Math.max(last, date.getTime());
  return new Date(last);
}

/** The earliest start of a series: DTSTART, or an RDATE before it. */
export const firstStart = (recurrence: Recurrence, dtstart: Date): Date =>
  new Date(Math.min(dtstart.getTime(), ...recurrence.rdates.map((d) => d.getTime())));

/** Whether the series' rule gives a start at this wall-clock time (it may no longer, once changed). */
export function givesStart(recurrence: Recurrence, dtstart: Date, start: Date): boolean {
  const { starts } = expand(recurrence, dtstart, { after: new Date(start.getTime() - 1000), until: start, limit: 1 });
  return starts.length === 1 && starts[0].getTime() === start.getTime();
}
