// An event's time zone and times: inputs read in the event's zone (an IANA name or `UTC+H[:MM]`),
// kept both as wall-clock times in that zone and as UTC instants, so that neither drifts across a
// daylight-saving change. Luxon does all zone arithmetic.
import { DateTime, FixedOffsetZone, IANAZone, type Zone } from 'luxon';
import { DAY_MS, firstOccurrence, hasOffset, parseDateInput, zoneOffset } from './dates.js';
import { trimEndChar } from './text.js';

export interface EventZone {
  /** As stored and shown: the IANA name, or `UTC+5`, `UTC-3:30`. */
  name: string;
  zone: Zone;
}

/** The zone of an event whose stored zone name no longer resolves. */
export const UTC_ZONE: EventZone = { name: 'UTC', zone: FixedOffsetZone.utcInstance };

// `UTC+5`, `UTC+05:30`, `UTC+0530`, and WordPress's own manual offsets in decimal hours
// (`UTC+5.5`, `UTC-9.5`, `UTC+5.75`), which the modelled service takes and shows as written.
const OFFSET = /^UTC\s*([+-])\s*(\d{1,2})(?::?(\d{2})|\.(\d{1,2}))?$/i;

// Every event read resolves its stored zone name; resolving means asking Intl, so each name is
// resolved once. Only valid names are kept, so the cache holds at most the zones in use.
const resolved = new Map<string, EventZone>();

/** The zone named by a `timezone` input, or undefined when it names none. */
export function eventZone(name: string): EventZone | undefined {
  let zone = resolved.get(name);
  if (!zone) {
    zone = resolveZone(name);
    if (zone) resolved.set(name, zone);
  }
  return zone;
}

function resolveZone(name: string): EventZone | undefined {
  const text = name.trim();
  if (/^(UTC|GMT|Z)$/i.test(text)) return { name: 'UTC', zone: FixedOffsetZone.utcInstance };
  const offset = OFFSET.exec(text);
  if (offset) return offsetZone(offset);
  // Only names in the IANA database; Luxon would also take offsets spelled in other ways.
  if (/^[A-Za-z][A-Za-z0-9_+\-/]*$/.test(text) && IANAZone.isValidZone(text))
    return { name: text, zone: IANAZone.create(text) };
  return undefined;
}

/** The fixed-offset zone an OFFSET match names, or undefined when no place has that offset. */
function offsetZone(offset: RegExpExecArray): EventZone | undefined {
  const hours = Number(offset[2]);
  // at(): the groups are optional
  const decimal = offset.at(4) === undefined ? undefined : trimEndChar(offset[4], '0');
  // A decimal must name whole minutes: .5, .25, .75 (and .1, six minutes), not .33.
  const minutes = decimal ? Math.round(Number(`0.${decimal}`) * 60 * 1000) / 1000 : Number(offset.at(3) ?? 0);
  if (hours > 14 || minutes > 59 || hours * 60 + minutes > 14 * 60 || !Number.isInteger(minutes)) return undefined;
  const sign = offset[1] === '-' ? -1 : 1;
  const label = decimal
    ? `UTC${offset[1]}${hours}.${decimal}`
    : `UTC${offset[1]}${hours}${minutes ? `:${String(minutes).padStart(2, '0')}` : ''}`;
  return {
    name: hours === 0 && minutes === 0 ? 'UTC' : label,
    zone: FixedOffsetZone.instance(sign * (hours * 60 + minutes)),
  };
}

export interface EventTimes {
  /** Wall-clock times in the event's zone, as UTC-based Dates (the columns have no zone). */
  startLocal: Date;
  endLocal: Date;
  startUtc: Date;
  endUtc: Date;
}

export interface TimesError {
  field: 'start_date' | 'end_date';
  message: string;
}

/**
 * The event's times from its date inputs. All-day events cover whole days: the start moves to the
 * beginning of its day, the end to 23:59:59 of its day. An end before the start is an error.
 */
export function eventTimes(
  start: string | number | DateTime,
  end: string | number | DateTime,
  zone: EventZone,
  allDay: boolean,
  /** The wall-clock times as written, when `start` and `end` are already zoned (series' occurrences). */
  written?: { start: Date; end: Date },
): EventTimes | TimesError {
  let from = typeof start === 'object' ? start.setZone(zone.zone) : parseDateInput(start, zone.zone);
  let to = typeof end === 'object' ? end.setZone(zone.zone) : parseDateInput(end, zone.zone);
  if (!from) return { field: 'start_date', message: 'start_date is not a date this service understands.' };
  if (!to) return { field: 'end_date', message: 'end_date is not a date this service understands.' };
  if (allDay) {
    from = from.startOf('day');
    to = to.endOf('day').set({ millisecond: 0 });
  }
  from = from.set({ millisecond: 0 });
  to = to.set({ millisecond: 0 });
  if (to < from && !allDay) {
    // A start that does not exist (in the hour clocks skip in spring) is moved forward by the gap,
    // as RFC 5545 reads it: 02:30 is 03:30. An end written after the start, past the gap, would
    // then come before it: the event keeps the length it was written with instead.
    const length = writtenLength(start, end, written);
    if (length !== undefined && length >= 0) to = from.plus(length);
  }
  if (to < from) return { field: 'end_date', message: 'end_date is before start_date.' };
  return {
    startLocal: wallClock(from),
    endLocal: wallClock(to),
    startUtc: from.toUTC().toJSDate(),
    endUtc: to.toUTC().toJSDate(),
  };
}

/**
 * How long the event is as written, wall clock to wall clock: read in UTC, which skips no hour.
 * Undefined for inputs that name instants (an offset, a Unix time): those skip nothing.
 */
function writtenLength(
  start: string | number | DateTime,
  end: string | number | DateTime,
  written: { start: Date; end: Date } | undefined,
): number | undefined {
  if (written) return written.end.getTime() - written.start.getTime();
  if (typeof start !== 'string' || typeof end !== 'string' || hasOffset(start) || hasOffset(end)) return undefined;
  const [from, to] = [parseDateInput(start, 'UTC'), parseDateInput(end, 'UTC')];
  return from && to ? to.toMillis() - from.toMillis() : undefined;
}

/**
 * A wall-clock reading (a Date whose UTC fields carry it) as text, `2026-03-29 02:30:00`: what a
 * date input of the API takes and what a `timestamp` column reads, with no zone to misread.
 */
export const wallClockText = (local: Date) => local.toISOString().slice(0, 19).replace('T', ' ');

/** The wall-clock reading of a zoned time, as a Date whose UTC fields carry it. */
const wallClock = (t: DateTime) => new Date(Date.UTC(t.year, t.month - 1, t.day, t.hour, t.minute, t.second));

/**
 * A stored wall-clock Date back in its zone; a time the zone has twice (the hour repeated in
 * autumn) is the first of them, as RFC 5545 reads it and as date inputs are read (lib/dates.ts):
 * Luxon alone gave the second in some zones (Europe/Berlin) and the first in others.
 */
export const fromWallClock = (local: Date, zone: EventZone) =>
  firstOccurrence(DateTime.fromJSDate(local, { zone: 'UTC' }).setZone(zone.zone, { keepLocalTime: true }));

// ICU knows each zone's abbreviation only in the locales that use it (EDT in en-US, CEST in en-GB,
// AEST in en-AU, IST in en-IN, JST in ja-JP); elsewhere it answers "GMT+2".
const ABBREVIATION_LOCALES = ['en-US', 'en-GB', 'en-AU', 'en-IN', 'en-ZA', 'en-NZ', 'ja-JP'];

/**
 * The zone's short name at that moment, e.g. `EST`/`EDT`, `CEST`; for zones that have none, the
 * offset as the tz database writes it (`-03`, `+0530`); fixed offsets keep their name (`UTC+5`).
 */
export function zoneAbbreviation(zone: EventZone, at: Date): string {
  if (zone.zone instanceof FixedOffsetZone) return zone.name;
  // Asking ICU in several locales is slow, and a list asks for every event. A zone's name changes
  // with its offset, at a transition; within one day and one offset it is the same.
  const day = Math.floor(at.getTime() / DAY_MS);
  const key = `${zone.name} ${day} ${zoneOffset(zone.zone, at.getTime())}`;
  let name = abbreviations.get(key);
  if (name === undefined) {
    name = lookUpAbbreviation(zone, at);
    if (abbreviations.size >= 10_000) abbreviations.clear();
    abbreviations.set(key, name);
  }
  return name;
}

const abbreviations = new Map<string, string>();

function lookUpAbbreviation(zone: EventZone, at: Date): string {
  for (const locale of ABBREVIATION_LOCALES) {
    const name = zoneNameFormat(locale, zone.zone.name)
      .formatToParts(at)
      .find((part) => part.type === 'timeZoneName')?.value;
    if (name && !/^(GMT|UTC)[+-−]/.test(name)) return name;
  }
  const moment = DateTime.fromJSDate(at, { zone: zone.zone });
  if (moment.offset === 0) return 'UTC';
  const offset = moment.toFormat('ZZZ'); // +0545
  return moment.offset % 60 ? offset : offset.slice(0, 3);
}

/**
 * ICU's formatter of a zone's short name in a locale. Making one takes a good part of a
 * millisecond (Luxon's offsetNameShort makes a new one each time), and a list of events in a few
 * zones asks for the same ones again and again.
 */
function zoneNameFormat(locale: string, zone: string): Intl.DateTimeFormat {
  const key = `${locale} ${zone}`;
  let format = zoneNameFormats.get(key);
  if (!format) {
    format = new Intl.DateTimeFormat(locale, { timeZone: zone, timeZoneName: 'short' });
    if (zoneNameFormats.size >= 1_000) zoneNameFormats.clear();
    zoneNameFormats.set(key, format);
  }
  return format;
}

const zoneNameFormats = new Map<string, Intl.DateTimeFormat>();

/** `{year, month, day, hour, minutes, seconds}` as zero-padded strings (docs/decisions.md, "Dates and time zones"). */
export function dateDetails(wallClockDate: Date) {
  const iso = wallClockDate.toISOString();
  return {
    year: iso.slice(0, 4),
    month: iso.slice(5, 7),
    day: iso.slice(8, 10),
    hour: iso.slice(11, 13),
    minutes: iso.slice(14, 16),
    seconds: iso.slice(17, 19),
  };
}
