// What reading a file's VTIMEZONEs may cost, for every door that reads client or imported
// iCalendar (the import, CalDAV PUT). ical.js turns a zone into every change of offset from each
// observance's DTSTART up to five years past the time it converts, all at once and synchronously:
// an HOURLY observance from 2000 is 236,000 changes (3 s, 300 MB), from the year 1000 it is
// minutes and gigabytes. Real zones change a few times a year at most (YEARLY rules; MONTHLY is
// allowed), from 1601 at the earliest (Outlook's), so a zone is read only within these bounds, and
// the changes all of one file's zones would make up to ZONE_HORIZON are counted against one budget;
// a time past it is not read in a file's zone (zones.ts), which would expand it further.
import type ICAL from 'ical.js';

/** Zones one file may give. */
export const MAX_ZONES = 50;
/** Observances (STANDARD, DAYLIGHT) one zone may have. */
export const MAX_OBSERVANCES = 100;
/** The earliest year an observance may start (Outlook writes 1601). */
export const FIRST_YEAR = 1600;
/** Changes of offset all of a file's zones may make up to ZONE_HORIZON: some 0.3 s of ical.js's work. */
export const MAX_CHANGES = 20_000;
/** The last year a time is read in a zone a file gives (a 1601 zone to 9999 is 0.2 s of work). */
export const ZONE_HORIZON = 2100;

/** Changes a year a rule of each frequency makes, for each value of its BY parts. */
const PER_YEAR: Record<string, number> = { YEARLY: 1, MONTHLY: 12 };
/** BY parts whose values multiply a rule's changes (BYSETPOS picks among them, BYMONTH only filters a MONTHLY rule). */
const MULTIPLYING = ['BYDAY', 'BYMONTHDAY', 'BYYEARDAY', 'BYWEEKNO', 'BYHOUR', 'BYMINUTE', 'BYSECOND'] as const;

/** What is left for one file's zones. */
export class ZoneBudget {
  zones = 0;
  changes = MAX_CHANGES;
}

/**
 * Why the VTIMEZONE is not read, as a sentence naming the bound it passes; undefined when it is
 * within them, its changes then taken from the file's budget. Only its properties are looked at:
 * ical.js does not expand a zone before it converts a time with it.
 */
export function zoneRefusal(zone: ICAL.Component, budget: ZoneBudget): string | undefined {
  const tzid = String(zone.getFirstPropertyValue('tzid') ?? '');
  if (++budget.zones > MAX_ZONES) return `The file gives more than ${MAX_ZONES} VTIMEZONEs: ${tzid} is not read.`;
  const observances = zone.getAllSubcomponents().filter((c) => c.name === 'standard' || c.name === 'daylight');
  if (observances.length > MAX_OBSERVANCES)
    return `The VTIMEZONE ${tzid} has ${observances.length} observances, more than the ${MAX_OBSERVANCES} a zone may have.`;
  let changes = 0;
  for (const observance of observances) {
    const start = observance.getFirstPropertyValue('dtstart') as ICAL.Time | null;
    if (!start) return `An observance of the VTIMEZONE ${tzid} has no DTSTART.`;
    if (start.year < FIRST_YEAR)
      return `An observance of the VTIMEZONE ${tzid} starts in ${start.year}: zones are read from the year ${FIRST_YEAR}.`;
    changes += 1;
    for (const property of observance.getAllProperties('rdate')) changes += property.getValues().length;
    for (const property of observance.getAllProperties('rrule')) {
      const rule = property.getFirstValue() as ICAL.Recur;
      const perYear = PER_YEAR[rule.freq];
      if (!perYear)
        return `An observance of the VTIMEZONE ${tzid} repeats ${rule.freq}: a zone's rules repeat YEARLY or MONTHLY.`;
      changes += ruleChanges(rule, start.year, perYear);
    }
  }
  budget.changes -= changes;
  if (budget.changes < 0)
    return `The file's VTIMEZONEs would make more than ${MAX_CHANGES} changes of offset up to ${ZONE_HORIZON}: ${tzid} is not read.`;
  return undefined;
}

/** The changes of offset a zone's rule makes from its start to ZONE_HORIZON (or its UNTIL, or its COUNT). */
function ruleChanges(rule: ICAL.Recur, from: number, perYear: number): number {
  const to = Math.min(ZONE_HORIZON, rule.until?.year ?? ZONE_HORIZON);
  const values = MULTIPLYING.reduce((n, part) => n * Math.max(1, rule.parts[part]?.length ?? 0), 1);
  const months = rule.freq === 'YEARLY' ? Math.max(1, rule.parts.BYMONTH?.length ?? 0) : 1;
  const all = Math.max(1, to - from + 1) * perYear * values * months;
  return rule.count ? Math.min(rule.count, all) : all;
}
