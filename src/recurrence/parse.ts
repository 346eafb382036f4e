// A series' RFC 5545 lines (`RRULE:`, `EXDATE:`, `RDATE:`, as Google Calendar takes them), read and
// expanded into the wall-clock starts of its occurrences (docs/decisions.md, "Recurring events").
//
// The rule is expanded in the series' wall-clock time, as RFC 5545 reads a rule whose DTSTART has a
// TZID: a weekly 19:00 class stays at 19:00 local across a daylight-saving change, and each start is
// turned into an instant in the event's zone afterwards (lib/event-times.ts). `rrule` expands; ical.js,
// which parses values more strictly, checks each rule first. Wall-clock times are Dates whose UTC
// fields hold the reading, as the `*_local` columns do.
import ICAL from 'ical.js';
import rrulePackage from 'rrule';
import { DateTime, IANAZone } from 'luxon';
import { eventZone, type EventZone, fromWallClock } from '../lib/event-times.js';

// rrule's package has no ES module exports Node can read by name.
const { RRule } = rrulePackage;
type Rule = InstanceType<typeof RRule>;

/** Why lines were refused: the message names the line (`recurrence[i]`) and what is wrong with it. */
export class RecurrenceError extends Error {}

/** The rule parts RFC 5545 defines; rrule throws on others, ical.js drops them silently. */
const RULE_PARTS = new Set([
  'FREQ',
  'UNTIL',
  'COUNT',
  'INTERVAL',
  'BYSECOND',
  'BYMINUTE',
  'BYHOUR',
  'BYDAY',
  'BYMONTHDAY',
  'BYYEARDAY',
  'BYWEEKNO',
  'BYMONTH',
  'BYSETPOS',
  'WKST',
]);
// An event happens at most hourly: finer rules would fill the horizon with millions of rows.
const FREQUENCIES = new Set(['HOURLY', 'DAILY', 'WEEKLY', 'MONTHLY', 'YEARLY']);

export interface Recurrence {
  /** Each rule, and its text as stored: `RRULE:` and the parts upper-cased, without parameters or spaces. */
  rules: { rule: Rule; count?: number; text: string; parts: ReadonlyMap<string, string> }[];
  /** Wall-clock starts to add (RDATE) and to leave out (EXDATE, as times in ms). */
  rdates: Date[];
  exdates: Set<number>;
}

/** The series' lines, read for an event in `zone` (all-day or not); RecurrenceError when one is wrong. */
export function parseRecurrence(lines: readonly string[], zone: EventZone, allDay = false): Recurrence {
  const recurrence: Recurrence = { rules: [], rdates: [], exdates: new Set() };
  lines.forEach((line, index) => {
    const fail = (why: string): never => {
      throw new RecurrenceError(`recurrence[${index}]: ${why}`);
    };
    const text = line.trim();
    const colon = text.indexOf(':');
    const name = lineName(text);
    if (name === 'RRULE') recurrence.rules.push(readRule(text.slice(colon + 1), zone, fail));
    else if (name === 'EXDATE' || name === 'RDATE') {
      for (const value of readDates(text, fail)) {
        if (value.isDate && !allDay) fail(`${name} of a series that is not all-day must be date-times.`);
        const reading = wallClockOf(value, zone, fail);
        // An all-day series' occurrences start at midnight: a date-time names its day.
        const local = allDay
          ? new Date(Date.UTC(reading.getUTCFullYear(), reading.getUTCMonth(), reading.getUTCDate()))
          : reading;
        if (name === 'RDATE') recurrence.rdates.push(local);
        else recurrence.exdates.add(local.getTime());
      }
    } else fail("only RRULE, EXDATE and RDATE lines are taken (the start is the event's start_date).");
  });
  if (!recurrence.rules.length && !recurrence.rdates.length) {
    throw new RecurrenceError('recurrence needs an RRULE or an RDATE line.');
  }
  return recurrence;
}

/** The property a line holds (`RRULE`, `EXDATE`, ...), its parameters left out. */
const lineName = (line: string) => {
  const colon = line.indexOf(':');
  return (colon < 0 ? line : line.slice(0, colon)).split(';')[0].trim().toUpperCase();
};

/** Dates and times are taken from year 1000 to 9998: RFC 5545's basic format has four digits for the year. */
const FIRST = Date.UTC(1000, 0, 1);
const LAST = Date.UTC(9998, 11, 31, 23, 59, 59);
const inRange = (date: Date) => date.getTime() >= FIRST && date.getTime() <= LAST;

/** An RRULE line's value read and checked: RecurrenceError (through `fail`) when it is wrong. */
function readRule(value: string, zone: EventZone, fail: (why: string) => never) {
  const parts = readParts(value, fail);
  checkParts(parts, fail);
  const rule = [...parts].map(([key, val]) => `${key}=${val}`).join(';');
  if (neverOccurs(parts)) fail('the rule never gives a start (no day has all its BY parts).');
  try {
    ICAL.Recur.fromString(rule); // refuses values out of range (BYHOUR=25, BYDAY=XX, ...)
    const options = RRule.parseString(rule);
    if (options.until) options.until = untilReading(options.until, parts.get('UNTIL') ?? '', zone);
    if (options.until && !inRange(options.until)) fail('UNTIL must be between the years 1000 and 9998.');
    return {
      rule: new RRule({ ...options, dtstart: null, count: null }),
      count: options.count ?? undefined,
      text: `RRULE:${rule}`,
      parts,
    };
  } catch (err) {
    if (err instanceof RecurrenceError) throw err;
    return fail(`the rule cannot be read: ${err instanceof Error ? err.message : String(err)}`);
  }
}

/** A rule's parts by name, upper-cased; each must be one of RFC 5545's, and given once. */
function readParts(value: string, fail: (why: string) => never): Map<string, string> {
  const parts = new Map<string, string>();
  for (const part of value.split(';')) {
    const [key, val = ''] = part.split('=', 2);
    const upper = key.trim().toUpperCase();
    if (!RULE_PARTS.has(upper)) fail(`${key || '(empty)'} is not a part of an RFC 5545 rule.`);
    if (parts.has(upper)) fail(`${upper} is given twice.`);
    const value = val.trim().toUpperCase();
    parts.set(upper, upper === 'BYDAY' ? withoutPlusSigns(value) : value);
  }
  return parts;
}

/** `+1TU` is `1TU` (rrule writes the sign, most programs do not): stored in one form. */
const withoutPlusSigns = (days: string) =>
  days
    .split(',')
    .map((day) => (day.startsWith('+') ? day.slice(1) : day))
    .join(',');

/** The checks on a rule's parts that neither ical.js nor rrule makes: frequency, and the limits of a rule. */
function checkParts(parts: ReadonlyMap<string, string>, fail: (why: string) => never): void {
  const freq = parts.get('FREQ');
  if (!freq) fail('the rule needs FREQ.');
  if (!FREQUENCIES.has(freq)) fail('FREQ must be HOURLY, DAILY, WEEKLY, MONTHLY or YEARLY.');
  if (parts.has('COUNT') && parts.has('UNTIL')) fail('COUNT and UNTIL may not both be given.');
  // Several minutes or seconds per hour would make a rule finer than hourly all the same.
  for (const key of ['BYMINUTE', 'BYSECOND']) {
    if (parts.get(key)?.includes(',')) fail(`${key} takes one value: an event happens at most hourly.`);
  }
  for (const key of ['COUNT', 'INTERVAL']) {
    const n = parts.get(key);
    if (n !== undefined && !/^[1-9]\d{0,5}$/.test(n)) fail(`${key} must be a whole number from 1 to 999999.`);
  }
  // A COUNT is walked from DTSTART (to know where the series ends and which starts are in its
  // window), a few microseconds a start on the event loop: 5,000 of them stay within milliseconds,
  // where 999,999 hourly starts from 1990 took eight seconds.
  if (Number(parts.get('COUNT') ?? 0) > MAX_COUNT)
    fail(`COUNT may be at most ${MAX_COUNT}; give an UNTIL for a longer series.`);
}

/** The wall-clock reading of a rule's UNTIL as rrule parsed it, from the UNTIL `written` in the rule. */
function untilReading(parsed: Date, written: string, zone: EventZone): Date {
  let reading = parsed;
  // UNTIL with Z is an instant, read in the event's zone; without, a wall-clock time or a date.
  if (written.endsWith('Z')) reading = wallClockAt(reading, zone);
  // A date as UNTIL includes that whole day.
  if (written && !written.includes('T')) reading = new Date(reading.getTime() + 86_399_000);
  return reading;
}

/** A DATE or DATE-TIME value as written: ical.js would take a 13th month as the next year's first. */
const DATE_VALUE = /^(\d{4})(\d{2})(\d{2})(?:T(\d{2})(\d{2})(\d{2})Z?)?$/i;

function validValue(text: string): boolean {
  const m = DATE_VALUE.exec(text.trim());
  if (!m) return true; // not a date: ical.js says what it is
  const [year, month, day, hour = 0, minute = 0, second = 0] = m
    .slice(1)
    .map((v: string | undefined) => Number(v ?? 0));
  const days = new Date(Date.UTC(year, month, 0)).getUTCDate();
  return (
    year >= 1000 &&
    year <= 9998 &&
    month >= 1 &&
    month <= 12 &&
    day >= 1 &&
    day <= days &&
    hour <= 23 &&
    minute <= 59 &&
    second <= 59
  );
}

const DAY = 86_400_000;
/** The largest COUNT a rule may have (readRule). */
const MAX_COUNT = 5000;
const WEEKDAYS = ['SU', 'MO', 'TU', 'WE', 'TH', 'FR', 'SA'];

/**
 * Whether no day of a whole 400-year cycle of the calendar (after which days of the week and leap
 * years repeat) has all the rule's BY parts: BYMONTH=2;BYMONTHDAY=30 never occurs, and rrule, which
 * checks its end only on the starts it finds, would search for one until the year 9999, seconds of
 * CPU for each such line. BYDAY counts its numbered days as weekdayMatcher says, and BYSETPOS by
 * whether the period can hold that many starts.
 */
function neverOccurs(parts: Map<string, string>): boolean {
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
const CYCLE_DAYS = 146_097;
const CYCLE_START = Date.UTC(2000, 0, 1) / DAY;

/**
 * Whether a day (days since 1970) has all the rule's day parts (BYMONTH, BYDAY, BYMONTHDAY,
 * BYYEARDAY, BYWEEKNO by WKST); undefined when the rule has none.
 */
function dayMatcher(parts: ReadonlyMap<string, string>): ((day: number) => boolean) | undefined {
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

const HOUR_MS = 3_600_000;
/** Hours in a cycle of the calendar: an hourly, daily or weekly walk repeats itself after it. */
const CYCLE_HOURS = CYCLE_DAYS * 24;
const gcd = (a: number, b: number): number => (b ? gcd(b, a % b) : a);
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
const STEP_HOURS = new Map([
  ['HOURLY', 1],
  ['DAILY', 24],
  ['WEEKLY', 168],
]);
const hourOf = (hour: number) => ((hour % 24) + 24) % 24;

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
function weekLands(
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

/**
 * How dense a rule's starts must be: an expander (rrule here, ical.js in caldav/query.ts) walks
 * every step of the rule's FREQ (each hour of an hourly rule, or each of its BYHOUR values a day;
 * each day of a daily one) and checks it against the BY parts, so a rule whose starts are rare
 * makes it walk far for each. `FREQ=HOURLY;BYMONTH=2;BYMONTHDAY=29;BYHOUR=3;BYDAY=MO` (a Monday
 * 29 February comes every 28 to 40 years) takes up to 14,609 steps per start, and expanding it
 * over the years 1 to 9999 held a core for ten seconds. Such rules are refused when written
 * (services/series.ts readRecurrence), and a stored one is not walked (walkable).
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

/** The values of an EXDATE or RDATE line, as ical.js reads them (each with its TZID, if any). */
function readDates(line: string, fail: (why: string) => never): ICAL.Time[] {
  const values = line.slice(line.indexOf(':') + 1).split(',');
  const wrong = values.find((value) => !validValue(value));
  if (wrong !== undefined) fail(`${wrong.trim()} is not a date (and time) between the years 1000 and 9998.`);
  try {
    const property = ICAL.Property.fromString(line);
    const values = property.getValues() as unknown[];
    if (!values.length || !values.every((v) => v instanceof ICAL.Time)) fail('dates must be DATE or DATE-TIME values.');
    return values;
  } catch (err) {
    if (err instanceof RecurrenceError) throw err;
    return fail(`the dates cannot be read: ${err instanceof Error ? err.message : String(err)}`);
  }
}

/** An EXDATE or RDATE value as a wall-clock time in the event's zone. */
function wallClockOf(value: ICAL.Time, zone: EventZone, fail: (why: string) => never): Date {
  const reading = new Date(Date.UTC(value.year, value.month - 1, value.day, value.hour, value.minute, value.second));
  if (value.isDate) return reading;
  if (value.zone.tzid === 'UTC') return wallClockAt(reading, zone);
  // ical.js keeps a TZID it has no VTIMEZONE for on the value, leaving its zone floating.
  const tzid = (value as ICAL.Time & { timezone?: string }).timezone;
  if (!tzid || tzid === zone.name) return reading; // floating, or the event's own zone
  const other = eventZone(tzid);
  if (!other) return fail(`${tzid} is not a time zone.`);
  return wallClockAt(fromWallClock(reading, other).toJSDate(), zone);
}

/** The wall-clock reading in `zone` of an instant. */
export function wallClockAt(instant: Date, zone: EventZone): Date {
  const t = DateTime.fromJSDate(instant).setZone(zone.zone);
  return new Date(Date.UTC(t.year, t.month - 1, t.day, t.hour, t.minute, t.second));
}

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

/** A wall-clock time or an instant in RFC 5545's basic format: `20261201T190000`, `...Z`, or `20261201`. */
const basic = (date: Date, form: DateForm) => {
  const text = date.toISOString().replace(/[-:]/g, '').slice(0, 15);
  if (form === 'date') return text.slice(0, 8);
  return form === 'utc' ? `${text}Z` : text;
};
type DateForm = 'local' | 'utc' | 'date';

/** The EXDATE line that leaves out the occurrence starting at this wall-clock time. */
export function exdateLine(start: Date, zone: EventZone, allDay: boolean): string {
  return datesLines('EXDATE', [start], zone, allDay)[0];
}

/** Values per EXDATE or RDATE line as stored: 100 date-times stay within a line's 2,000 characters. */
const VALUES_PER_LINE = 100;

/**
 * Wall-clock dates as EXDATE or RDATE lines, in order, each once: with the event's TZID (the VTIMEZONE
 * an iCalendar export holds), in UTC for a zone that is a fixed offset, or as dates for an all-day one.
 */
function datesLines(name: 'EXDATE' | 'RDATE', dates: Iterable<Date>, zone: EventZone, allDay: boolean): string[] {
  const sorted = [...new Set([...dates].map((d) => d.getTime()))].sort((a, b) => a - b).map((ms) => new Date(ms));
  const form = datesForm(zone, allDay);
  const parameters = { date: ';VALUE=DATE', local: `;TZID=${zone.name}`, utc: '' };
  const prefix = `${name}${parameters[form]}:`;
  const value = (date: Date) =>
    form === 'utc' ? basic(fromWallClock(date, zone).toJSDate(), 'utc') : basic(date, form);
  const lines: string[] = [];
  for (let i = 0; i < sorted.length; i += VALUES_PER_LINE) {
    lines.push(
      prefix +
        sorted
          .slice(i, i + VALUES_PER_LINE)
          .map(value)
          .join(','),
    );
  }
  return lines;
}

/** How EXDATE and RDATE values are written for an event in `zone` (datesLines). */
function datesForm(zone: EventZone, allDay: boolean): DateForm {
  if (allDay) return 'date';
  return zone.zone instanceof IANAZone ? 'local' : 'utc';
}

/**
 * The lines as a series stores them: each rule as read (parts upper-cased, no parameters, no
 * spaces), then its EXDATE and RDATE values as wall-clock times in the event's zone, each once, in
 * order. Stored so, the dates keep naming the same occurrences when the zone or the all-day flag
 * changes (convertLines), and every later step reads the lines one way.
 */
export function canonicalLines(lines: readonly string[], zone: EventZone, allDay: boolean): string[] {
  const { rules, rdates, exdates } = parseRecurrence(lines, zone, allDay);
  return [
    ...rules.map((r) => r.text),
    ...datesLines(
      'EXDATE',
      [...exdates].map((ms) => new Date(ms)),
      zone,
      allDay,
    ),
    ...datesLines('RDATE', rdates, zone, allDay),
  ];
}

/**
 * Stored lines of a series whose zone or all-day flag changes: EXDATE and RDATE keep their wall-clock
 * reading (a deleted 18:00 occurrence stays deleted at 18:00 in the new zone); made all-day, a time
 * becomes its day, and made timed again, a day takes the series' start time (`startLocal`).
 */
export function convertLines(
  lines: readonly string[],
  from: { zone: EventZone; allDay: boolean },
  to: { zone: EventZone; allDay: boolean; startLocal: Date },
): string[] {
  const { rules, rdates, exdates } = parseRecurrence(lines, from.zone, from.allDay);
  const DAY = 86_400_000;
  const timeOfDay = ((to.startLocal.getTime() % DAY) + DAY) % DAY;
  const moved = (date: Date) => {
    if (to.allDay) return new Date(Math.floor(date.getTime() / DAY) * DAY);
    return from.allDay ? new Date(date.getTime() + timeOfDay) : date;
  };
  return [
    ...rules.map((r) => r.text),
    ...datesLines(
      'EXDATE',
      [...exdates].map((ms) => moved(new Date(ms))),
      to.zone,
      to.allDay,
    ),
    ...datesLines('RDATE', rdates.map(moved), to.zone, to.allDay),
  ];
}

/**
 * The lines of a series cut at the occurrence starting at `from` (wall-clock): `before` ends each
 * rule before it (UNTIL), `after` keeps the rules from there, a COUNT less the starts already had.
 * EXDATE and RDATE values go to the side their date falls on.
 */
export function splitLines(
  lines: readonly string[],
  zone: EventZone,
  dtstart: Date,
  allDay: boolean,
  from: Date,
): { before: string[]; after: string[] } {
  const { rules, rdates, exdates } = parseRecurrence(lines, zone, allDay);
  const last = new Date(from.getTime() - (allDay ? 86_400_000 : 1000));
  const until = allDay ? basic(last, 'date') : basic(fromWallClock(last, zone).toJSDate(), 'utc');
  const before: string[] = [];
  const after: string[] = [];
  for (const { rule, count, text, parts } of rules) {
    const alone: Recurrence = { rules: [{ rule, count, text, parts }], rdates: [], exdates: new Set() };
    const own = rule.origOptions.until ?? undefined;
    // Starts up to the cut, counted without iterating past it.
    const had = count === undefined ? 0 : expand(alone, dtstart, { until: last, limit: count }).starts.length;
    const over = (own !== undefined && own < from) || (count !== undefined && had >= count);
    if (over) {
      before.push(text); // ends before `from` already
      continue;
    }
    const others = text
      .slice('RRULE:'.length)
      .split(';')
      .filter((p) => !/^(COUNT|UNTIL)=/.test(p));
    before.push(`RRULE:${[...others, `UNTIL=${until}`].join(';')}`);
    const end = count !== undefined ? `COUNT=${count - had}` : /;?(UNTIL=[^;]*)/.exec(text)?.[1];
    after.push(`RRULE:${[...others, ...(end ? [end] : [])].join(';')}`);
  }
  const side = (date: Date) => (date < from ? before : after);
  const excluded = [...exdates].map((ms) => new Date(ms));
  for (const list of [before, after]) {
    list.push(
      ...datesLines(
        'EXDATE',
        excluded.filter((d) => side(d) === list),
        zone,
        allDay,
      ),
    );
    list.push(
      ...datesLines(
        'RDATE',
        rdates.filter((d) => side(d) === list),
        zone,
        allDay,
      ),
    );
  }
  return { before, after };
}

/**
 * The series' lines as an iCalendar VEVENT carries them with its DTSTART in `zone`: the rules as
 * read, UNTIL an instant (RFC 5545 requires UTC when DTSTART has a TZID), EXDATE and RDATE in the
 * event's own zone, whose VTIMEZONE the calendar holds, or as dates for an all-day series.
 */
export function calendarLines(lines: readonly string[], zone: EventZone, allDay: boolean): string[] {
  const { rules, rdates, exdates } = parseRecurrence(lines, zone, allDay);
  const out = rules.map(({ rule, count }) => {
    const options = { ...rule.origOptions, count: count ?? null, dtstart: null };
    let text = RRule.optionsToString(options).replace(/^RRULE:/, '');
    if (options.until && !allDay) {
      // rrule writes UNTIL as it holds it, the wall-clock reading; the instant it names is in `zone`.
      const instant = fromWallClock(options.until, zone).toJSDate();
      text = text.replace(/UNTIL=\d{8}T\d{6}Z/, `UNTIL=${basic(instant, 'utc')}`);
    } else if (options.until) text = text.replace(/UNTIL=(\d{8})T\d{6}Z/, 'UNTIL=$1');
    return `RRULE:${text}`;
  });
  const dated = (name: string, date: Date) => exdateLine(date, zone, allDay).replace(/^EXDATE/, name);
  return [
    ...out,
    ...[...exdates].sort((a, b) => a - b).map((ms) => dated('EXDATE', new Date(ms))),
    ...rdates.map((date) => dated('RDATE', date)),
  ];
}

/** Whether the series' rule gives a start at this wall-clock time (it may no longer, once changed). */
export function givesStart(recurrence: Recurrence, dtstart: Date, start: Date): boolean {
  const { starts } = expand(recurrence, dtstart, { after: new Date(start.getTime() - 1000), until: start, limit: 1 });
  return starts.length === 1 && starts[0].getTime() === start.getTime();
}

const DAY_MS = 86_400_000;
const dayOf = (date: Date) => Math.floor(date.getTime() / DAY_MS);

/** Rule parts that fix the days of the starts, whatever day DTSTART is; and those that fix their time. */
const FIXED_DAYS = ['BYDAY', 'BYMONTHDAY', 'BYYEARDAY', 'BYWEEKNO', 'BYSETPOS'];
const FIXED_TIMES = ['BYHOUR', 'BYMINUTE', 'BYSECOND'];

/**
 * How far a series' occurrences move when its start moves from `before` to `after` (wall-clock), its
 * rules unchanged: by as much, except the days when a rule fixes them (`BYDAY=TU` stays on
 * Tuesdays however the start moves) and the time of day when a rule fixes it (`BYHOUR`).
 */
export function shiftOf(recurrence: Recurrence, before: Date, after: Date): number {
  const delta = after.getTime() - before.getTime();
  const days = (dayOf(after) - dayOf(before)) * DAY_MS;
  const has = (parts: string[]) =>
    recurrence.rules.some(({ text }) => parts.some((part) => text.includes(`;${part}=`) || text.includes(`:${part}=`)));
  return (has(FIXED_DAYS) ? 0 : days) + (has(FIXED_TIMES) ? 0 : delta - days);
}

/**
 * The lines with every EXDATE and RDATE moved by `deltaMs`, and a rule's UNTIL with them (a date
 * UNTIL by the days the start of the series, `start`, moves), written in the event's zone.
 */
export function shiftLines(
  lines: readonly string[],
  zone: EventZone,
  allDay: boolean,
  start: Date,
  deltaMs: number,
): string[] {
  const { rules, rdates, exdates } = parseRecurrence(lines, zone, allDay);
  const moved = (ms: number) => new Date(ms + deltaMs);
  const days = dayOf(new Date(start.getTime() + deltaMs)) - dayOf(start);
  return [
    ...rules.map(({ text }) => shiftUntil(text, deltaMs, days)),
    ...datesLines('EXDATE', [...exdates].map(moved), zone, allDay),
    ...datesLines(
      'RDATE',
      rdates.map((date) => moved(date.getTime())),
      zone,
      allDay,
    ),
  ];
}

/** A rule's UNTIL moved by `deltaMs`, a date UNTIL by `days`, so that it ends where it did. */
function shiftUntil(line: string, deltaMs: number, days: number): string {
  return line.replace(/UNTIL=(\d{8})(T\d{6}Z?)?/, (_match, day: string, time: string | undefined) => {
    const reading = Date.UTC(
      +day.slice(0, 4),
      +day.slice(4, 6) - 1,
      +day.slice(6, 8),
      +(time?.slice(1, 3) ?? 0),
      +(time?.slice(3, 5) ?? 0),
      +(time?.slice(5, 7) ?? 0),
    );
    if (!time) return `UNTIL=${basic(new Date(reading + days * DAY_MS), 'date')}`;
    return `UNTIL=${basic(new Date(reading + deltaMs), time.endsWith('Z') ? 'utc' : 'local')}`;
  });
}
