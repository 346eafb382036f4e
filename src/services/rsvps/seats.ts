// Exactly N seats (docs/decisions.md, "RSVP"). Every RSVP write locks its event's row first
// (queries/rsvps.ts lockRsvpEvent, FOR UPDATE) and only then reads or writes any RSVP of it, in one
// transaction: writers of one event queue on its row, on every instance, so that counting the seats
// and taking one are one step. The lock order is the event's row before any rsvps row, everywhere:
// an event edit locks the series, then the occurrence (services/events/scope.ts lockTarget), then,
// when it changed RSVP settings, settles the RSVPs (settleSeats below); an RSVP write locks one
// event (never a series: RSVPs go to occurrences), then its RSVPs. Neither waits for the other in a
// circle.
import type { RsvpStatus } from '../../../generated/prisma/client.js';
import type { Driver } from '../../db/driver.js';
import { RsvpRefused } from '../../domain/errors.js';
import { queueMail } from '../../mail/outbox.js';
import { eventsToSettle, seatsTaken, seatWaiting, waitingList } from '../../queries/rsvps.js';

/** What deciding seats needs of an event whose row the transaction holds. */
interface Seating {
  id: number;
  capacity: number | null;
  /** Once the event started, seats freed go to nobody (see promote). */
  startUtc: Date;
}

/** Seats an RSVP takes: its owner and each guest. */
export const seatsOf = (guests: number) => 1 + guests;

/**
 * Where an RSVP that asks for seats goes: pending while the organiser must approve it, else going
 * when it fits (or the capacity is unlimited), else waiting. `taken`: the seats taken, when read.
 */
export async function place(
  run: Driver,
  event: Seating,
  guests: number,
  needsApproval: boolean,
  taken?: number,
): Promise<RsvpStatus> {
  if (needsApproval) return 'pending';
  if (event.capacity === null) return 'going';
  return (taken ?? (await seatsTaken(run, event.id))) + seatsOf(guests) <= event.capacity ? 'going' : 'waiting';
}

/**
 * Seats the waiting list in the order it came, each RSVP that fits with its guests (a party too big
 * for the seats left waits, and those after it that fit are seated), and tells each of them, in the
 * same transaction (mail/outbox.ts). Run after every write that may free seats, so that no RSVP
 * waits while it fits.
 */
export async function promote(run: Driver, event: Seating, mail: boolean): Promise<void> {
  // After the start a seat freed is no one's to take: "a place is yours" would come too late, and
  // the waiting list is the record of who did not get in.
  if (event.startUtc.getTime() <= Date.now()) return;
  const waiting = await waitingList(run, event.id);
  if (!waiting.length) return;
  let free = event.capacity === null ? Infinity : event.capacity - (await seatsTaken(run, event.id));
  const seated: number[] = [];
  for (const rsvp of waiting) {
    if (seatsOf(rsvp.guests) > free) continue;
    free -= seatsOf(rsvp.guests);
    seated.push(rsvp.id);
  }
  const promoted = await seatWaiting(run, seated);
  if (mail) await queueMail(run, 'promoted', promoted);
}

/**
 * After an edit of an event's RSVP settings, in its transaction (the event and the occurrences that
 * follow it are locked by the write): a capacity below the seats taken is refused, which rolls the
 * edit back, since nobody is un-seated; a capacity raised seats the waiting list.
 */
export async function settleSeats(run: Driver, eventId: number, mail: boolean): Promise<void> {
  for (const event of await eventsToSettle(run, eventId)) {
    if (event.capacity !== null && event.seats > event.capacity) {
      throw new RsvpRefused(
        'capacity',
        `${event.seats} seats are taken at event ${event.id}: the capacity cannot be lower. Cancel or decline RSVPs first.`,
        { seats_taken: event.seats, event: event.id },
      );
    }
    await promote(run, event, mail);
  }
}
