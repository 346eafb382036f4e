// Date inputs in the forms docs/decisions.md lists ("Dates and time zones"), read in a given zone, and the `YYYY-MM-DD HH:MM:SS`
// form every response uses.
import { DateTime, type Zone } from 'luxon';

const LOCAL_FORMATS = ['yyyy-MM-dd HH:mm:ss', 'yyyy-MM-dd HH:mm', 'yyyy-MM-dd'];
// Each format's parser built once: DateTime.fromFormat builds it (a regular expression from the
// tokens) on every call: about 4 % of the service's CPU in a create, which reads two dates.
const LOCAL_PARSERS = LOCAL_FORMATS.map((format) => DateTime.buildFormatParser(format));
const RELATIVE = /^([+-])\s*(\d{1,6})\s*(second|minute|hour|day|week|month|year)s?$/i;
const UNITS = {
  second: 'seconds',
  minute: 'minutes',
  hour: 'hours',
  day: 'days',
  week: 'weeks',
  month: 'months',
  year: 'years',
} as const;

/**
 * The instant a date input names, or undefined when it is not one of the accepted forms. Values
 * without an offset are wall-clock times in `zone`; Unix timestamps are instants.
 */
export function parseDateInput(
  value: string | number,
  zone: string | Zone,
  now: DateTime = DateTime.now(),
): DateTime | undefined {
  if (typeof value === 'number' || /^-?\d{1,12}$/.test(value.trim())) {
    const seconds = Number(value);
    return Number.isSafeInteger(seconds) ? valid(DateTime.fromSeconds(seconds, { zone })) : undefined;
  }
  const text = value.trim();
  const named = namedDay(text, zone, now);
  if (named) return named;
  const relative = RELATIVE.exec(text);
  if (relative) {
    const amount = Number(relative[2]) * (relative[1] === '-' ? -1 : 1);
    return valid(now.setZone(zone).plus({ [UNITS[relative[3].toLowerCase() as keyof typeof UNITS]]: amount }));
  }
  return writtenDate(text, zone);
}

/** `now`, `today`, `tomorrow` and `yesterday` (the days from their start), or undefined for other text. */
function namedDay(text: string, zone: string | Zone, now: DateTime): DateTime | undefined {
  const today = now.setZone(zone).startOf('day');
  switch (text.toLowerCase()) {
    case 'now':
      return now.setZone(zone);
    case 'today':
      return today;
    case 'tomorrow':
      return today.plus({ days: 1 });
    case 'yesterday':
      return today.minus({ days: 1 });
  }
  return undefined;
}

/** A date (and time) written out: one of LOCAL_FORMATS in `zone`, or ISO 8601. */
function writtenDate(text: string, zone: string | Zone): DateTime | undefined {
  for (const parser of LOCAL_PARSERS) {
    const parsed = valid(DateTime.fromFormatParser(text, parser, { zone }));
    if (parsed) return firstOccurrence(parsed);
  }
  // ISO 8601; an offset in the value wins over `zone`, when it is one a place can have.
  if (!possibleOffset(text)) return undefined;
  const iso = valid(DateTime.fromISO(text, { zone, setZone: true }))?.setZone(zone);
  return iso && !hasOffset(text) ? firstOccurrence(iso) : iso;
}

const OFFSET = /(?:[zZ]|([+-])(\d\d)(?::?(\d\d))?)$/;

/** Whether a date input ends in an offset (or Z): it names an instant. */
export const hasOffset = (text: string) => OFFSET.test(text.trim());

/**
 * No offset, or one within UTC-14:00 to UTC+14:00 with minutes under 60: offsets on Earth lie
 * between -12:00 and +14:00, and Luxon would read `+25:00` or `-99:99` as well.
 */
function possibleOffset(text: string): boolean {
  const match = OFFSET.exec(text);
  if (!match?.[1]) return true;
  return Number(match[2]) <= 14 && Number(match.at(3) ?? 0) <= 59;
}

/**
 * A wall-clock time that happens twice (the hour repeated when clocks go back) is read as its
 * first occurrence, still in summer time, as most calendars do.
 */
export const firstOccurrence = (d: DateTime) =>
  d.getPossibleOffsets().reduce((first, candidate) => (candidate.toMillis() < first.toMillis() ? candidate : first), d);

// Years 1 to 9999, where the instant is too: `YYYY-MM-DD` cannot write year 10000 in any zone.
const inRange = (year: number) => year >= 1 && year <= 9999;
const valid = (d: DateTime) => (d.isValid && inRange(d.year) && inRange(d.toUTC().year) ? d : undefined);

/**
 * `YYYY-MM-DD HH:MM:SS` in `zone`. Every representation writes several of these, so this shifts the
 * instant by the zone's offset and writes the digits of the shifted date, instead of building a
 * luxon DateTime and parsing a format string each time.
 */
export function formatDateTime(instant: Date | DateTime, zone: string | Zone): string {
  const ms = instant instanceof Date ? instant.getTime() : instant.toMillis();
  const resolved = typeof zone === 'string' ? zoneNamed(zone) : zone;
  const d = new Date(ms + zoneOffset(resolved, ms) * 60_000);
  const year = d.getUTCFullYear();
  return `${year < 1000 ? String(year).padStart(4, '0') : year}-${two(d.getUTCMonth() + 1)}-${two(d.getUTCDate())} ${two(d.getUTCHours())}:${two(d.getUTCMinutes())}:${two(d.getUTCSeconds())}`;
}

const two = (n: number) => (n < 10 ? `0${n}` : `${n}`);

// Zones by name, resolved once: luxon checks a zone name against Intl on every use of the string.
const zones = new Map<string, Zone>();
function zoneNamed(name: string): Zone {
  let zone = zones.get(name);
  if (!zone) {
    zone = DateTime.now().setZone(name).zone;
    if (!zone.isValid) throw new RangeError(`Unknown time zone: ${name}`);
    zones.set(name, zone);
  }
  return zone;
}

/** Milliseconds in a UTC day. */
export const DAY_MS = 86_400_000;
const MAX_CACHED_DAYS = 50_000;

/** A zone's offsets over one UTC day: `before` until the instant `change`, `after` from it on. */
interface DayOffsets {
  before: number;
  change: number;
  after: number;
}
const offsets = new Map<string, DayOffsets>();

/**
 * The zone's offset from UTC in minutes at an instant. Luxon asks Intl for it each time, which is
 * slow (docs/performance.md). Offsets change only at a zone's transitions, at most
 * one a day, so each zone and UTC day is looked up once: its offset at both ends and, on the day of a
 * transition, the instant of the change, found by bisection to the millisecond.
 */
export function zoneOffset(zone: Zone, ms: number): number {
  if (zone.isUniversal) return zone.offset(ms);
  const day = Math.floor(ms / DAY_MS);
  const key = `${zone.name} ${day}`;
  let known = offsets.get(key);
  if (!known) {
    known = dayOffsets(zone, day * DAY_MS);
    if (offsets.size >= MAX_CACHED_DAYS) offsets.clear();
    offsets.set(key, known);
  }
  return ms < known.change ? known.before : known.after;
}

function dayOffsets(zone: Zone, start: number): DayOffsets {
  const before = zone.offset(start);
  const after = zone.offset(start + DAY_MS - 1);
  let [low, high] = [start, start + DAY_MS - 1]; // offset(low) = before; offset(high) = after
  if (before === after) return { before, change: start, after };
  while (high - low > 1) {
    const middle = Math.floor((low + high) / 2);
    if (zone.offset(middle) === before) low = middle;
    else high = middle;
  }
  return { before, change: high, after };
}
