// A series' RFC 5545 lines (`RRULE:`, `EXDATE:`, `RDATE:`, as Google Calendar takes them), read and
// checked (docs/decisions.md, "Recurring events"): each rule's parts, its limits, and whether some day
// has all its BY parts (can-occur.ts); EXDATE and RDATE values as wall-clock times in the event's zone.
// Every other job of this folder (expand.ts, rewrite.ts, cost.ts) starts from what parseRecurrence
// reads, so the lines are read one way.
//
// Wall-clock times are Dates whose UTC fields hold the reading, as the `*_local` columns do.
// `rrule` expands; ical.js, which parses values more strictly, checks each rule first.
import ICAL from 'ical.js';
import rrulePackage from 'rrule';
import { eventZone, type EventZone, fromWallClock } from '../lib/event-times.js';
import { neverOccurs } from './can-occur.js';
import { inRange, validValue, wallClockAt } from './dates.js';

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
export function readParts(value: string, fail: (why: string) => never): Map<string, string> {
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

/** The largest COUNT a rule may have (readRule). */
const MAX_COUNT = 5000;

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
