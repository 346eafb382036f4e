// One VEVENT as a body of our API (with ical.js), read as lenient calendar readers read what other
// programs write: RFC 5545's rules are broken in common ways, and an event is refused only when it
// truly cannot be one (no start, a start that is no date); each refusal names the rule it broke,
// and each thing taken leniently is a remark in the summary (items.ts, ImportItem.remarks).
//
// Times: a TZID that is an IANA name (or ends in one, as globally unique TZIDs such as
// `/mozilla.org/20070129_1/America/New_York` do, or whose VTIMEZONE names one in X-LIC-LOCATION, or
// a Windows name that CLDR maps to one) becomes the event's zone; another TZID with its VTIMEZONE
// in the file is converted with it and the event kept in UTC (a series then cannot be, its rule
// being in wall-clock time); a TZID neither IANA's nor in the file, and a floating time, are read in
// the site's zone; UTC stays UTC. An all-day event ends the day before its DTEND (RFC 5545 ends are exclusive).
import { createHash } from 'node:crypto';
import ICAL from 'ical.js';
import { fullFormats } from 'ajv-formats/dist/formats.js';
import { escapeUTF8 } from 'entities';
import { DateTime } from 'luxon';
import { findIana } from 'windows-iana';
import { DATES_ZONE } from '../domain/import-sources.js';
import { eventZone } from '../lib/event-times.js';
import { maxLengthOf } from '../openapi.js';
import { firstLinks, type ImportItem, type ItemRef, type RefField } from '../domain/external-items.js';
import type { ImportLimits } from '../import/limits.js';
import { tidyLines } from '../lib/plain-text.js';
import { displayNameZones } from './zone-names.js';
import { ZONE_HORIZON } from './zone-bounds.js';

export interface EventRead {
  item: ImportItem;
  /** The venue (LOCATION), organizers (ORGANIZER) and categories (CATEGORIES) it names, keyed by name. */
  related: ImportItem[];
  sequence: number;
}

/**
 * The file's VTIMEZONEs by TZID, and `floating`: the IANA zone its dates and floating times are in
 * (its X-WR-TIMEZONE), or '' for the site's; `refused`: why those past the bounds of zone-bounds.ts
 * were not read, by TZID.
 */
export type Zones = Map<string, ICAL.Timezone> & { floating?: string; refused?: Map<string, string> };

/** The title of a VEVENT without SUMMARY (RFC 5545 does not require one), as calendar apps show it. */
export const NO_TITLE = '(No title)';

export function readEvent(block: string, zones: Zones, limits: ImportLimits): EventRead {
  const remarks: string[] = [];
  const component = parsed(block, remarks);
  const start = timeOf(component, 'dtstart');
  if (!start) throw new Error('It has no DTSTART (RFC 5545 3.6.1 requires one in a calendar without METHOD).');
  const title = fit(textOf(component, 'summary').trim());
  if (!title) remarks.push(`no SUMMARY: titled "${NO_TITLE}"`);
  const dated = outlookAllDay(component, start);
  const startAt = dated(reading(start, zones, remarks));
  const allDay = startAt.isDate;
  const endAt = dated(endOf(component, startAt, zones, remarks));
  const recurrence = recurrenceLines(component, zones, startAt, remarks);
  const zone = zoneOf(component, zones, startAt, recurrence, remarks);
  const status = statusOf(component);
  const url = textOf(component, 'url').trim();
  const body: Record<string, unknown> = {
    title: title || NO_TITLE,
    description: description(textOf(component, 'description'), remarks),
    start_date: allDay ? `${dateIn(startAt)} 00:00:00` : wallClock(startAt.instant, zone.name),
    end_date: allDay ? `${lastDay(startAt, endAt)} 23:59:59` : wallClock(endAt.instant, zone.name),
    timezone: zone.name,
    all_day: allDay,
    status,
    website: /^https?:\/\/\S+$/i.test(url) ? url : '',
  };
  const { related, refs } = linksOf(component, limits, remarks);
  const sequence = Number(component.getFirstPropertyValue('sequence') ?? 0) || 0;
  const uid = identity(component, remarks);
  const label = title || NO_TITLE;
  const recurrenceId = timeOf(component, 'recurrence-id');
  if (recurrenceId) {
    const occurrenceOf = occurrenceOfSeries(uid, recurrenceId, zones, zone);
    const externalId = `${uid}#${recurrenceId.toString()}`;
    const item: ImportItem = { kind: 'event', externalId, label, body, refs, remarks, occurrenceOf };
    return { item, related, sequence };
  }
  const item: ImportItem = { kind: 'event', externalId: uid, label, body: { ...body, recurrence }, refs, remarks };
  return { item, related, sequence };
}

/**
 * The event's zone: an all-day event's as this service writes it beside its dates, which carry none;
 * a series in a converted zone is read in the IANA zone that keeps its offsets, or refused.
 */
function zoneOf(
  component: ICAL.Component,
  zones: Zones,
  startAt: Reading,
  recurrence: string[],
  remarks: string[],
): Zone {
  const datesZone = textOf(component, DATES_ZONE.toLowerCase()).trim();
  const zone = startAt.isDate && eventZone(datesZone) ? { ...startAt.zone, name: datesZone } : startAt.zone;
  if (!recurrence.length || !zone.converted) return zone;
  // A series' rule is read in wall-clock time: it needs a zone of rules, not converted times.
  const same = zoneLike(zones.get(zone.tzid), startAt.date.year);
  if (!same) {
    throw new Error(
      `Its time zone ${zone.tzid} is not an IANA name, and no IANA zone keeps its offsets, which a recurring event needs: its rule is read in the zone's wall-clock time.`,
    );
  }
  remarks.push(`a TZID that is no IANA name: its series is read in ${same}, which keeps the offsets of its VTIMEZONE`);
  return { name: same, tzid: zone.tzid, converted: false };
}

/** The event's status: cancelled events leave the calendar's lists but keep their mapping; private ones stay private. */
function statusOf(component: ICAL.Component): 'draft' | 'private' | 'publish' {
  const status = String(component.getFirstPropertyValue('status') ?? '').toUpperCase();
  const privacy = String(component.getFirstPropertyValue('class') ?? '').toUpperCase();
  if (status === 'CANCELLED') return 'draft';
  if (privacy === 'PRIVATE' || privacy === 'CONFIDENTIAL') return 'private';
  return 'publish';
}

/** The venue (LOCATION), organizers (ORGANIZER) and categories (CATEGORIES) the event names, and its refs to them. */
function linksOf(
  component: ICAL.Component,
  limits: ImportLimits,
  remarks: string[],
): { related: ImportItem[]; refs: RefField[] } {
  const venue = place(component, remarks);
  const people = firstLinks(organizers(component, remarks), limits.maxLinks, 'ORGANIZER lines', remarks);
  const names = component
    .getAllProperties('categories')
    .flatMap((property) => property.getValues().map((value) => fit(String(value), maxLengthOf('TermFields', 'name'))))
    .filter(Boolean);
  const categories = firstLinks(
    [...new Map(names.map((name) => [name.toLowerCase(), named('category', name, { name, parent: 0 })])).values()],
    limits.maxLinks,
    'CATEGORIES',
    remarks,
  );
  const related = [...(venue ? [venue] : []), ...people, ...categories];
  const refs: RefField[] = [
    { field: 'venue', items: venue ? [refOf(venue)] : [] },
    { field: 'organizer', items: people.map(refOf) },
    { field: 'categories', items: categories.map(refOf) },
  ];
  return { related, refs };
}

/** Which series a changed occurrence (RECURRENCE-ID) belongs to, and which of its starts it replaces. */
function occurrenceOfSeries(
  uid: string,
  recurrenceId: ICAL.Time,
  zones: Zones,
  zone: Zone,
): NonNullable<ImportItem['occurrenceOf']> {
  const original = reading(recurrenceId, zones, []);
  return {
    series: { kind: 'event', externalId: uid },
    // In the override's own zone for now; ics-source.ts reads it in its series' zone.
    originalStart: original.isDate ? `${dateIn(original)} 00:00:00` : wallClock(original.instant, zone.name),
    ...(original.isDate ? {} : { instant: original.instant }),
    day: dateIn(original),
  };
}

/**
 * Outlook and Exchange write an all-day event as midnight to midnight in their zone, flagged
 * `X-MICROSOFT-CDO-ALLDAYEVENT:TRUE` (or `X-MICROSOFT-MSNCALENDAR-ALLDAYEVENT`), as calendar apps
 * read it: the days written are its days. Other readings are left as they are.
 */
function outlookAllDay(component: ICAL.Component, start: ICAL.Time): (r: Reading) => Reading {
  const flag = ['x-microsoft-cdo-alldayevent', 'x-microsoft-msncalendar-alldayevent'].some(
    (name) => String(component.getFirstPropertyValue(name) ?? '').toUpperCase() === 'TRUE',
  );
  const midnight = (time: ICAL.Time | undefined) =>
    !time || (time.hour === 0 && time.minute === 0 && time.second === 0);
  if (start.isDate || !flag || !midnight(start) || !midnight(timeOf(component, 'dtend'))) return (r) => r;
  return (r) => ({ ...r, isDate: true });
}

/** The start of a changed occurrence's original start in its series' zone (ics-source.ts). */
export function originalStartIn(instant: Date, zone: string): string {
  return wallClock(instant, zone);
}

/**
 * The VEVENT parsed, as written when ical.js reads it and each of its values; else line by line, a
 * line it cannot read (no colon, a value of the wrong type) left out with a remark, or, for
 * DTSTART, refused with its error.
 */
function parsed(block: string, remarks: string[]): ICAL.Component {
  const lines = block
    .split('\r\n')
    .map(lenient)
    .filter((line) => line);
  const read = (text: string) => {
    const component = new ICAL.Component(ICAL.parse(text) as unknown[]);
    // ical.js reads a value when it is asked for: ask for each, so that a wrong one shows here.
    for (const property of component.getAllProperties()) property.getValues();
    return component;
  };
  try {
    return read(lines.join('\r\n'));
  } catch {
    // Read again below, without the lines that cannot be read.
  }
  const kept = lines.filter((line) => {
    if (/^(?:BEGIN|END):/i.test(line)) return true;
    try {
      read(`BEGIN:VEVENT\r\n${line}\r\nEND:VEVENT`);
      return true;
    } catch (err) {
      const name = propertyName(line);
      const why = err instanceof Error ? err.message : String(err);
      if (name === 'DTSTART') {
        throw new Error(`Its DTSTART is not a date or a date-time (RFC 5545 3.3.4, 3.3.5): ${why}.`, { cause: err });
      }
      remarks.push(`a ${name || 'line'} that cannot be read (RFC 5545 3.1) was left out`);
      return false;
    }
  });
  return read(kept.join('\r\n'));
}

/** A line's property name, upper-cased ('' when it has none). */
const propertyName = (line: string) => /^[A-Za-z0-9-]+/.exec(line)?.[0].toUpperCase() ?? '';

/** Properties whose values may be dates; written `DTSTART:20220101` they are dates all the same. */
const DATED = new Set(['DTSTART', 'DTEND', 'RECURRENCE-ID', 'EXDATE', 'RDATE']);

/**
 * A line as lenient readers take it: a date property whose values are all 8 digits, without
 * VALUE=DATE, holds dates (ical.js would read `2022-01-01T::`, an invalid time); spaces and empty
 * parts inside a RRULE (`BYDAY=MO, TU`, a trailing `;`) go; an EXDATE or RDATE without values goes.
 */
function lenient(given: string): string {
  const line = closedQuote(given);
  const name = propertyName(line);
  if (name === 'RRULE') {
    const colon = line.indexOf(':');
    const parts = line
      .slice(colon + 1)
      .replace(/[ \t]+/g, '')
      .split(';');
    return `${line.slice(0, colon + 1)}${parts.filter(Boolean).join(';')}`;
  }
  if (!DATED.has(name)) return line;
  const colon = line.indexOf(':');
  if (colon < 0) return line;
  const params = line.slice(name.length, colon);
  const value = line.slice(colon + 1).trim();
  if ((name === 'EXDATE' || name === 'RDATE') && !value) return '';
  if (/VALUE=/i.test(params) || !/^[0-9]{8}(?:,[0-9]{8})*$/.test(value)) return line;
  return `${name}${params};VALUE=DATE:${value}`;
}

/**
 * Outlook sometimes closes a quoted TZID after the value (`DTSTART;TZID="W. Europe Standard
 * Time:20200609T090000"`): the quote is put back before the value's colon.
 */
function closedQuote(line: string): string {
  if (!line.endsWith('"')) return line;
  const open = line.lastIndexOf('"', line.length - 2);
  if (open < 0 || line.slice(0, open).includes(':')) return line;
  const inner = line.slice(open + 1, -1);
  const colon = inner.lastIndexOf(':');
  const value = inner.slice(colon + 1);
  if (colon < 0 || !/^[0-9]{8}(?:T[0-9]{6}Z?)?$/.test(value)) return line;
  return `${line.slice(0, open + 1)}${inner.slice(0, colon)}":${value}`;
}

/**
 * The UID, or where there is none (older exports), an identity made of what names the event, its
 * DTSTART, SUMMARY and RECURRENCE-ID, so that importing the file again finds the same event.
 */
function identity(component: ICAL.Component, remarks: string[]): string {
  const uid = textOf(component, 'uid').trim();
  if (uid) return uid;
  remarks.push('no UID (RFC 5545 3.8.4.7): identified by its DTSTART and SUMMARY');
  const part = (name: string) => component.getFirstProperty(name)?.toICALString() ?? '';
  const hash = createHash('sha256')
    .update([part('dtstart'), textOf(component, 'summary').trim(), part('recurrence-id')].join('\n'))
    .digest('hex');
  return `no-uid:${hash.slice(0, 32)}`;
}

/**
 * The end: DTEND, else DTSTART plus DURATION, else a date lasts that day and a time no time (RFC
 * 5545 3.6.1). An end before the start, or past what a date can be, is left out with a remark.
 */
function endOf(component: ICAL.Component, start: Reading, zones: Zones, remarks: string[]): Reading {
  const none = () => later(start, new ICAL.Duration({ days: start.isDate ? 1 : 0 }));
  const end = timeOf(component, 'dtend');
  const duration = component.getFirstPropertyValue('duration');
  let at: Reading | undefined;
  if (end) at = reading(end, zones, remarks);
  else if (duration instanceof ICAL.Duration) {
    if (duration.isNegative) {
      remarks.push('a negative DURATION (RFC 5545 3.8.2.5) was left out');
      return none();
    }
    at = later(start, duration);
  }
  if (!at) return none();
  if (!(at.instant.getUTCFullYear() <= 9998)) {
    remarks.push('an end past the year 9998 was left out');
    return none();
  }
  if (at.instant < start.instant && !(start.isDate && at.isDate)) {
    remarks.push('a DTEND before DTSTART (RFC 5545 3.8.2.2) was left out');
    return none();
  }
  return at;
}

/** The event's place: LOCATION, with GEO when it holds a latitude and a longitude. */
function place(component: ICAL.Component, remarks: string[]): ImportItem | undefined {
  const location = fit(textOf(component, 'location').trim());
  if (!location) return undefined;
  const geo = component.getFirstPropertyValue('geo');
  const [lat, lng] = Array.isArray(geo) && geo.length === 2 ? geo.map(Number) : [NaN, NaN];
  const valid = Math.abs(lat) <= 90 && Math.abs(lng) <= 180;
  if (geo !== null && !valid) remarks.push('a GEO that is no latitude and longitude (RFC 5545 3.8.1.6) was left out');
  // Apple's calendars, and this service's export, write the place's name on the first line and its
  // address on the next (`Blue Note Hall\n131 W 3rd St, New York`).
  const [name, ...rest] = location.split('\n').map((line) => line.trim());
  const address = rest.filter(Boolean).join(', ');
  return named('venue', name || location, {
    venue: name || location,
    ...(name && address ? { address } : {}),
    ...(valid ? { geo_lat: lat, geo_lng: lng } : {}),
  });
}

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
function recurrenceLines(component: ICAL.Component, zones: Zones, start: Reading, remarks: string[]): string[] {
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

/** A venue, organizer or category an event names, keyed by its name (any case). */
function named(kind: 'venue' | 'organizer' | 'category', name: string, body: Record<string, unknown>): ImportItem {
  return { kind, externalId: `${kind}:${name.toLowerCase()}`, label: name, body, refs: [] };
}

const refOf = (item: ImportItem): ItemRef => ({ kind: item.kind, externalId: item.externalId });

/**
 * The start plus a DURATION, its days as calendar days in the start's zone (RFC 5545, 3.3.6: P1D
 * across a change to summer time is 23 hours) and its time as elapsed time.
 */
function later(start: Reading, duration: ICAL.Duration): Reading {
  const days = duration.weeks * 7 + duration.days;
  const seconds = duration.hours * 3600 + duration.minutes * 60 + duration.seconds;
  // Floating times and dates are wall-clock readings kept as UTC; a converted zone has no rules here.
  const zone = start.zone.name && !start.zone.converted && !start.isDate ? start.zone.name : 'UTC';
  const at = DateTime.fromJSDate(start.instant, { zone }).plus({ days }).plus({ seconds });
  const date = { year: at.year, month: at.month, day: at.day };
  return { ...start, instant: at.isValid ? at.toJSDate() : new Date(NaN), date };
}

/**
 * A name cut to the 500 characters the API takes (openapi/components/schemas/Name.yaml), or to the
 * 200 of a category's (TermFields.yaml): a title, or a venue, organizer or category named by a long
 * LOCATION, CN or CATEGORIES, comes over shortened rather than costing its event.
 */
const fit = (name: string, max = 500) => Array.from(name).slice(0, max).join('').trim();

/** The longest description the API takes (openapi/components/schemas/Text.yaml). */
const MAX_TEXT = 65_535;

/** Plain text as the HTML our descriptions are, cut (with a remark) to what the API takes. */
function description(text: string, remarks: string[]): string {
  let given = text;
  let written = html(given);
  if (written.length > MAX_TEXT) remarks.push(`a DESCRIPTION longer than ${MAX_TEXT} characters was cut`);
  while (written.length > MAX_TEXT) {
    given = given.slice(0, Math.floor((given.length * MAX_TEXT) / written.length) - 1);
    written = html(given);
  }
  return written;
}

/** A property's first value as text ('' when it has none). */
function textOf(component: ICAL.Component, name: string): string {
  const value = component.getFirstPropertyValue(name);
  if (typeof value === 'string') return value;
  if (value === null) return '';
  return String(value);
}

function timeOf(component: ICAL.Component, name: string): ICAL.Time | undefined {
  const value = component.getFirstPropertyValue(name);
  if (value === null) return undefined;
  if (!(value instanceof ICAL.Time) || !Number.isFinite(value.toUnixTime())) {
    throw new Error(`Its ${name.toUpperCase()} is not a date or a date-time (RFC 5545 3.3.4, 3.3.5).`);
  }
  return value;
}

interface Zone {
  /** The event's zone as our API takes it: an IANA name, `UTC`, or '' for the site's. */
  name: string;
  tzid: string;
  /** The TZID is not an IANA name: times were converted to UTC with the file's VTIMEZONE. */
  converted: boolean;
}

/** A date and time as written. */
interface WallClock {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
}

interface Reading {
  instant: Date;
  zone: Zone;
  isDate: boolean;
  /** The date as written, for all-day values. */
  date: { year: number; month: number; day: number };
}

/** The instant a DATE or DATE-TIME value stands for, and the zone it was written in. */
function reading(time: ICAL.Time, zones: Zones, remarks: string[]): Reading {
  const date = { year: time.year, month: time.month, day: time.day };
  const fields = { ...date, hour: time.hour, minute: time.minute, second: time.second };
  const floating = (): Reading => {
    // In the calendar's zone (X-WR-TIMEZONE), else the site's when it is written (by the service, from '').
    const zone = zones.floating ?? '';
    const wall = Date.UTC(fields.year, fields.month - 1, fields.day, fields.hour, fields.minute, fields.second);
    return {
      instant: zone ? DateTime.fromObject(fields, { zone }).toJSDate() : new Date(wall),
      zone: { name: zone, tzid: '', converted: false },
      isDate: time.isDate,
      date,
    };
  };
  // ical.js keeps the TZID parameter as `timezone`; a UTC value has the UTC zone and no TZID.
  const zoneId = (time.zone as ICAL.Timezone | undefined)?.tzid;
  const tzid = (time as ICAL.Time & { timezone?: string }).timezone ?? (zoneId === 'UTC' ? 'UTC' : '');
  if (time.isDate || !tzid) return floating();
  if (tzid === 'UTC' || tzid === 'Z') {
    return {
      instant: new Date(time.toUnixTime() * 1000),
      zone: { name: 'UTC', tzid: 'UTC', converted: false },
      isDate: false,
      date,
    };
  }
  const vtimezone = zones.get(tzid);
  // ical.js would expand the file's zone to five years past the time: its bounds hold up to ZONE_HORIZON.
  if (vtimezone && !eventZone(tzid) && fields.year > ZONE_HORIZON)
    throw new Error(`Times in the zone ${tzid}, which the file gives, are read up to the year ${ZONE_HORIZON}.`);
  const iana = ianaName(tzid, vtimezone, fields);
  if (iana) {
    const at = DateTime.fromObject(fields, { zone: iana });
    return { instant: at.toJSDate(), zone: { name: iana, tzid, converted: false }, isDate: false, date };
  }
  // A zone not read for its cost refuses the events in it, unless its TZID is an IANA name (above).
  const refused = zones.refused?.get(tzid);
  if (refused) throw new Error(refused);
  if (!vtimezone) {
    remarks.push(
      `TZID "${tzid}" is neither an IANA name nor given in the file (RFC 5545 3.2.19): read in the site's zone`,
    );
    return floating();
  }
  const local = ICAL.Time.fromData(fields, vtimezone);
  return {
    instant: new Date(local.toUnixTime() * 1000),
    zone: { name: 'UTC', tzid, converted: true },
    isDate: false,
    date,
  };
}

/**
 * The IANA zone a TZID names: itself; the end of a globally unique one (RFC 5545 3.8.3.1,
 * `/mozilla.org/20070129_1/America/New_York`); its VTIMEZONE's X-LIC-LOCATION; the zone CLDR
 * gives a Windows name (Outlook's `W. Europe Standard Time`, windows-iana); or the zone a Windows
 * display name stands for (`(UTC+01:00) Amsterdam, Berlin, ...`, zone-names.ts). A name found other than
 * as written is taken only when it puts the time where the file's VTIMEZONE, if any, puts it.
 */
function ianaName(tzid: string, vtimezone: ICAL.Timezone | undefined, fields: WallClock): string | undefined {
  if (eventZone(tzid)) return tzid;
  const parts = tzid.split('/').filter(Boolean);
  const tails = parts.slice(1).map((_, i) => parts.slice(i + 1).join('/'));
  const location = vtimezone?.component.getFirstPropertyValue('x-lic-location');
  const candidates = [
    // Only region/city names: a last part alone (`CUSTOM`, `Berlin`) would be a guess.
    ...tails.filter((tail) => tail.includes('/')),
    ...(typeof location === 'string' ? [location] : []),
    ...findIana(tzid).slice(0, 1),
    ...displayNameZones(tzid, fields.year),
  ];
  const agrees = (iana: string) =>
    !vtimezone ||
    DateTime.fromObject(fields, { zone: iana }).toSeconds() === ICAL.Time.fromData(fields, vtimezone).toUnixTime();
  return candidates.find((name) => eventZone(name) && agrees(name));
}

/**
 * The first IANA zone (by name) whose time is that of the VTIMEZONE on the 1st and the 15th of
 * each month of the year: the same rules, for the series that starts that year.
 */
function zoneLike(vtimezone: ICAL.Timezone | undefined, year: number): string | undefined {
  if (!vtimezone) return undefined;
  const samples = Array.from({ length: 24 }, (_, i) => ({
    year,
    month: Math.floor(i / 2) + 1,
    day: i % 2 ? 15 : 1,
    hour: 12,
    minute: 0,
    second: 0,
  }));
  const seconds = samples.map((fields) => ICAL.Time.fromData(fields, vtimezone).toUnixTime());
  return Intl.supportedValuesOf('timeZone').find((name) =>
    samples.every((fields, i) => DateTime.fromObject(fields, { zone: name }).toSeconds() === seconds[i]),
  );
}

/** The wall-clock time of an instant in a zone ('' and floating: the instant's UTC reading). */
function wallClock(instant: Date, zone: string): string {
  const at = DateTime.fromJSDate(instant, { zone: zone && zone !== 'UTC' ? zone : 'UTC' });
  return at.toFormat('yyyy-MM-dd HH:mm:ss');
}

const pad = (n: number) => String(n).padStart(2, '0');
const dateIn = (r: Reading) => `${r.date.year}-${pad(r.date.month)}-${pad(r.date.day)}`;

/** The last day of an all-day event: the day before its (exclusive) end, at least its first day. */
function lastDay(start: Reading, end: Reading): string {
  const first = DateTime.fromObject(start.date, { zone: 'UTC' });
  const after = end.isDate
    ? DateTime.fromObject(end.date, { zone: 'UTC' })
    : DateTime.fromJSDate(end.instant, { zone: 'UTC' }).startOf('day').plus({ days: 1 });
  const last = after.minus({ days: 1 });
  return (last < first ? first : last).toFormat('yyyy-MM-dd');
}

/** Plain text as the HTML our descriptions are: escaped, paragraphs and line breaks kept. */
function html(text: string): string {
  // Lines as the export gives them back (lib/plain-text.ts): no spaces at their ends, a line of
  // spaces an empty one, so that a round trip through iCalendar leaves the text as it was.
  const paragraphs = tidyLines(text.replace(/\r\n?/g, '\n'))
    .split(/\n{2,}/)
    .map((paragraph) => paragraph.trim())
    .filter(Boolean);
  return paragraphs.map((paragraph) => `<p>${escapeUTF8(paragraph).split('\n').join('<br />\n')}</p>`).join('\n');
}

/** ORGANIZER;CN=Ana Ribeiro:mailto:ana@example.com as an organizer named Ana Ribeiro with that address. */
function organizers(component: ICAL.Component, remarks: string[]): ImportItem[] {
  return component.getAllProperties('organizer').flatMap((property) => {
    const address = unwrapped(String(property.getFirstValue() ?? ''));
    const cn = property.getParameter('cn');
    const name = fit((typeof cn === 'string' ? cn : '').trim() || address);
    if (!name) return [];
    // The address only when the API would take it as one (its own check, ajv-formats' email): a
    // wrong one costs the organizer its address, not the event its organizer.
    const email = address.length <= MAX_EMAIL && EMAIL.test(address) ? address : '';
    if (address && !email && address.includes('@')) {
      remarks.push('an ORGANIZER address that is no e-mail address was left out');
    }
    return [named('organizer', name, { organizer: name, ...(email ? { email } : {}) })];
  });
}

/** The longest e-mail address the API takes (openapi/components/schemas/Email.yaml). */
const MAX_EMAIL = 254;
const EMAIL = fullFormats.email as RegExp;

/** `mailto:ana@example.com` as written, also quoted or in angle brackets (`"mailto:..."`, `<...>`). */
function unwrapped(value: string): string {
  let text = value.trim();
  for (;;) {
    const before = text;
    if (/^["'<]/.test(text)) text = text.slice(1);
    if (/["'>]$/.test(text)) text = text.slice(0, -1);
    if (text.toLowerCase().startsWith('mailto:')) text = text.slice('mailto:'.length);
    // `ORGANIZER;CN=:mailto` (seen in real files): a scheme with no address is none.
    if (text.toLowerCase() === 'mailto') text = '';
    text = text.trim();
    if (text === before) return text;
  }
}
