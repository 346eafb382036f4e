// Whether ical.js (which expands CalDAV reports, caldav/query.ts) walks a rule as rrule (which expands
// everything else, expand.ts) does: a bounded comparison of their first starts, so that one series
// never gives two sets of dates by the door it is read through.
import ICAL from 'ical.js';
import rrulePackage from 'rrule';
import { basic, LAST } from './dates.js';
import { readParts, RecurrenceError } from './parse.js';

// rrule's package has no ES module exports Node can read by name.
const { RRule } = rrulePackage;

/** Day parts RFC 5545 forbids with a FREQ (3.3.10), which ical.js refuses to walk and rrule reads its own way. */
const FORBIDDEN_PARTS: [string, string[]][] = [
  ['BYYEARDAY', ['DAILY', 'WEEKLY', 'MONTHLY']],
  ['BYMONTHDAY', ['WEEKLY']],
  ['BYWEEKNO', ['HOURLY', 'DAILY', 'WEEKLY', 'MONTHLY']],
];

/**
 * The starts after DTSTART the two readers compare, and the steps ical.js may take to find them (a
 * step of a rule far apart costs ical.js up to some 80 µs: about 80 ms at most).
 */
const SAMPLE = 5;
const SAMPLE_STEPS = 1000;
const problems = new Map<string, string | undefined>();

/**
 * Why ical.js (which expands CalDAV reports) cannot walk a rule's value (`FREQ=...`) from `dtstart`
 * (wall-clock) as rrule (which expands everything else) does, or undefined: a part RFC 5545 forbids
 * with its FREQ, an iterator ical.js will not build or that throws (`BYYEARDAY` with `BYMONTH`), or
 * first starts that differ (ical.js moves `BYMONTHDAY=29` of a February without one to 1 March;
 * it leaves BYWEEKNO out). Without `startsCompared`, only the first two: what no reader can walk,
 * refused when written; a valid rule ical.js walks otherwise is the service's all the same (rrule
 * walks it everywhere else), and only a CalDAV expansion of it is refused, on its own response.
 * Bounded: SAMPLE starts of each, ical.js's steps counted as caldav/query.ts counts them.
 */
export function walkProblem(value: string, dtstart: Date, startsCompared = true): string | undefined {
  const key = `${value}@${dtstart.getTime()}@${startsCompared}`;
  if (problems.has(key)) return problems.get(key);
  const problem = findWalkProblem(value, dtstart, startsCompared);
  if (problems.size >= 10_000) problems.clear(); // the rules seen lately, not a store
  problems.set(key, problem);
  return problem;
}

function findWalkProblem(value: string, dtstart: Date, startsCompared: boolean): string | undefined {
  let parts: Map<string, string>;
  try {
    parts = readParts(value, (why) => {
      throw new RecurrenceError(why);
    });
  } catch (err) {
    return err instanceof Error ? err.message : String(err);
  }
  const freq = parts.get('FREQ') ?? '';
  for (const [part, frequencies] of FORBIDDEN_PARTS) {
    if (parts.has(part) && frequencies.includes(freq)) return `RFC 5545 does not allow ${part} in a ${freq} rule.`;
  }
  // The walk without its end: the readers' COUNT and UNTIL are read alike, their steps may not be.
  const open = [...parts]
    .filter(([name]) => name !== 'COUNT' && name !== 'UNTIL')
    .map(([name, val]) => `${name}=${val}`)
    .join(';');
  let theirs: { starts: number[]; whole: boolean };
  try {
    theirs = icalStarts(open, dtstart);
  } catch (err) {
    return `ical.js cannot walk the rule: ${err instanceof Error ? err.message : String(err)}`;
  }
  if (!startsCompared) return undefined;
  // Those ical.js found within its steps are compared (all SAMPLE, or all there are, when whole).
  const wanted = theirs.whole ? SAMPLE : theirs.starts.length;
  const ours: number[] = [];
  if (wanted > 0)
    new RRule({ ...RRule.parseString(open), dtstart, until: new Date(LAST) }).all((date) => {
      if (date > dtstart) ours.push(date.getTime());
      return ours.length < wanted;
    });
  const differ = ours.length !== theirs.starts.length || ours.some((ms, i) => ms !== theirs.starts[i]);
  if (!differ) return undefined;
  const shown = (list: number[]) => list.map((ms) => basic(new Date(ms), 'local')).join(', ') || 'none';
  return `readers of iCalendar disagree on its starts after the first (${shown(ours)} or ${shown(theirs.starts)}): write it another way.`;
}

/** Thrown into ical.js's walk to end it when its steps are up. */
const STEPS_UP = Symbol('steps up');

/**
 * The first SAMPLE starts after `dtstart` that ical.js walks a rule to, up to the year 9998, within
 * SAMPLE_STEPS steps (`whole` when it found them all or ended); throws as ical.js does.
 */
function icalStarts(value: string, dtstart: Date): { starts: number[]; whole: boolean } {
  const start = ICAL.Time.fromData({
    year: dtstart.getUTCFullYear(),
    month: dtstart.getUTCMonth() + 1,
    day: dtstart.getUTCDate(),
    hour: dtstart.getUTCHours(),
    minute: dtstart.getUTCMinutes(),
    second: dtstart.getUTCSeconds(),
  });
  const iterator = ICAL.Recur.fromString(value).iterator(start);
  let steps = 0;
  const check = iterator.check_contracting_rules.bind(iterator);
  iterator.check_contracting_rules = () => {
    // eslint-disable-next-line @typescript-eslint/only-throw-error -- a signal to the loop below, not an error
    if (++steps > SAMPLE_STEPS) throw STEPS_UP;
    return check();
  };
  const starts: number[] = [];
  try {
    while (starts.length < SAMPLE) {
      const next = iterator.next() as ICAL.Time | null;
      if (!next || next.year > 9998) break;
      const ms = Date.UTC(next.year, next.month - 1, next.day, next.hour, next.minute, next.second);
      if (ms > dtstart.getTime()) starts.push(ms);
    }
  } catch (err) {
    if (err !== STEPS_UP) throw err;
    return { starts, whole: false };
  }
  return { starts, whole: true };
}
