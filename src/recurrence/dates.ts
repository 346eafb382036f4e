// Date values as a series' lines hold them: the years taken (RFC 5545's basic format has four digits
// for the year), a value checked as written, the basic format written back, and the wall-clock reading
// of an instant. Shared by reading (parse.ts), rewriting (rewrite.ts) and comparing readers
// (walk-problem.ts), so that all three agree on one form.
import { DateTime } from 'luxon';
import type { EventZone } from '../lib/event-times.js';

export const DAY = 86_400_000;

/** Dates and times are taken from year 1000 to 9998: RFC 5545's basic format has four digits for the year. */
const FIRST = Date.UTC(1000, 0, 1);
export const LAST = Date.UTC(9998, 11, 31, 23, 59, 59);
export const inRange = (date: Date) => date.getTime() >= FIRST && date.getTime() <= LAST;

/** A DATE or DATE-TIME value as written: ical.js would take a 13th month as the next year's first. */
const DATE_VALUE = /^(\d{4})(\d{2})(\d{2})(?:T(\d{2})(\d{2})(\d{2})Z?)?$/i;

export function validValue(text: string): boolean {
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

/** The wall-clock reading in `zone` of an instant. */
export function wallClockAt(instant: Date, zone: EventZone): Date {
  const t = DateTime.fromJSDate(instant).setZone(zone.zone);
  return new Date(Date.UTC(t.year, t.month - 1, t.day, t.hour, t.minute, t.second));
}

/** A wall-clock time or an instant in RFC 5545's basic format: `20261201T190000`, `...Z`, or `20261201`. */
export const basic = (date: Date, form: DateForm) => {
  const text = date.toISOString().replace(/[-:]/g, '').slice(0, 15);
  if (form === 'date') return text.slice(0, 8);
  return form === 'utc' ? `${text}Z` : text;
};
export type DateForm = 'local' | 'utc' | 'date';
