// Reads an iCalendar file (RFC 5545) with ical.js and turns each VEVENT into a body of our API,
// keyed by its UID (and, for an override of one occurrence, its RECURRENCE-ID).
//
// Each VEVENT is parsed on its own, so that a broken one is reported and skipped without losing the
// others. Times: a TZID that is an IANA name becomes the event's zone, as written; another TZID
// (Windows names, say) is converted with the file's VTIMEZONE and the event is kept in UTC (a
// series then cannot be, its rule being in wall-clock time); UTC stays UTC; a floating time is read
// in the site's zone. An all-day event ends the day before its DTEND (RFC 5545 ends are exclusive).
import ICAL from 'ical.js';
import { escapeUTF8 } from 'entities';
import { DateTime } from 'luxon';
import { eventZone } from '../lib/event-times.js';
import { type ImportItem, type ItemRef, refKey, type RefField, type Unreadable } from './items.js';

export const ICS_SOURCE = 'ics';

/** The events of the file, series before their overrides; and the VEVENTs that could not be read. */
export function readCalendar(text: string): { items: ImportItem[]; unreadable: Unreadable[] } {
  const { timezones, events } = components(text);
  const zones = new Map<string, ICAL.Timezone>();
  for (const block of timezones) {
    if (block.broken) continue;
    try {
      const zone = new ICAL.Timezone(new ICAL.Component(ICAL.parse(block.text) as unknown[]));
      zones.set(zone.tzid, zone);
    } catch {
      // A broken VTIMEZONE matters only to the events that use it, which then say so.
    }
  }
  const items: (ImportItem & { sequence: number })[] = [];
  const related = new Map<string, ImportItem>();
  const unreadable: Unreadable[] = [];
  events.forEach((block, index) => {
    try {
      if (block.broken) throw new Error(`It is cut short: ${block.broken}.`);
      const event = readEvent(block.text, zones);
      items.push(event.item);
      for (const item of event.related) if (!related.has(refKey(item))) related.set(refKey(item), item);
    } catch (err) {
      const uid = /^UID:(.*)$/im.exec(block.text)?.[1]?.trim();
      unreadable.push({
        kind: 'event',
        externalId: uid || `VEVENT #${index + 1}`,
        reason: err instanceof Error ? err.message : String(err),
      });
    }
  });
  const unique = withoutDuplicates(items, unreadable);
  // A changed occurrence is named by its start in its series' zone, which may not be its own.
  const zoneOf = new Map(unique.filter((i) => !i.occurrenceOf).map((i) => [i.externalId, String(i.body.timezone)]));
  for (const item of unique) {
    const of = item.occurrenceOf;
    const seriesZone = of && zoneOf.get(of.series.externalId);
    if (of?.instant && seriesZone !== undefined) of.originalStart = wallClock(of.instant, seriesZone);
  }
  // Overrides name their series: series first.
  unique.sort((a, b) => Number(Boolean(a.occurrenceOf)) - Number(Boolean(b.occurrenceOf)));
  return { items: [...related.values(), ...unique], unreadable };
}

/**
 * One VEVENT per UID (and RECURRENCE-ID): of several, the one with the highest SEQUENCE, the later
 * one in the file on a tie (RFC 5545, 3.8.7.4); the others are reported.
 */
function withoutDuplicates(items: (ImportItem & { sequence?: number })[], unreadable: Unreadable[]): ImportItem[] {
  const chosen = new Map<string, ImportItem & { sequence?: number }>();
  for (const item of items) {
    const other = chosen.get(item.externalId);
    if (other && (other.sequence ?? 0) > (item.sequence ?? 0)) {
      unreadable.push({
        kind: 'event',
        externalId: item.externalId,
        reason: 'Another VEVENT of this UID has a higher SEQUENCE.',
      });
      continue;
    }
    if (other)
      unreadable.push({
        kind: 'event',
        externalId: other.externalId,
        reason: 'A later VEVENT of this UID replaces it.',
      });
    chosen.set(item.externalId, item);
  }
  return [...chosen.values()].map(({ sequence: _sequence, ...item }) => item);
}

/** A VEVENT or VTIMEZONE of the file as text, or why it is not whole. */
interface Block {
  text: string;
  broken?: string;
}

/**
 * The VTIMEZONE and VEVENT blocks of the file, as text, lines unfolded. A block that another begins
 * in, or that the calendar's end closes, is broken (ical.js would read it without its END and
 * swallow what follows). Throws when the text is no iCalendar at all.
 */
function components(text: string): { timezones: Block[]; events: Block[] } {
  const lines = text
    .replace(/\r\n?/g, '\n')
    .replace(/\n[ \t]/g, '')
    .split('\n');
  if (!lines.some((line) => line.trim().toUpperCase() === 'BEGIN:VCALENDAR')) {
    throw new Error('This is not an iCalendar file (no BEGIN:VCALENDAR).');
  }
  const timezones: Block[] = [];
  const events: Block[] = [];
  const TOP = ['VEVENT', 'VTIMEZONE'];
  let current: { kind: string; lines: string[]; open: string[] } | undefined;
  const close = (broken?: string) => {
    if (!current) return;
    const block = { text: current.lines.join('\r\n'), ...(broken ? { broken } : {}) };
    (current.kind === 'VEVENT' ? events : timezones).push(block);
    current = undefined;
  };
  for (const line of lines) {
    const upper = line.trim().toUpperCase();
    const begins = upper.startsWith('BEGIN:') ? upper.slice(6) : undefined;
    const ends = upper.startsWith('END:') ? upper.slice(4) : undefined;
    if (current && begins && TOP.includes(begins)) close(`it has no END:${current.open[0]}`);
    if (current && ends === 'VCALENDAR') close(`it has no END:${current.open[0]}`);
    if (!current) {
      if (begins && TOP.includes(begins)) current = { kind: begins, lines: [line], open: [begins] };
      continue;
    }
    current.lines.push(line);
    if (begins) current.open.push(begins);
    else if (ends && current.open.includes(ends)) {
      while (current.open.pop() !== ends); // an inner component left open ends with its parent
      if (!current.open.length) close();
    }
  }
  close(current ? `it has no END:${current.open[0]}` : undefined);
  return { timezones, events };
}

/** The file's bytes as text, lines unfolded first: a fold may fall inside a character's bytes. */
export function unfoldedText(bytes: Uint8Array): string {
  const out = new Uint8Array(bytes.length);
  let n = 0;
  for (let i = 0; i < bytes.length; i++) {
    const crlf = bytes[i] === 13 && bytes[i + 1] === 10 ? 2 : bytes[i] === 10 ? 1 : 0;
    const next = bytes[i + crlf];
    if (crlf && (next === 32 || next === 9)) {
      i += crlf; // the line break and the one space or tab after it
      continue;
    }
    out[n++] = bytes[i];
  }
  return new TextDecoder().decode(out.subarray(0, n));
}

/**
 * The event, and the venue (LOCATION), organizers (ORGANIZER) and categories (CATEGORIES) it names,
 * as items of their own keyed by name: imported once, found by name when they exist here already.
 */
function readEvent(
  block: string,
  zones: Map<string, ICAL.Timezone>,
): { item: ImportItem & { sequence: number }; related: ImportItem[] } {
  const component = new ICAL.Component(ICAL.parse(block) as unknown[]);
  const uid = textOf(component, 'uid');
  if (!uid) throw new Error('It has no UID.');
  const title = textOf(component, 'summary').trim();
  if (!title) throw new Error('It has no SUMMARY (a title is required).');
  const start = timeOf(component, 'dtstart');
  if (!start) throw new Error('It has no DTSTART.');
  const startAt = reading(start, zones);
  const allDay = start.isDate;
  const end = timeOf(component, 'dtend');
  const duration = component.getFirstPropertyValue('duration');
  const endAt = end
    ? reading(end, zones)
    : duration instanceof ICAL.Duration
      ? later(startAt, duration)
      : // No end: a date lasts that day, a time lasts no time (RFC 5545, 3.6.1).
        later(startAt, new ICAL.Duration({ days: allDay ? 1 : 0 }));
  const zone = startAt.zone;
  const recurrence = ['rrule', 'exdate', 'rdate'].flatMap((name) =>
    component.getAllProperties(name).map((property) => property.toICALString()),
  );
  if (recurrence.length && zone.converted) {
    throw new Error(`Its time zone ${zone.tzid} is not an IANA name, which a recurring event needs.`);
  }
  const status = String(component.getFirstPropertyValue('status') ?? '').toUpperCase();
  const privacy = String(component.getFirstPropertyValue('class') ?? '').toUpperCase();
  const location = fit(textOf(component, 'location').trim());
  const geo = component.getFirstPropertyValue('geo');
  const url = textOf(component, 'url').trim();
  const body: Record<string, unknown> = {
    title,
    description: html(textOf(component, 'description')),
    start_date: allDay ? `${dateIn(startAt)} 00:00:00` : wallClock(startAt.instant, zone.name),
    end_date: allDay ? `${lastDay(startAt, endAt)} 23:59:59` : wallClock(endAt.instant, zone.name),
    timezone: zone.name,
    all_day: allDay,
    // Cancelled events leave the calendar's lists but keep their mapping; private ones stay private.
    status:
      status === 'CANCELLED' ? 'draft' : privacy === 'PRIVATE' || privacy === 'CONFIDENTIAL' ? 'private' : 'publish',
    website: /^https?:\/\/\S+$/i.test(url) ? url : '',
  };
  const venue = location
    ? named('venue', location, {
        venue: location,
        ...(Array.isArray(geo) && geo.length === 2 ? { geo_lat: Number(geo[0]), geo_lng: Number(geo[1]) } : {}),
      })
    : undefined;
  const people = organizers(component);
  const names = component
    .getAllProperties('categories')
    .flatMap((property) => property.getValues().map((value) => fit(String(value))))
    .filter(Boolean);
  const categories = [
    ...new Map(names.map((name) => [name.toLowerCase(), named('category', name, { name, parent: 0 })])).values(),
  ];
  const related = [...(venue ? [venue] : []), ...people, ...categories];
  const refs: RefField[] = [
    { field: 'venue', items: venue ? [refOf(venue)] : [] },
    { field: 'organizer', items: people.map(refOf) },
    { field: 'categories', items: categories.map(refOf) },
  ];
  const sequence = Number(component.getFirstPropertyValue('sequence') ?? 0) || 0;
  const recurrenceId = timeOf(component, 'recurrence-id');
  if (recurrenceId) {
    const original = reading(recurrenceId, zones);
    const item: ImportItem & { sequence: number } = {
      sequence,
      kind: 'event',
      externalId: `${uid}#${recurrenceId.toString()}`,
      label: title,
      body,
      refs,
      occurrenceOf: {
        series: { kind: 'event', externalId: uid },
        // In the override's own zone for now; readCalendar reads it in its series' zone.
        originalStart: original.isDate ? `${dateIn(original)} 00:00:00` : wallClock(original.instant, zone.name),
        ...(original.isDate ? {} : { instant: original.instant }),
      },
    };
    return { item, related };
  }
  return {
    item: { kind: 'event', externalId: uid, label: title, body: { ...body, recurrence }, refs, sequence },
    related,
  };
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
  if (duration.isNegative) throw new Error('Its DURATION is negative.');
  const days = duration.weeks * 7 + duration.days;
  const seconds = duration.hours * 3600 + duration.minutes * 60 + duration.seconds;
  // Floating times and dates are wall-clock readings kept as UTC; a converted zone has no rules here.
  const zone = start.zone.name && !start.zone.converted && !start.isDate ? start.zone.name : 'UTC';
  const at = DateTime.fromJSDate(start.instant, { zone }).plus({ days }).plus({ seconds });
  const date = { year: at.year, month: at.month, day: at.day };
  return { ...start, instant: at.toJSDate(), date };
}

/**
 * A name cut to the 500 characters the API takes (openapi/components/schemas/Name.yaml): a venue,
 * organizer or category named by a long LOCATION, CN or CATEGORIES comes over shortened rather than
 * costing its event.
 */
const fit = (name: string) => Array.from(name).slice(0, 500).join('').trim();

const textOf = (component: ICAL.Component, name: string) => {
  const value = component.getFirstPropertyValue(name);
  return typeof value === 'string' ? value : value === null ? '' : String(value);
};

function timeOf(component: ICAL.Component, name: string): ICAL.Time | undefined {
  const value = component.getFirstPropertyValue(name);
  if (value === null) return undefined;
  if (!(value instanceof ICAL.Time)) throw new Error(`Its ${name.toUpperCase()} is not a date or a date-time.`);
  return value;
}

interface Zone {
  /** The event's zone as our API takes it: an IANA name, `UTC`, or '' for the site's. */
  name: string;
  tzid: string;
  /** The TZID is not an IANA name: times were converted to UTC with the file's VTIMEZONE. */
  converted: boolean;
}

interface Reading {
  instant: Date;
  zone: Zone;
  isDate: boolean;
  /** The date as written, for all-day values. */
  date: { year: number; month: number; day: number };
}

/** The instant a DATE or DATE-TIME value stands for, and the zone it was written in. */
function reading(time: ICAL.Time, zones: Map<string, ICAL.Timezone>): Reading {
  const date = { year: time.year, month: time.month, day: time.day };
  const fields = { ...date, hour: time.hour, minute: time.minute, second: time.second };
  // ical.js keeps the TZID parameter as `timezone`; a UTC value has the UTC zone and no TZID.
  const zoneId = (time.zone as ICAL.Timezone | undefined)?.tzid;
  const tzid = (time as ICAL.Time & { timezone?: string }).timezone ?? (zoneId === 'UTC' ? 'UTC' : '');
  if (time.isDate || !tzid) {
    // Floating: read in the site's zone when it is written (by the service, from '').
    return {
      instant: new Date(Date.UTC(fields.year, fields.month - 1, fields.day, fields.hour, fields.minute, fields.second)),
      zone: { name: '', tzid: '', converted: false },
      isDate: time.isDate,
      date,
    };
  }
  if (tzid === 'UTC' || tzid === 'Z') {
    return {
      instant: new Date(time.toUnixTime() * 1000),
      zone: { name: 'UTC', tzid: 'UTC', converted: false },
      isDate: false,
      date,
    };
  }
  const iana = eventZone(tzid);
  if (iana) {
    const at = DateTime.fromObject(fields, { zone: tzid });
    return { instant: at.toJSDate(), zone: { name: tzid, tzid, converted: false }, isDate: false, date };
  }
  const vtimezone = zones.get(tzid);
  if (!vtimezone) throw new Error(`Its time zone ${tzid} is neither an IANA name nor given in the file.`);
  const local = ICAL.Time.fromData(fields, vtimezone);
  return {
    instant: new Date(local.toUnixTime() * 1000),
    zone: { name: 'UTC', tzid, converted: true },
    isDate: false,
    date,
  };
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
  const paragraphs = text
    .replace(/\r\n?/g, '\n')
    .split(/\n{2,}/)
    .map((paragraph) => paragraph.trim())
    .filter(Boolean);
  return paragraphs.map((paragraph) => `<p>${escapeUTF8(paragraph).split('\n').join('<br />\n')}</p>`).join('\n');
}

/** ORGANIZER;CN=Ana Ribeiro:mailto:ana@example.com as an organizer named Ana Ribeiro with that address. */
function organizers(component: ICAL.Component): ImportItem[] {
  return component.getAllProperties('organizer').flatMap((property) => {
    const address = String(property.getFirstValue() ?? '')
      .replace(/^mailto:/i, '')
      .trim();
    const cn = property.getParameter('cn');
    const name = fit((typeof cn === 'string' ? cn : '').trim() || address);
    if (!name) return [];
    const email = /^[^\s@]+@[^\s@]+$/.test(address) ? address : '';
    return [named('organizer', name, { organizer: name, ...(email ? { email } : {}) })];
  });
}
