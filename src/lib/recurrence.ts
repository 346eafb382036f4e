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
import { eventZone, type EventZone, fromWallClock } from './event-times.js';

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
  rules: { rule: Rule; count?: number }[];
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
    const name = (colon < 0 ? text : text.slice(0, colon)).split(';')[0].toUpperCase();
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

function readRule(value: string, zone: EventZone, fail: (why: string) => never) {
  const parts = new Map<string, string>();
  for (const part of value.split(';')) {
    const [key, val = ''] = part.split('=', 2);
    const upper = key.trim().toUpperCase();
    if (!RULE_PARTS.has(upper)) fail(`${key || '(empty)'} is not a part of an RFC 5545 rule.`);
    if (parts.has(upper)) fail(`${upper} is given twice.`);
    parts.set(upper, val.trim().toUpperCase());
  }
  const freq = parts.get('FREQ');
  if (!freq) fail('the rule needs FREQ.');
  if (!FREQUENCIES.has(freq)) fail('FREQ must be HOURLY, DAILY, WEEKLY, MONTHLY or YEARLY.');
  if (parts.has('COUNT') && parts.has('UNTIL')) fail('COUNT and UNTIL may not both be given.');
  for (const key of ['COUNT', 'INTERVAL']) {
    const n = parts.get(key);
    if (n !== undefined && !/^[1-9]\d{0,5}$/.test(n)) fail(`${key} must be a whole number from 1 to 999999.`);
  }
  const rule = [...parts].map(([key, val]) => `${key}=${val}`).join(';');
  try {
    ICAL.Recur.fromString(rule); // refuses values out of range (BYHOUR=25, BYDAY=XX, ...)
    const options = RRule.parseString(rule);
    const until = parts.get('UNTIL');
    // UNTIL with Z is an instant, read in the event's zone; without, a wall-clock time or a date.
    if (until?.endsWith('Z') && options.until) options.until = wallClockAt(options.until, zone);
    // A date as UNTIL includes that whole day.
    if (until && !until.includes('T') && options.until) options.until = new Date(options.until.getTime() + 86_399_000);
    return { rule: new RRule({ ...options, dtstart: null, count: null }), count: options.count ?? undefined };
  } catch (err) {
    return fail(`the rule cannot be read: ${err instanceof Error ? err.message : String(err)}`);
  }
}

/** The values of an EXDATE or RDATE line, as ical.js reads them (each with its TZID, if any). */
function readDates(line: string, fail: (why: string) => never): ICAL.Time[] {
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
  for (const { rule, count } of recurrence.rules) {
    const bound = new RRule({ ...rule.origOptions, dtstart, count: null });
    // DTSTART is the first of COUNT even when the rule would not give it.
    let left = count === undefined ? Infinity : count - (matches(bound, dtstart) ? 0 : 1);
    let taken = 0;
    bound.all((date) => {
      if (left-- <= 0) return false;
      // Past the window, or the limit reached with starts of this rule alone: more may follow.
      if (date > until || taken > limit) {
        ended = false;
        return false;
      }
      if (!after || date > after) taken++;
      take(date);
      return true;
    });
  }
  for (const date of recurrence.rdates) {
    if (date < dtstart) continue;
    if (date > until) ended = false;
    else take(date);
  }
  const starts = [...found].sort((a, b) => a - b).map((ms) => new Date(ms));
  if (starts.length > limit) {
    return { starts: starts.slice(0, limit), through: starts[limit - 1], ended: false };
  }
  return { starts, through: until, ended };
}

const matches = (rule: Rule, date: Date) => rule.between(date, date, true).length > 0;

/** A wall-clock time or an instant in RFC 5545's basic format: `20261201T190000`, `...Z`, or `20261201`. */
const basic = (date: Date, form: 'local' | 'utc' | 'date') => {
  const text = date.toISOString().replace(/[-:]/g, '').slice(0, 15);
  return form === 'date' ? text.slice(0, 8) : form === 'utc' ? `${text}Z` : text;
};

/** The EXDATE line that leaves out the occurrence starting at this wall-clock time. */
export function exdateLine(start: Date, zone: EventZone, allDay: boolean): string {
  if (allDay) return `EXDATE;VALUE=DATE:${basic(start, 'date')}`;
  if (zone.zone instanceof IANAZone) return `EXDATE;TZID=${zone.name}:${basic(start, 'local')}`;
  return `EXDATE:${basic(fromWallClock(start, zone).toJSDate(), 'utc')}`;
}

/**
 * The lines of a series cut at the occurrence starting at `from` (wall-clock): `before` ends each
 * rule before it (UNTIL), `after` keeps the rules from there, a COUNT less the starts already had.
 * EXDATE and RDATE lines go to both; outside its own dates each is without effect.
 */
export function splitLines(
  lines: readonly string[],
  zone: EventZone,
  dtstart: Date,
  allDay: boolean,
  from: Date,
): { before: string[]; after: string[] } {
  const last = new Date(from.getTime() - (allDay ? 86_400_000 : 1000));
  const until = allDay ? basic(last, 'date') : basic(fromWallClock(last, zone).toJSDate(), 'utc');
  const before: string[] = [];
  const after: string[] = [];
  for (const line of lines) {
    const colon = line.indexOf(':');
    if (line.slice(0, colon).trim().toUpperCase() !== 'RRULE') {
      before.push(line);
      after.push(line);
      continue;
    }
    const alone = parseRecurrence([line], zone, allDay);
    const later = expand(alone, dtstart, { after: last, until: END_OF_TIME, limit: 1 }).starts.length > 0;
    if (!later) {
      before.push(line); // ends before `from` already
      continue;
    }
    const parts = line.slice(colon + 1).split(';');
    const bound = (key: string) => parts.find((p) => p.toUpperCase().startsWith(`${key}=`))?.slice(key.length + 1);
    const others = parts.filter((p) => !/^(COUNT|UNTIL)=/i.test(p));
    before.push(`RRULE:${[...others, `UNTIL=${until}`].join(';')}`);
    const count = bound('COUNT');
    const had = count ? expand(alone, dtstart, { until: last, limit: Number(count) }).starts.length : 0;
    const end = count ? `COUNT=${Number(count) - had}` : bound('UNTIL') && `UNTIL=${bound('UNTIL')}`;
    after.push(`RRULE:${[...others, ...(end ? [end] : [])].join(';')}`);
  }
  return { before, after };
}

const END_OF_TIME = new Date(Date.UTC(9999, 11, 31));

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

/** The lines with every EXDATE and RDATE moved by `deltaMs`, written in the event's zone; rules as they are. */
export function shiftLines(lines: readonly string[], zone: EventZone, allDay: boolean, deltaMs: number): string[] {
  const { rdates, exdates } = parseRecurrence(lines, zone, allDay);
  const dated = (name: string, ms: number) => exdateLine(new Date(ms + deltaMs), zone, allDay).replace(/^EXDATE/, name);
  const rules = lines.filter((line) => /^\s*RRULE[;:]/i.test(line)).map((line) => shiftUntil(line, deltaMs));
  return [
    ...rules,
    ...[...exdates].sort((a, b) => a - b).map((ms) => dated('EXDATE', ms)),
    ...rdates.map((date) => dated('RDATE', date.getTime())),
  ];
}

/** A rule's UNTIL moved by `deltaMs` (a date by as many whole days), so that it ends where it did. */
function shiftUntil(line: string, deltaMs: number): string {
  return line.replace(/UNTIL=(\d{8})(T\d{6}Z?)?/i, (_match, day: string, time: string | undefined) => {
    const reading = Date.UTC(
      +day.slice(0, 4),
      +day.slice(4, 6) - 1,
      +day.slice(6, 8),
      +(time?.slice(1, 3) ?? 0),
      +(time?.slice(3, 5) ?? 0),
      +(time?.slice(5, 7) ?? 0),
    );
    if (!time) return `UNTIL=${basic(new Date(reading + Math.round(deltaMs / 86_400_000) * 86_400_000), 'date')}`;
    return `UNTIL=${basic(new Date(reading + deltaMs), time.endsWith('Z') || time.endsWith('z') ? 'utc' : 'local')}`;
  });
}
