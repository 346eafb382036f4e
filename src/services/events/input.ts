// What a write of an event sends, turned into what it stores: the columns set as sent, the zone and
// times (what is not sent keeps its value), and the recurrence lines checked in the final zone.
// Pure functions of the input and the current row: a 400 names the field at fault.
import type { components } from '../../../generated/api.js';
import { type Event, Prisma as Prisma } from '../../../generated/prisma/client.js';
import { InvalidInput } from '../../domain/errors.js';
import { eventTimes, eventZone, fromWallClock, UTC_ZONE } from '../../lib/event-times.js';
import { canonicalLines, convertLines } from '../../recurrence/rewrite.js';
import { readRecurrence } from '../series/occurrences.js';

/** A write of an event, as the document defines it: every field optional (an update). */
export type EventInput = components['schemas']['EventFields'];

type EventColumns = Partial<
  Pick<
    Event,
    'description' | 'excerpt' | 'website' | 'showMap' | 'showMapLink' | 'hideFromListings' | 'sticky' | 'featured'
  >
> & { cost?: Prisma.InputJsonValue | typeof Prisma.DbNull };

/** The columns a write sets as sent: text, flags, cost and website (the image is services/media.ts imageColumns'). */
export function columns(input: EventInput): EventColumns {
  const text = (value: string | undefined) => (value === undefined ? undefined : value.trim());
  // Null, though the schema has none, clears the cost as an empty one does.
  const website = input.website;
  return {
    description: text(input.description),
    excerpt: text(input.excerpt),
    cost: costColumn(input.cost),
    website: website === undefined ? undefined : website.trim() || null,
    showMap: input.show_map,
    showMapLink: input.show_map_link,
    hideFromListings: input.hide_from_listings,
    sticky: input.sticky,
    featured: input.featured,
  };
}

/**
 * The cost as given: `cost` and `cost_details` are derived from it when it is shown. Null, though
 * the schema has none, clears it as an empty one does.
 */
function costColumn(cost: EventInput['cost'] | null): EventColumns['cost'] {
  if (cost === undefined) return undefined;
  const empty = cost === null || cost === '' || (Array.isArray(cost) && cost.length === 0);
  return empty ? Prisma.DbNull : cost;
}

interface StoredTimes {
  timezone: string;
  allDay: boolean;
  startLocal: Date;
  endLocal: Date;
}

/**
 * Zone, all-day flag and times after a write. What is not sent keeps its value: a new zone keeps
 * the wall-clock times (the event still starts at 19:30, now in the new zone), and turning
 * `all_day` on widens the stored times to whole days.
 */
export function times(input: EventInput, current: StoredTimes | undefined, siteZone: string) {
  const zoneName = input.timezone === undefined ? (current?.timezone ?? siteZone) : input.timezone.trim() || siteZone;
  const zone = eventZone(zoneName);
  if (!zone)
    throw new InvalidInput({
      timezone:
        'timezone must be an IANA time zone such as Europe/Paris, or an offset such as UTC+2, UTC-3:30 or UTC+5.5.',
    });
  const allDay = input.all_day ?? current?.allDay ?? false;
  const stored = (time: (t: StoredTimes) => Date) => {
    // A create has both (the document requires them), so only an update falls back on the stored times.
    if (!current) throw new Error('start_date and end_date are required to create an event');
    return fromWallClock(time(current), zone);
  };
  const start = input.start_date ?? stored((t) => t.startLocal);
  const end = input.end_date ?? stored((t) => t.endLocal);
  const result = eventTimes(start, end, zone, allDay);
  if ('field' in result) throw new InvalidInput({ [result.field]: result.message });
  return { ...result, timezone: zone.name, allDay };
}

/**
 * The lines to store (lib/recurrence.ts canonicalLines), checked in the event's final zone, or
 * undefined for no change. Blank lines are dropped, so `[]` (or only blanks) makes a series a
 * single event again. Lines not sent follow a change of the zone or the all-day flag: their dates
 * keep naming the same occurrences.
 */
export function recurrenceFor(
  input: EventInput,
  current: { recurrence: string[]; timezone: string; allDay: boolean } | undefined,
  { timezone, allDay, startLocal }: { timezone: string; allDay: boolean; startLocal: Date },
): string[] | undefined {
  const zone = eventZone(timezone) ?? UTC_ZONE;
  if (input.recurrence !== undefined || !current) {
    const lines = input.recurrence?.map((line) => line.trim()).filter(Boolean) ?? [];
    if (!lines.length) return [];
    readRecurrence(lines, zone, allDay, startLocal); // a 400 naming the line
    return canonicalLines(lines, zone, allDay);
  }
  if (!current.recurrence.length || (current.timezone === timezone && current.allDay === allDay)) return undefined;
  const before = { zone: eventZone(current.timezone) ?? UTC_ZONE, allDay: current.allDay };
  return convertLines(current.recurrence, before, { zone, allDay, startLocal });
}
