// Who may do what with an event's RSVPs (docs/decisions.md, "RSVP"): the event's organisers (its
// author, editors and administrators: whoever may edit it) see and manage them all; anyone else
// only its own, by its account. Checks on the event locked by the write (queries/rsvps.ts).
import type { Rsvp, RsvpStatus } from '../../../generated/prisma/client.js';
import { canEdit, canRead } from '../../auth/permissions.js';
import type { Caller } from '../../auth/roles.js';
import { InvalidInput, NotFound, NotReadable, RsvpRefused } from '../../domain/errors.js';
import { formatDateTime } from '../../lib/dates.js';
import type { RsvpEvent, RsvpRow } from '../../queries/rsvps.js';
import { closesAt } from '../../lib/rsvp-closing.js';

export const isOrganiser = (caller: Caller, event: Pick<RsvpEvent, 'authorId' | 'status'>) => canEdit(caller, event);

export const ownsRsvp = (caller: Caller, rsvp: Pick<Rsvp, 'accountId'>) =>
  caller !== null && rsvp.accountId === caller.id;

/** The event, once it exists, the caller may read it and it is one that takes RSVPs (not a series). */
export function assertRsvpTarget<E extends RsvpEvent>(caller: Caller, id: number, event: E | undefined): E {
  if (!event) throw new NotFound('event', id);
  if (!canRead(caller, event)) throw new NotReadable('event');
  if (event.series) {
    throw new RsvpRefused(
      'series',
      'A recurring event takes RSVPs on each of its dates: RSVP to an occurrence (list them with post_parent).',
    );
  }
  return event;
}

/**
 * RSVP is open: turned on, the event not cancelled, and not closed yet (unless `now` is undefined:
 * organisers take RSVPs after the close, at the door).
 */
export function assertOpen(event: RsvpEvent, now: Date | undefined): void {
  if (event.eventStatus === 'canceled') {
    throw new RsvpRefused('canceled', 'The event is cancelled: it takes no RSVPs.');
  }
  if (!event.open) throw new RsvpRefused('not-open', 'This event does not take RSVPs.');
  const closes = closesAt(event.startUtc, event.closesBefore);
  if (now !== undefined && now >= closes) {
    throw new RsvpRefused('closed', `RSVP to this event closed at ${formatDateTime(closes, 'UTC')} UTC.`);
  }
}

/** Statuses an RSVP leaves by a new answer of `going` from the same address. */
export const ENDED: RsvpStatus[] = ['declined', 'cancelled'];

/** Turned down by the organiser rather than by its owner's answer: its owner cannot take it up again. */
export const declinedByOrganiser = (rsvp: Pick<RsvpRow, 'status' | 'answer'>) =>
  rsvp.status === 'declined' && rsvp.answer === 'going';

export function assertGuests(event: RsvpEvent, guests: number | undefined): void {
  if (guests !== undefined && guests > event.guestsMax) {
    throw new InvalidInput({ guests: `This event takes ${event.guestsMax} guests per RSVP at most.` });
  }
}
