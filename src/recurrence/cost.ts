// What a rule's walk costs, and the limits it must stay within: how many steps of its FREQ it takes
// per start (densityOf), its INTERVAL, its COUNT, the rules of a series together. A rule past them is
// refused when written (services/series/lines.ts readRecurrence) and not walked when stored
// (walkable, which expand.ts asks before every walk); caldav/query.ts bounds ical.js's walks by them.
import {
  CYCLE_DAYS,
  CYCLE_HOURS,
  CYCLE_START,
  dayMatcher,
  gcd,
  HOUR_MS,
  hourOf,
  neverOccurs,
  reaches,
  STEP_HOURS,
  WEEKDAYS,
  weekLands,
} from './can-occur.js';
import { DAY } from './dates.js';
import { readParts, type Recurrence, RecurrenceError } from './parse.js';

/**
 * How dense a rule's starts must be: an expander (rrule here, ical.js in caldav/query.ts) walks
 * every step of the rule's FREQ (each hour of an hourly rule, or each of its BYHOUR values a day;
 * each day of a daily one) and checks it against the BY parts, so a rule whose starts are rare
 * makes it walk far for each. `FREQ=HOURLY;BYMONTH=2;BYMONTHDAY=29;BYHOUR=3;BYDAY=MO` (a Monday
 * 29 February comes every 28 to 40 years) takes up to 14,609 steps per start, and expanding it
 * over the years 1 to 9999 held a core for ten seconds. Such rules are refused when written
 * (services/series/lines.ts readRecurrence), and a stored one is not walked (walkable).
 */
export const MAX_STEPS_PER_START = 3000;

/**
 * The most steps the walk of a rule with COUNT may take from DTSTART to its last start (about
 * 0.2 s of rrule's walk): a COUNT is walked whole to find where the series ends.
 */
export const MAX_COUNT_STEPS = 50_000;

export interface Density {
  /** The most steps the walk takes from one start to the next. */
  longest: number;
  /** The steps it takes per start on average (the days of a cycle per day with a start). */
  mean: number;
}

const densities = new Map<string, Density>();

/**
 * How many steps the walk of a rule takes per start, at most and on average: from the runs of days
 * without a start over a whole cycle of the calendar (400 years, after which days repeat), by the
 * days its day parts allow, in steps of ical.js's walk (which rrule's never exceeds): per day, each
 * hour of an hourly rule or each BYHOUR value, one of a daily rule, a seventh of a weekly one. A
 * monthly or yearly walk takes a step per month or year: a cycle's 4,800 months at most, within
 * milliseconds, so those count one step per start. A bounded probe: at most the cycle's 146,097 days
 * (about 20 ms, once per rule, as rules are kept by their parts).
 */
export function densityOf(parts: ReadonlyMap<string, string>, dtstart?: Date): Density {
  const freq = parts.get('FREQ') ?? '';
  const interval = Number(parts.get('INTERVAL') ?? 1);
  if (dtstart && onLattice(parts)) return latticeDensity(parts, dtstart);
  const hours = parts.get('BYHOUR')?.split(',').length;
  // A weekly walk steps through the days BYDAY names (else DTSTART's) of each week.
  const weekdays = freq === 'WEEKLY' ? (parts.get('BYDAY')?.split(',').length ?? 1) / 7 : 1;
  const perDay = new Map([
    ['HOURLY', hours ?? 24 / interval],
    ['DAILY', (hours ?? 1) / interval],
    ['WEEKLY', ((hours ?? 1) * weekdays) / interval],
  ]).get(freq);
  if (perDay === undefined) return { longest: 1, mean: 1 };
  const key = [...parts].filter(([name]) => name !== 'COUNT' && name !== 'UNTIL').join(';');
  const known = densities.get(key);
  if (known) return known;
  const gaps = dayGaps(parts);
  // Every step on a day with a start is a start: steps per start are days per day with a start.
  const density = {
    longest: Math.max(1, Math.ceil((gaps.longest - 1) * perDay) + 1),
    mean: Math.max(1, gaps.mean * weekdays),
  };
  if (densities.size >= 10_000) densities.clear(); // the rules seen lately, not a store
  densities.set(key, density);
  return density;
}

/**
 * The longest run of days, over a cycle of the calendar, from a day with a start to the next (1:
 * every day may have one), and the days of the cycle per day with a start. Months BYMONTH leaves
 * out are skipped whole.
 */
function dayGaps(parts: ReadonlyMap<string, string>): { longest: number; mean: number } {
  const matches = dayMatcher(parts);
  if (!matches) return { longest: 1, mean: 1 };
  const weekly = weekdayGaps(parts);
  if (weekly) return weekly;
  const months = parts.get('BYMONTH')?.split(',').map(Number);
  let first: number | undefined;
  let previous: number | undefined;
  let longest = 0;
  let found = 0;
  for (let month = 0; month < 4800; month++) {
    if (months && !months.includes((month % 12) + 1)) continue;
    const from = Date.UTC(2000, month, 1) / DAY;
    const to = Date.UTC(2000, month + 1, 1) / DAY;
    for (let day = from; day < to; day++) {
      if (!matches(day)) continue;
      if (previous !== undefined) longest = Math.max(longest, day - previous);
      first ??= day;
      previous = day;
      found++;
    }
  }
  if (first === undefined || previous === undefined) return { longest: Infinity, mean: Infinity };
  // The cycle repeats: from its last day with a start round to its first.
  return { longest: Math.max(longest, first + CYCLE_DAYS - previous), mean: CYCLE_DAYS / found };
}

/** dayGaps of a rule whose only day part is BYDAY of plain weekdays (a weekly class), at once. */
function weekdayGaps(parts: ReadonlyMap<string, string>): { longest: number; mean: number } | undefined {
  const days = parts.get('BYDAY')?.split(',');
  const others = ['BYMONTH', 'BYMONTHDAY', 'BYYEARDAY', 'BYWEEKNO'].some((name) => parts.has(name));
  if (!days || others || days.some((d) => d.length !== 2)) return undefined;
  const sorted = days.map((d) => WEEKDAYS.indexOf(d)).sort((a, b) => a - b);
  const runs = sorted.map((d, i) => (i + 1 < sorted.length ? sorted[i + 1] - d : sorted[0] + 7 - d));
  return { longest: Math.max(...runs), mean: 7 / sorted.length };
}

/**
 * densityOf a rule whose INTERVAL steps over periods, from `dtstart`: its walk over a whole cycle
 * of the calendar (after which it repeats), a step per FREQ times INTERVAL, each landing or not on
 * a day (and an hour) its BY parts allow; a weekly step takes a step per day of its week it walks.
 * `FREQ=DAILY;INTERVAL=366;BYMONTH=2;BYMONTHDAY=29` lands on 29 February once in some 2,500 steps,
 * though the days of the cycle have one every 1,461. At most the cycle's 3.5 million hours, on a
 * table of its days (some 30 ms, once per rule and start, as densities are kept).
 */
function latticeDensity(parts: ReadonlyMap<string, string>, dtstart: Date): Density {
  const freq = parts.get('FREQ') ?? '';
  const step = (STEP_HOURS.get(freq) ?? 1) * Number(parts.get('INTERVAL') ?? 1);
  const cycleHour = CYCLE_START * 24;
  const first = cycleHour + (((Math.floor(dtstart.getTime() / HOUR_MS) - cycleHour) % CYCLE_HOURS) + CYCLE_HOURS);
  const key = `${[...parts].filter(([name]) => name !== 'COUNT' && name !== 'UNTIL').join(';')}@${first % CYCLE_HOURS}`;
  const known = densities.get(key);
  if (known) return known;
  const lands = latticeLands(parts, first);
  const perStep = freq === 'WEEKLY' ? (parts.get('BYDAY')?.split(',').length ?? 1) : 1;
  const steps = CYCLE_HOURS / gcd(step, CYCLE_HOURS);
  let firstLanding: number | undefined;
  let previous: number | undefined;
  let longest = 0;
  let found = 0;
  for (let k = 0; k < steps; k++) {
    if (!lands(first + k * step)) continue;
    if (previous !== undefined) longest = Math.max(longest, k - previous);
    firstLanding ??= k;
    previous = k;
    found++;
  }
  const density =
    firstLanding === undefined || previous === undefined
      ? { longest: Infinity, mean: Infinity }
      : { longest: Math.max(longest, firstLanding + steps - previous) * perStep, mean: (steps / found) * perStep };
  if (densities.size >= 10_000) densities.clear();
  densities.set(key, density);
  return density;
}

/** Whether a rule's INTERVAL steps over periods whose days its BY parts choose (latticeDensity). */
const onLattice = (parts: ReadonlyMap<string, string>) =>
  Number(parts.get('INTERVAL') ?? 1) > 1 &&
  STEP_HOURS.has(parts.get('FREQ') ?? '') &&
  (dayMatcher(parts) !== undefined || parts.has('BYHOUR'));

/** Whether a step of a walk from the hour `first` (hours since 1970) lands on a start: days looked up in a table of a cycle. */
function latticeLands(parts: ReadonlyMap<string, string>, first: number): (hour: number) => boolean {
  const matches = dayMatcher(parts) ?? (() => true);
  const table = new Uint8Array(CYCLE_DAYS);
  for (let d = 0; d < CYCLE_DAYS; d++) table[d] = matches(CYCLE_START + d) ? 1 : 0;
  const dayOk = (day: number) => table[(((day - CYCLE_START) % CYCLE_DAYS) + CYCLE_DAYS) % CYCLE_DAYS] === 1;
  if (parts.get('FREQ') === 'WEEKLY') return weekLands(parts, first, dayOk);
  const hours = parts.get('FREQ') === 'HOURLY' ? parts.get('BYHOUR')?.split(',').map(Number) : undefined;
  return (hour) => (!hours || hours.includes(hourOf(hour))) && dayOk(Math.floor(hour / 24));
}

/** The steps a walk of a rule takes from DTSTART to the end of its COUNT (0 without one). */
const countWalk = ({ parts, count }: Pick<Recurrence['rules'][number], 'parts' | 'count'>, dtstart?: Date) => {
  const { longest, mean } = densityOf(parts, dtstart);
  return count === undefined ? 0 : Math.ceil(count * mean) + longest;
};

/**
 * The largest INTERVAL of each FREQ: ten years a step for the walks by hours, days and weeks, a
 * century for those by months and years. ical.js works out each step a month at a time, so one step
 * of `FREQ=WEEKLY;INTERVAL=999999` took over a minute of CPU in one call no budget could stop; a
 * ten-year step takes about a millisecond, and no calendar steps further.
 */
export const MAX_INTERVAL: ReadonlyMap<string, number> = new Map([
  ['HOURLY', 87_660],
  ['DAILY', 3_653],
  ['WEEKLY', 522],
  ['MONTHLY', 1_200],
  ['YEARLY', 100],
]);

/** Why a rule's INTERVAL makes one step of its walk too long to take, or undefined. */
export function stepTooLong(parts: ReadonlyMap<string, string>): string | undefined {
  const freq = parts.get('FREQ') ?? '';
  const most = MAX_INTERVAL.get(freq);
  const interval = Number(parts.get('INTERVAL') ?? 1);
  if (most === undefined || interval <= most) return undefined;
  const span = freq === 'MONTHLY' || freq === 'YEARLY' ? 'a century' : 'ten years';
  return `the INTERVAL of a ${freq} rule may be at most ${most} (${span} a step): one step of ${interval} is too long a walk.`;
}

/**
 * Why a rule's walk is too long to take, or undefined: its starts too rare (more than
 * MAX_STEPS_PER_START steps from one to the next), or its COUNT too long a walk for them.
 */
export function tooCostly(
  rule: Pick<Recurrence['rules'][number], 'parts' | 'count'>,
  dtstart?: Date,
): string | undefined {
  const step = stepTooLong(rule.parts);
  if (step) return step;
  const { longest } = densityOf(rule.parts, dtstart);
  if (longest > MAX_STEPS_PER_START) {
    return `its starts are too rare to expand: up to ${longest} steps of its FREQ from one start to the next, where at most ${MAX_STEPS_PER_START} are taken; give it a coarser FREQ (YEARLY or MONTHLY with the same BY parts).`;
  }
  const walk = countWalk(rule, dtstart);
  if (walk > MAX_COUNT_STEPS) {
    return `its COUNT is walked from the start in about ${walk} steps of its FREQ, where at most ${MAX_COUNT_STEPS} are taken; give a smaller COUNT, an UNTIL, or a coarser FREQ.`;
  }
  return undefined;
}

/**
 * The most rules a series may have: every expansion walks each of them (RFC 5545 has a component
 * hold one RRULE, and allows more only as deprecated), and a monthly rule from centuries ago is up
 * to 4,800 months of rrule's walk (walkFrom), some 30 ms.
 */
export const MAX_RULES = 5;

/**
 * Why a series' rules are too long to walk together, or undefined: each as tooCostly says, more
 * than MAX_RULES of them, or their COUNTs together too long a walk (each write walks them all).
 */
export function seriesTooCostly(rules: Recurrence['rules'], dtstart: Date): string | undefined {
  if (rules.length > MAX_RULES) return `a series has at most ${MAX_RULES} RRULE lines.`;
  for (const rule of rules) {
    const why = tooCostly(rule, dtstart);
    if (why) return `${rule.text}: ${why}`;
  }
  const walk = rules.reduce((sum, rule) => sum + countWalk(rule, dtstart), 0);
  if (walk > MAX_COUNT_STEPS) {
    return `the COUNTs of its rules are walked from the start in about ${walk} steps together, where at most ${MAX_COUNT_STEPS} are taken; give smaller COUNTs, UNTILs, or fewer rules.`;
  }
  return undefined;
}

/**
 * tooCostly of a rule's value as another reader writes it (`FREQ=...;BYDAY=...`, ical.js's
 * Recur.toString): why it is too costly to walk, or undefined; a rule whose parts cannot be read is
 * left to that reader.
 */
export function ruleCost(value: string, dtstart?: Date): string | undefined {
  let parts: Map<string, string>;
  try {
    parts = readParts(value, (why) => {
      throw new RecurrenceError(why);
    });
  } catch {
    return undefined;
  }
  // ical.js looks for a start of a yearly rule that never gives one until the year 20000.
  if (neverOccurs(parts)) return 'it never gives a start (no day has all its BY parts).';
  const count = parts.get('COUNT');
  return tooCostly({ parts, count: count === undefined ? undefined : Number(count) }, dtstart);
}

/**
 * Whether an expansion walks a rule from `dtstart`: it gives starts after DTSTART (reaches), and
 * its walk is not too long to take (tooCostly; only a rule stored before these limits can be).
 */
export const walkable = (rule: Pick<Recurrence['rules'][number], 'parts' | 'count'>, dtstart: Date) =>
  tooCostly(rule, dtstart) === undefined && reaches(rule.parts, dtstart);
