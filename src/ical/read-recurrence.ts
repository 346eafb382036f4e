// An event's RRULE, EXDATE and RDATE as the API's `recurrence` lines (openapi/components/schemas/
// Recurrence.yaml): rules as written, dates in the zone the API reads them in, packed many to a line.
import ICAL from 'ical.js';
import { type Reading, reading, type Zones, wallClock } from './zones.js';

/** The longest line of a recurrence the API takes (openapi/components/schemas/Recurrence.yaml). */
const MAX_LINE = 2000;
/** ... and the most lines. */
const MAX_LINES = 100;

/**
 * RRULE, EXDATE and RDATE as the API takes them: the rules as written, the dates packed many to a
 * line (as the API stores them), so that a series with hundreds of EXDATE lines fits the document's
 * 100 lines of 2,000 characters. An RDATE period counts from its start; EXDATEs without a rule or
 * RDATE exclude nothing (RFC 5545 3.8.5.1) and are left out.
 */
export function recurrenceLines(component: ICAL.Component, zones: Zones, start: Reading, remarks: string[]): string[] {
  const rules = component.getAllProperties('rrule').map((property) => property.toICALString());
  const rdates = datesOf(component, 'rdate', zones, start, remarks);
  let exdates = datesOf(component, 'exdate', zones, start, remarks);
  if (exdates.length && !rules.length && !rdates.length) {
    remarks.push('EXDATE without RRULE or RDATE (RFC 5545 3.8.5.1) was left out');
    exdates = [];
  }
  const lines = [...rules, ...packed(exdates), ...packed(rdates)];
  if (lines.length > MAX_LINES) {
    throw new Error(
      `Its RRULE, EXDATE and RDATE values fill ${lines.length} lines of ${MAX_LINE} characters, more than the ${MAX_LINES} the API stores (openapi/components/schemas/Recurrence.yaml).`,
    );
  }
  return lines;
}

/**
 * Each EXDATE or RDATE value as a line of its own, in a form the API reads: its TZID as the IANA
 * zone it names (Outlook writes `TZID=Eastern Standard Time`, which the API does not know), in UTC
 * when its zone has no IANA name, a date for an all-day series (Exchange writes its midnights), a
 * date of a series with times at its time of day (as calendar apps read `EXDATE:20200116` there),
 * and an RDATE period as its start.
 */
function datesOf(
  component: ICAL.Component,
  name: 'exdate' | 'rdate',
  zones: Zones,
  start: Reading,
  remarks: string[],
): string[] {
  const upper = name.toUpperCase();
  const allDay = start.isDate;
  // The series' time of day, `HHmmss`, in its zone ('' floating: as written; converted: UTC).
  const clock = wallClock(start.instant, start.zone.name).slice(11).replaceAll(':', '');
  const atClock = (date: string) => {
    remarks.push(`an ${upper} date of a series with times was taken at the series' time of day`);
    const zone = start.zone.name;
    if (zone === '') return `${upper}:${date}T${clock}`;
    return zone === 'UTC' ? `${upper}:${date}T${clock}Z` : `${upper};TZID=${zone}:${date}T${clock}`;
  };
  return component.getAllProperties(name).flatMap((property) =>
    property.getValues().map((value: unknown) => {
      let time = value as ICAL.Time;
      if (value instanceof ICAL.Period) {
        remarks.push('RDATE periods were taken as their starts');
        time = value.start;
      }
      const at = reading(time, zones, []);
      const written = wallClockOf(at.date, time);
      if (allDay) return `${upper};VALUE=DATE:${written.slice(0, 8)}`;
      if (time.isDate) return atClock(written.slice(0, 8));
      if (at.zone.name === '') return `${upper}:${written}`;
      if (at.zone.name === 'UTC') return `${upper}:${utcBasic(at.instant)}`;
      return `${upper};TZID=${at.zone.name}:${written}`;
    }),
  );
}

/** A value's date and time as written, in RFC 5545's basic form (`20270118T000000`). */
function wallClockOf(date: Reading['date'], time: ICAL.Time): string {
  const two = (n: number) => String(n).padStart(2, '0');
  return `${date.year}${two(date.month)}${two(date.day)}T${two(time.hour)}${two(time.minute)}${two(time.second)}`;
}

/** An instant in RFC 5545's basic UTC form (`20270118T050000Z`). */
const utcBasic = (instant: Date) => `${instant.toISOString().replace(/[-:]/g, '').slice(0, 15)}Z`;

/** Date lines of one property and parameters joined, values comma-separated, up to MAX_LINE characters. */
function packed(lines: string[]): string[] {
  const out: string[] = [];
  let prefix = '';
  let current = '';
  for (const line of lines) {
    // Date values hold no colon; a quoted TZID may.
    const colon = line.lastIndexOf(':');
    const head = line.slice(0, colon);
    const value = line.slice(colon + 1);
    if (current && head === prefix && current.length + 1 + value.length <= MAX_LINE) current += `,${value}`;
    else {
      if (current) out.push(current);
      prefix = head;
      current = line;
    }
  }
  if (current) out.push(current);
  return out;
}
