// The statements of RSVPs that Prisma's API does not write (services/rsvps/): the event's row locked
// with what deciding a seat needs, the seats taken, and the waiting list in order. Each runs in the
// transaction of an RSVP write, after the event's lock (services/rsvps/seats.ts says the lock order).
import type { EventStatus, PostStatus } from '../../generated/prisma/client.js';
import type { Tx } from '../db/client.js';

/** An event as an RSVP write reads it, its row locked until the transaction ends. */
export interface RsvpEvent {
  id: number;
  status: PostStatus;
  authorId: number | null;
  series: boolean;
  eventStatus: EventStatus;
  startUtc: Date;
  open: boolean;
  capacity: number | null;
  guestsMax: number;
  approval: boolean;
  anonymous: boolean;
  closesBefore: number | null;
}

/** The event's row locked (FOR UPDATE), or undefined when there is none. */
export async function lockRsvpEvent(tx: Tx, id: number): Promise<RsvpEvent | undefined> {
  const rows = await tx.$queryRaw<RsvpEvent[]>`
    SELECT id, status, author_id AS "authorId", recurrence <> '{}' AS series, event_status AS "eventStatus",
      start_utc AS "startUtc", rsvp_open AS open, rsvp_capacity AS capacity, rsvp_guests_max AS "guestsMax",
      rsvp_approval AS approval, rsvp_anonymous AS anonymous, rsvp_closes_before AS "closesBefore"
    FROM events WHERE id = ${id}::int FOR UPDATE`;
  return rows.at(0);
}

/**
 * What a new RSVP is decided on, in one statement after the event's lock: the event's RSVP from this
 * address, if any (one address has one RSVP per event, whatever its case), and the seats taken.
 */
export async function answerBefore(
  tx: Tx,
  eventId: number,
  email: string,
): Promise<{ existing: number | undefined; seats: number }> {
  const [row] = await tx.$queryRaw<{ existing: number | null; seats: number }[]>`
    SELECT (SELECT id FROM rsvps WHERE event_id = ${eventId}::int AND lower(email) = lower(${email}::text)) AS existing,
      (SELECT coalesce(sum(1 + guests), 0)::int FROM rsvps
       WHERE event_id = ${eventId}::int AND status IN ('going', 'checked_in')) AS seats`;
  return { existing: row.existing ?? undefined, seats: row.seats };
}

/** Seats taken: RSVPs going or checked in, each with its guests. */
export async function seatsTaken(tx: Tx, eventId: number): Promise<number> {
  const [{ seats }] = await tx.$queryRaw<{ seats: number }[]>`
    SELECT coalesce(sum(1 + guests), 0)::int AS seats FROM rsvps
    WHERE event_id = ${eventId}::int AND status IN ('going', 'checked_in')`;
  return seats;
}

/** The waiting list, first come first. */
export async function waitingList(tx: Tx, eventId: number): Promise<{ id: number; guests: number }[]> {
  return tx.$queryRaw<{ id: number; guests: number }[]>`
    SELECT id, guests FROM rsvps WHERE event_id = ${eventId}::int AND status = 'waiting' ORDER BY arrival`;
}

/** Seats these waiting RSVPs. */
export async function seatWaiting(tx: Tx, ids: number[]): Promise<void> {
  if (!ids.length) return;
  await tx.$executeRaw`
    UPDATE rsvps SET status = 'going', modified_at = now() WHERE id = ANY(${ids}::int[]) AND status = 'waiting'`;
}

/** A new place at the end of the waiting list's order, for an RSVP that asks for a seat anew. */
export async function nextArrival(tx: Tx): Promise<bigint> {
  const [{ arrival }] = await tx.$queryRaw<{ arrival: bigint }[]>`SELECT nextval('rsvp_arrival_seq') AS arrival`;
  return arrival;
}

/**
 * Events among this one and its occurrences that have RSVPs to settle after their settings changed:
 * seats taken above the capacity, or RSVPs waiting; in ID order, each with its capacity and seats.
 * Their rows are locked already: the write of the settings updated them (an occurrence changed on its
 * own is not: it kept its settings).
 */
export async function eventsToSettle(
  tx: Tx,
  id: number,
): Promise<{ id: number; capacity: number | null; seats: number; waiting: boolean }[]> {
  return tx.$queryRaw`
    SELECT e.id, e.rsvp_capacity AS capacity, s.seats, s.waiting
    FROM events e
    CROSS JOIN LATERAL (
      SELECT coalesce(sum(1 + r.guests) FILTER (WHERE r.status IN ('going', 'checked_in')), 0)::int AS seats,
        bool_or(r.status = 'waiting') AS waiting
      FROM rsvps r WHERE r.event_id = e.id) s
    WHERE (e.id = ${id}::int OR (e.parent_id = ${id}::int AND NOT e.is_exception))
      AND (s.waiting OR (e.rsvp_capacity IS NOT NULL AND s.seats > e.rsvp_capacity))
    ORDER BY e.id`;
}
