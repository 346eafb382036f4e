// The zone of each time a VEVENT gives, as calendar apps resolve it: a TZID that is an IANA name
// (or ends in one, as globally unique TZIDs such as `/mozilla.org/20070129_1/America/New_York` do,
// or whose VTIMEZONE names one in X-LIC-LOCATION, or a Windows name that CLDR maps to one, or a
// Windows display name, zone-names.ts) is that zone; another TZID with its VTIMEZONE in the file is
// converted with it and the event kept in UTC (a series then takes the IANA zone that keeps its
// offsets, or is refused, its rule being in wall-clock time); a TZID neither IANA's nor in the file,
// and a floating time, are read in the calendar's zone (X-WR-TIMEZONE), else the site's; UTC stays UTC.
import ICAL from 'ical.js';
import { DateTime } from 'luxon';
import { findIana } from 'windows-iana';
import { DATES_ZONE } from '../domain/import-sources.js';
import { eventZone } from '../lib/event-times.js';
import { textOf } from './values.js';
import { displayNameZones } from './zone-names.js';
import { ZONE_HORIZON } from './zone-bounds.js';

/**
 * The file's VTIMEZONEs by TZID, and `floating`: the IANA zone its dates and floating times are in
 * (its X-WR-TIMEZONE), or '' for the site's; `refused`: why those past the bounds of zone-bounds.ts
 * were not read, by TZID.
 */
export type Zones = Map<string, ICAL.Timezone> & { floating?: string; refused?: Map<string, string> };
/**
 * The event's zone: an all-day event's as this service writes it beside its dates, which carry none;
 * a series in a converted zone is read in the IANA zone that keeps its offsets, or refused.
 */
export function zoneOf(
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

/** The start of a changed occurrence's original start in its series' zone (read-calendar.ts). */
export function originalStartIn(instant: Date, zone: string): string {
  return wallClock(instant, zone);
}

export interface Zone {
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

export interface Reading {
  instant: Date;
  zone: Zone;
  isDate: boolean;
  /** The date as written, for all-day values. */
  date: { year: number; month: number; day: number };
}

/** The instant a DATE or DATE-TIME value stands for, and the zone it was written in. */
export function reading(time: ICAL.Time, zones: Zones, remarks: string[]): Reading {
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
export function wallClock(instant: Date, zone: string): string {
  const at = DateTime.fromJSDate(instant, { zone: zone && zone !== 'UTC' ? zone : 'UTC' });
  return at.toFormat('yyyy-MM-dd HH:mm:ss');
}

const pad = (n: number) => String(n).padStart(2, '0');
export const dateIn = (r: Reading) => `${r.date.year}-${pad(r.date.month)}-${pad(r.date.day)}`;
