// A series' lines written anew: as stored (canonicalLines), kept naming the same occurrences when the
// zone or the all-day flag changes (convertLines) or the start moves (shiftOf, shiftLines), cut at an
// occurrence (splitLines), an EXDATE added (exdateLine), and as an iCalendar VEVENT carries them
// (calendarLines). Each reads the lines through parse.ts and writes dates in dates.ts's basic format.
import rrulePackage from 'rrule';
import { IANAZone } from 'luxon';
import { type EventZone, fromWallClock } from '../lib/event-times.js';
import { basic, type DateForm } from './dates.js';
import { expand } from './expand.js';
import { parseRecurrence, type Recurrence } from './parse.js';

// rrule's package has no ES module exports Node can read by name.
const { RRule } = rrulePackage;

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
