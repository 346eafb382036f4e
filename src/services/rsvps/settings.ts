// An event's RSVP settings as a write sends them (the document's EventRsvpSettings), turned into
// its columns: a pure function, which services/events/ call with the event's start after the write.
import type { components } from '../../../generated/api.js';
import type { Event } from '../../../generated/prisma/client.js';
import { InvalidInput } from '../../domain/errors.js';
import { parseDateInput } from '../../lib/dates.js';
import { eventZone, UTC_ZONE } from '../../lib/event-times.js';

type Settings = components['schemas']['EventRsvpSettings'];

export type RsvpColumns = Partial<
  Pick<Event, 'rsvpOpen' | 'rsvpCapacity' | 'rsvpGuestsMax' | 'rsvpApproval' | 'rsvpAnonymous' | 'rsvpClosesBefore'>
>;

/**
 * The columns of the settings sent; those not sent keep their values. `closes_at` is stored as
 * seconds before the start (migration rsvps), read in the event's zone against its start after this
 * write: a series' dates each close as long before their own start, and an event moved keeps it.
 */
export function rsvpColumns(settings: Settings | undefined, start: { startUtc: Date; timezone: string }): RsvpColumns {
  if (settings === undefined) return {};
  return {
    rsvpOpen: settings.open,
    rsvpCapacity: settings.capacity,
    rsvpGuestsMax: settings.guests_max,
    rsvpApproval: settings.approval,
    rsvpAnonymous: settings.anonymous,
    rsvpClosesBefore: closesBefore(settings.closes_at, start),
  };
}

function closesBefore(
  closesAt: Settings['closes_at'],
  start: { startUtc: Date; timezone: string },
): number | null | undefined {
  if (closesAt === undefined || closesAt === null) return closesAt;
  const instant = parseDateInput(closesAt, (eventZone(start.timezone) ?? UTC_ZONE).zone);
  if (!instant) throw new InvalidInput({ 'rsvp.closes_at': 'rsvp.closes_at is not a date this service understands.' });
  const seconds = Math.round((start.startUtc.getTime() - instant.toMillis()) / 1000);
  // Columns are 32-bit: a year either way is more than any event needs.
  if (Math.abs(seconds) > MAX_OFFSET_SECONDS) {
    throw new InvalidInput({ 'rsvp.closes_at': 'rsvp.closes_at must be within a year of the start.' });
  }
  return seconds;
}

const MAX_OFFSET_SECONDS = 366 * 86_400;
