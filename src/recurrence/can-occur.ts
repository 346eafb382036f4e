// Whether a rule can occur: whether some day of a whole 400-year cycle of the calendar has all its BY
// parts (neverOccurs, checked when a rule is read), and whether its walk from a given start ever lands
// on one (reaches). rrule checks a rule's end only on the starts it finds, so a rule that never
// occurs would be searched for until the year 9999, or for ever; these bounded probes say so first.
// The day matchers are shared with the cost of a walk (cost.ts).
import { DAY } from './dates.js';

export const WEEKDAYS = ['SU', 'MO', 'TU', 'WE', 'TH', 'FR', 'SA'];

/**
 * Whether no day of a whole 400-year cycle of the calendar (after which days of the week and leap
 * years repeat) has all the rule's BY parts: BYMONTH=2;BYMONTHDAY=30 never occurs, and rrule, which
 * checks its end only on the starts it finds, would search for one until the year 9999, seconds of
 * CPU for each such line. BYDAY counts its numbered days as weekdayMatcher says, and BYSETPOS by
 * whether the period can hold that many starts.
 */
export function neverOccurs(parts: Map<string, string>): boolean {
  const numbers = (key: string) => parts.get(key)?.split(',').map(Number);
  const monthDays = numbers('BYMONTHDAY');
  const weekdays = parts
    .get('BYDAY')
    ?.split(',')
    .map((d) => WEEKDAYS.indexOf(d.slice(-2)));
  const setPositions = numbers('BYSETPOS');
  if (setPositions) {
    const period = startDaysPerPeriod(parts.get('FREQ'), monthDays, weekdays);
    const times = ['BYHOUR', 'BYMINUTE', 'BYSECOND'].reduce((n, key) => n * (numbers(key)?.length ?? 1), 1);
    if (setPositions.every((p) => Math.abs(p) > period * times)) return true;
  }
  const matches = dayMatcher(parts);
  if (!matches) return false;
  for (let day = CYCLE_START; day < CYCLE_START + CYCLE_DAYS; day++) if (matches(day)) return false;
  return true;
}

/** How many days of a period can be starts: its BY parts' days, else the one DTSTART gives. */
function startDaysPerPeriod(freq: string | undefined, monthDays?: number[], weekdays?: number[]): number {
  if (freq === 'YEARLY') return 366;
  if (freq === 'MONTHLY') return monthDays?.length ?? (weekdays ? 5 * weekdays.length : 1);
  if (freq === 'WEEKLY') return weekdays?.length ?? 1;
  return 1;
}

/** The days of a whole cycle of the calendar (400 years), from 2000-01-01 (days since 1970). */
export const CYCLE_DAYS = 146_097;
export const CYCLE_START = Date.UTC(2000, 0, 1) / DAY;

/**
 * Whether a day (days since 1970) has all the rule's day parts (BYMONTH, BYDAY, BYMONTHDAY,
 * BYYEARDAY, BYWEEKNO by WKST); undefined when the rule has none.
 */
export function dayMatcher(parts: ReadonlyMap<string, string>): ((day: number) => boolean) | undefined {
  const numbers = (key: string) => parts.get(key)?.split(',').map(Number);
  const months = numbers('BYMONTH');
  const monthDays = numbers('BYMONTHDAY');
  const yearDays = numbers('BYYEARDAY');
  const weekNos = numbers('BYWEEKNO');
  const weekdays = weekdayMatcher(parts);
  const weekStart = WEEKDAYS.indexOf(parts.get('WKST') ?? 'MO');
  if (!months && !monthDays && !yearDays && !weekNos && !weekdays) return undefined;
  /** The week number of a day (as days since 1970) and how many weeks its year has, by WKST. */
  const weekOf = (day: number) => {
    const weekBegins = day - ((new Date(day * DAY).getUTCDay() - weekStart + 7) % 7);
    const year = new Date((weekBegins + 3) * DAY).getUTCFullYear(); // the year that holds its 4th day
    return { year, week: Math.floor((weekBegins + 3 - Date.UTC(year, 0, 1) / DAY) / 7) + 1 };
  };
  return (day) => {
    const date = new Date(day * DAY);
    const year = date.getUTCFullYear();
    const month = date.getUTCMonth() + 1;
    if (months && !months.includes(month)) return false;
    if (weekdays && !weekdays(date)) return false;
    if (monthDays) {
      const inMonth = new Date(Date.UTC(year, month, 0)).getUTCDate();
      const d = date.getUTCDate();
      if (!monthDays.includes(d) && !monthDays.includes(d - inMonth - 1)) return false;
    }
    if (yearDays) {
      const inYear = (Date.UTC(year + 1, 0, 1) - Date.UTC(year, 0, 1)) / DAY;
      const d = day - Date.UTC(year, 0, 1) / DAY + 1;
      if (!yearDays.includes(d) && !yearDays.includes(d - inYear - 1)) return false;
    }
    if (weekNos) {
      const { year: weekYear, week } = weekOf(day);
      // Dec 28 is in the last week of its year, whatever day weeks begin on.
      const weeks = weekOf(Date.UTC(weekYear, 11, 28) / DAY).week;
      if (!weekNos.includes(week) && !weekNos.includes(week - weeks - 1)) return false;
    }
    return true;
  };
}

/**
 * Whether a date is one BYDAY names. A numbered day (`2TU`, `-1FR`) counts in the month of a
 * MONTHLY rule (or a YEARLY one with BYMONTH) and in the year of a YEARLY one, as RFC 5545 reads
 * it: `FREQ=MONTHLY;BYDAY=1MO;BYMONTHDAY=15` never occurs, as the first Monday is the 7th at the
 * latest. Rules of other frequencies take a number as rrule does, by the weekday alone.
 */
function weekdayMatcher(parts: ReadonlyMap<string, string>): ((date: Date) => boolean) | undefined {
  const days = parts
    .get('BYDAY')
    ?.split(',')
    .map((d) => ({ weekday: WEEKDAYS.indexOf(d.slice(-2)), nth: Number(d.slice(0, -2)) }));
  if (!days) return undefined;
  const freq = parts.get('FREQ');
  const inMonth = freq === 'MONTHLY' || (freq === 'YEARLY' && parts.has('BYMONTH'));
  const counted = inMonth || freq === 'YEARLY';
  return (date) => {
    const position = counted ? positionIn(date, inMonth ? 'month' : 'year') : undefined;
    return days.some(
      ({ weekday, nth }) =>
        weekday === date.getUTCDay() &&
        (!nth || !position || nth === (nth > 0 ? position.fromStart : -position.fromEnd)),
    );
  };
}

/** Which of its weekday a date is in its month or year, counted from the start and from the end. */
function positionIn(date: Date, period: 'month' | 'year') {
  const year = date.getUTCFullYear();
  const start = period === 'month' ? Date.UTC(year, date.getUTCMonth(), 1) : Date.UTC(year, 0, 1);
  const end = period === 'month' ? Date.UTC(year, date.getUTCMonth() + 1, 1) : Date.UTC(year + 1, 0, 1);
  const day = (date.getTime() - start) / DAY; // 0-based
  const days = (end - start) / DAY;
  return { fromStart: Math.floor(day / 7) + 1, fromEnd: Math.floor((days - 1 - day) / 7) + 1 };
}

export const HOUR_MS = 3_600_000;
/** Hours in a cycle of the calendar: an hourly, daily or weekly walk repeats itself after it. */
export const CYCLE_HOURS = CYCLE_DAYS * 24;
export const gcd = (a: number, b: number): number => (b ? gcd(b, a % b) : a);
const walks = new WeakMap<ReadonlyMap<string, string>, Map<number, boolean>>();

/**
 * Whether the walk of a rule from `dtstart` ever gives a start. Day parts that some day has (checked
 * when read) may still never meet the walk's steps: `FREQ=DAILY;INTERVAL=7;BYDAY=MO` from a Saturday
 * never lands on a Monday, and `FREQ=HOURLY;INTERVAL=3;BYHOUR=1` from midnight never on 1 o'clock.
 * rrule would walk the first until the year 9999 (two seconds of CPU) and the second for ever, as
 * it checks a rule's end only on the starts it finds. Hourly, daily and weekly walks repeat after a
 * cycle of the calendar, so that many steps settle it; monthly and yearly ones reach the year 9999
 * within milliseconds.
 */
export function reaches(parts: ReadonlyMap<string, string>, dtstart: Date): boolean {
  const unit = STEP_HOURS.get(parts.get('FREQ') ?? '');
  if (!unit) return true;
  const known = walks.get(parts)?.get(dtstart.getTime());
  if (known !== undefined) return known;
  const step = unit * Number(parts.get('INTERVAL') ?? 1);
  const found = walkLands(parts, Math.floor(dtstart.getTime() / HOUR_MS), step);
  const memo = walks.get(parts) ?? new Map<number, boolean>();
  walks.set(parts, memo.set(dtstart.getTime(), found));
  return found;
}

/** The hours one step of an hourly, daily or weekly walk takes (at INTERVAL=1). */
export const STEP_HOURS = new Map([
  ['HOURLY', 1],
  ['DAILY', 24],
  ['WEEKLY', 168],
]);
export const hourOf = (hour: number) => ((hour % 24) + 24) % 24;

/**
 * Whether a walk of `step` hours from the hour `first` (hours since 1970) lands on a start within a
 * cycle of the calendar, after which it repeats itself.
 */
function walkLands(parts: ReadonlyMap<string, string>, first: number, step: number): boolean {
  const freq = parts.get('FREQ');
  const hours = freq === 'HOURLY' ? parts.get('BYHOUR')?.split(',').map(Number) : undefined;
  // The hours of the day a walk of `step` hours lands on are those of the start's, modulo gcd(step, 24).
  const aligned = gcd(step, 24);
  if (hours && !hours.some((h) => hourOf(h - first) % aligned === 0)) return false;
  const dayOk = dayMatcher(parts) ?? (() => true);
  const lands =
    freq === 'WEEKLY'
      ? weekLands(parts, first, dayOk)
      : (hour: number) => (!hours || hours.includes(hourOf(hour))) && dayOk(Math.floor(hour / 24));
  const steps = CYCLE_HOURS / gcd(step, CYCLE_HOURS);
  for (let k = 0; k < steps; k++) if (lands(first + k * step)) return true;
  return false;
}

/**
 * Whether the week that holds an hour of a weekly walk from the hour `first` has a start: a day the
 * rule's day parts allow, of the weekdays BYDAY names or, without BYDAY, of the start's weekday.
 */
export function weekLands(
  parts: ReadonlyMap<string, string>,
  first: number,
  dayOk: (day: number) => boolean,
): (hour: number) => boolean {
  const weekdays = parts.has('BYDAY') ? undefined : [new Date(first * HOUR_MS).getUTCDay()];
  const weekStart = WEEKDAYS.indexOf(parts.get('WKST') ?? 'MO');
  return (hour) => {
    const day = Math.floor(hour / 24);
    const weekBegins = day - ((new Date(day * DAY).getUTCDay() - weekStart + 7) % 7);
    for (let d = weekBegins; d < weekBegins + 7; d++) {
      if ((!weekdays || weekdays.includes(new Date(d * DAY).getUTCDay())) && dayOk(d)) return true;
    }
    return false;
  };
}
