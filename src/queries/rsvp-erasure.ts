// The statements of erasing a person's RSVPs (services/rsvps/erasure.ts), in one transaction that
// locks the events first, in ID order, as every RSVP write locks its event first
// (services/rsvps/seats.ts): an erasure and the RSVP writes of its events wait for each other in a
// line, never in a circle.
import type { Driver } from '../db/driver.js';

/** The events where this address has an RSVP, in ID order. */
export async function eventsAnsweredBy(run: Driver, email: string): Promise<number[]> {
  const rows = (await run(
    `SELECT DISTINCT event_id AS id FROM rsvps WHERE lower(email) = lower($1::text) ORDER BY event_id`,
    [email],
  )) as { id: number }[];
  return rows.map((row) => row.id);
}

/** An event as erasure needs it, its row locked: whether it started (at `now`), and its seats. */
export interface ErasedEvent {
  id: number;
  capacity: number | null;
  startUtc: Date;
  started: boolean;
}

/** Locks the events that still exist, one after the other in ID order (FOR UPDATE above ORDER BY). */
export async function lockEventsInOrder(run: Driver, ids: number[], now: Date): Promise<ErasedEvent[]> {
  return (await run(
    `SELECT id, rsvp_capacity AS capacity, start_utc AS "startUtc", start_utc <= $2::timestamptz AS started
    FROM events WHERE id = ANY($1::int[]) ORDER BY id FOR UPDATE`,
    [ids, now],
  )) as ErasedEvent[];
}

/**
 * Erases the address's RSVPs at the locked events: name, e-mail address, account, token, confirmation
 * code and check-in code gone, `erased_at` set. At events not started, an RSVP that holds or asks for
 * seats is cancelled too; elsewhere it keeps its status, so that attendance stays counted. Messages
 * not sent yet to the address, or about these RSVPs, go too (mail_outbox holds recipient and name).
 * The event of each RSVP erased.
 */
export async function eraseRsvpsOf(run: Driver, email: string, events: ErasedEvent[]): Promise<number[]> {
  const rows = (await run(
    `UPDATE rsvps SET
      status = CASE WHEN event_id = ANY($2::int[]) AND status IN ('going', 'waiting', 'pending')
        THEN 'cancelled'::"RsvpStatus" ELSE status END,
      name = NULL, email = NULL, account_id = NULL, token_hash = NULL, check_in_code = NULL,
      confirm_hash = NULL, confirm_expires = NULL,
      erased_at = clock_timestamp(), modified_at = clock_timestamp()
    WHERE lower(email) = lower($1::text) AND event_id = ANY($3::int[])
    RETURNING id, event_id AS "eventId"`,
    [email, events.filter((e) => !e.started).map((e) => e.id), events.map((e) => e.id)],
  )) as { id: number; eventId: number }[];
  await run(`DELETE FROM mail_outbox WHERE rsvp_id = ANY($1::int[]) OR lower(recipient) = lower($2::text)`, [
    rows.map((row) => row.id),
    email,
  ]);
  return rows.map((row) => row.eventId);
}
