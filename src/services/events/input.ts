// What a write of an event sends, turned into what it stores: the columns set as sent, the zone and
// times (what is not sent keeps its value); the recurrence lines are services/series/lines.ts's.
// Pure functions of the input and the current row: a 400 names the field at fault.
import type { components } from '../../../generated/api.js';
import { type Event, Prisma as Prisma } from '../../../generated/prisma/client.js';
import { InvalidInput } from '../../domain/errors.js';
import { eventTimes, eventZone, fromWallClock } from '../../lib/event-times.js';
import { type RsvpColumns, rsvpColumns } from '../rsvps/settings.js';

/** A write of an event, as the document defines it: every field optional (an update). */
export type EventInput = components['schemas']['EventFields'];

type EventColumns = Partial<
  Pick<
    Event,
    | 'description'
    | 'excerpt'
    | 'website'
    | 'showMap'
    | 'showMapLink'
    | 'hideFromListings'
    | 'sticky'
    | 'featured'
    | 'eventStatus'
    | 'eventStatusReason'
    | 'isVirtual'
    | 'isHybrid'
    | 'virtualUrl'
  >
> & { cost?: Prisma.InputJsonValue | typeof Prisma.DbNull };

/** What an update reads of the stored event to check what it sends against it. */
type StoredHappening = Pick<Event, 'isVirtual'>;

/**
 * The columns a write sets as sent: text, flags, cost, website, status, where it happens and RSVP
 * settings (the image is services/media.ts imageColumns'). `start` is the event's after the write;
 * `current` the stored event of an update.
 */
export function columns(
  input: EventInput,
  start: { startUtc: Date; timezone: string },
  current?: StoredHappening,
): EventColumns & RsvpColumns {
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
    ...statusColumns(input),
    ...onlineColumns(input, current),
    ...rsvpColumns(input.rsvp, start),
  };
}

/**
 * The event's status and reason. Back on schedule, an event keeps no reason unless one is sent with
 * it (docs/decisions.md, "Cancelled, postponed, online"). The reason is plain text.
 */
function statusColumns(input: EventInput): Pick<EventColumns, 'eventStatus' | 'eventStatusReason'> {
  const reason = input.event_status_reason?.trim();
  return {
    eventStatus: input.event_status,
    eventStatusReason: reason ?? (input.event_status === 'scheduled' ? '' : undefined),
  };
}

/**
 * Online, hybrid and the link to join. Hybrid means online and at the venue too, so it needs
 * `is_virtual`; an event taken offline is no longer hybrid.
 */
function onlineColumns(
  input: EventInput,
  current: StoredHappening | undefined,
): Pick<EventColumns, 'isVirtual' | 'isHybrid' | 'virtualUrl'> {
  const isVirtual = input.is_virtual ?? current?.isVirtual ?? false;
  if (input.is_hybrid === true && !isVirtual) {
    throw new InvalidInput({
      is_hybrid: 'is_hybrid needs is_virtual: a hybrid event happens online and at its venue.',
    });
  }
  const url = input.virtual_url?.trim();
  return {
    isVirtual: input.is_virtual,
    isHybrid: input.is_virtual === false ? false : input.is_hybrid,
    virtualUrl: url === undefined ? undefined : url || null,
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
