// Date inputs in the forms decisions.md lists, read in a given zone, and the `YYYY-MM-DD HH:MM:SS`
// form every response uses.
import { DateTime, type Zone } from 'luxon';

const LOCAL_FORMATS = ['yyyy-MM-dd HH:mm:ss', 'yyyy-MM-dd HH:mm', 'yyyy-MM-dd'];
const RELATIVE = /^([+-])\s*(\d{1,6})\s*(second|minute|hour|day|week|month|year)s?$/i;
const UNITS = { second: 'seconds', minute: 'minutes', hour: 'hours', day: 'days', week: 'weeks', month: 'months', year: 'years' } as const;

/**
 * The instant a date input names, or undefined when it is not one of the accepted forms. Values
 * without an offset are wall-clock times in `zone`; Unix timestamps are instants.
 */
export function parseDateInput(value: string | number, zone: string | Zone, now: DateTime = DateTime.now()): DateTime | undefined {
  if (typeof value === 'number' || /^-?\d{1,12}$/.test(value.trim())) {
    const seconds = Number(value);
    return Number.isSafeInteger(seconds) ? valid(DateTime.fromSeconds(seconds, { zone })) : undefined;
  }
  const text = value.trim();
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
  const relative = RELATIVE.exec(text);
  if (relative) {
    const amount = Number(relative[2]) * (relative[1] === '-' ? -1 : 1);
    return valid(now.setZone(zone).plus({ [UNITS[relative[3].toLowerCase() as keyof typeof UNITS]]: amount }));
  }
  for (const format of LOCAL_FORMATS) {
    const parsed = valid(DateTime.fromFormat(text, format, { zone }));
    if (parsed) return firstOccurrence(parsed);
  }
  // ISO 8601; an offset in the value wins over `zone`.
  const iso = valid(DateTime.fromISO(text, { zone, setZone: true }))?.setZone(zone);
  return iso && !HAS_OFFSET.test(text) ? firstOccurrence(iso) : iso;
}

const HAS_OFFSET = /(?:[zZ]|[+-]\d\d(?::?\d\d)?)$/;

/**
 * A wall-clock time that happens twice (the hour repeated when clocks go back) is read as its
 * first occurrence, still in summer time, as most calendars do.
 */
const firstOccurrence = (d: DateTime) =>
  d.getPossibleOffsets().reduce((first, candidate) => (candidate.toMillis() < first.toMillis() ? candidate : first), d);

// Years 1 to 9999, where the instant is too: `YYYY-MM-DD` cannot write year 10000 in any zone.
const inRange = (year: number) => year >= 1 && year <= 9999;
const valid = (d: DateTime) => (d.isValid && inRange(d.year) && inRange(d.toUTC().year) ? d : undefined);

/**
 * `YYYY-MM-DD HH:MM:SS` in `zone`. Every representation writes several of these, so this shifts the
 * instant by the zone's offset and reads the digits off toISOString, instead of building a luxon
 * DateTime and parsing a format string each time.
 */
export function formatDateTime(instant: Date | DateTime, zone: string | Zone): string {
  const ms = instant instanceof Date ? instant.getTime() : instant.toMillis();
  const resolved = typeof zone === 'string' ? zoneNamed(zone) : zone;
  const shifted = new Date(ms + resolved.offset(ms) * 60_000);
  return shifted.toISOString().slice(0, 19).replace('T', ' ');
}

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
