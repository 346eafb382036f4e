// The statements of RSVP writes (services/rsvps/write.ts): the event's row locked with what deciding a
// seat needs, the seats taken, the waiting list in order, and the RSVP's own row. Each runs in the
// transaction of an RSVP write, after the event's lock (services/rsvps/seats.ts says the lock order),
// on the driver beneath Prisma or, inside a batch's transaction, through Prisma (db/driver.ts
// statementsOf): the same text in either.
import type { EventStatus, PostStatus, Rsvp, RsvpAnswer, RsvpStatus } from '../../generated/prisma/client.js';
import type { Driver } from '../db/driver.js';
import { newCheckInCode } from '../lib/check-in-code.js';

/** An event as an RSVP write reads it, its row locked until the transaction ends. */
export interface RsvpEvent {
  id: number;
  status: PostStatus;
  authorId: number | null;
  series: boolean;
  eventStatus: EventStatus;
  startUtc: Date;
  endUtc: Date;
  open: boolean;
  capacity: number | null;
  guestsMax: number;
  approval: boolean;
  anonymous: boolean;
  closesBefore: number | null;
}

/** An RSVP as its writes read it back: what the resource shows and who owns it. */
export type RsvpRow = Pick<
  Rsvp,
  | 'id'
  | 'eventId'
  | 'accountId'
  | 'name'
  | 'email'
  | 'guests'
  | 'answer'
  | 'status'
  | 'checkInCode'
  | 'confirmed'
  | 'createdAt'
  | 'modifiedAt'
>;

const RSVP_COLUMNS = `id, event_id AS "eventId", account_id AS "accountId", name, email, guests, answer::text,
  status::text, check_in_code AS "checkInCode", confirmed, created_at AS "createdAt", modified_at AS "modifiedAt"`;

/** The event's row locked (FOR UPDATE), or undefined when there is none. */
export async function lockRsvpEvent(run: Driver, id: number): Promise<RsvpEvent | undefined> {
  const rows = (await run(
    `SELECT id, status::text, author_id AS "authorId", recurrence <> '{}' AS series,
      event_status::text AS "eventStatus", start_utc AS "startUtc", end_utc AS "endUtc", rsvp_open AS open, rsvp_capacity AS capacity,
      rsvp_guests_max AS "guestsMax", rsvp_approval AS approval, rsvp_anonymous AS anonymous,
      rsvp_closes_before AS "closesBefore"
    FROM events WHERE id = $1::int FOR UPDATE`,
    [id],
  )) as RsvpEvent[];
  return rows.at(0);
}

/**
 * What a new RSVP is decided on, in one statement after the event's lock: the event's RSVP from this
 * address, if any (one address has one RSVP per event, whatever its case), and the seats taken.
 */
export async function answerBefore(
  run: Driver,
  eventId: number,
  email: string,
): Promise<{ existing: RsvpRow | undefined; seats: number }> {
  const [row] = (await run(
    `SELECT (SELECT row_to_json(r) FROM (SELECT ${RSVP_COLUMNS} FROM rsvps
        WHERE event_id = $1::int AND lower(email) = lower($2::text)) r) AS existing,
      (SELECT coalesce(sum(1 + guests), 0)::int FROM rsvps
       WHERE event_id = $1::int AND status IN ('going', 'checked_in')) AS seats`,
    [eventId, email],
  )) as { existing: JsonRsvp | null; seats: number }[];
  return { existing: row.existing ? fromJson(row.existing) : undefined, seats: row.seats };
}

/** An RSVP row as row_to_json writes it: its times as text. */
type JsonRsvp = Omit<RsvpRow, 'createdAt' | 'modifiedAt'> & { createdAt: string; modifiedAt: string };

const fromJson = (row: JsonRsvp): RsvpRow => ({
  ...row,
  createdAt: new Date(row.createdAt),
  modifiedAt: new Date(row.modifiedAt),
});

/** Seats taken: RSVPs going or checked in, each with its guests. */
export async function seatsTaken(run: Driver, eventId: number): Promise<number> {
  const [{ seats }] = (await run(
    `SELECT coalesce(sum(1 + guests), 0)::int AS seats FROM rsvps
    WHERE event_id = $1::int AND status IN ('going', 'checked_in')`,
    [eventId],
  )) as { seats: number }[];
  return seats;
}

/** The waiting list, first come first. */
export async function waitingList(run: Driver, eventId: number): Promise<{ id: number; guests: number }[]> {
  return (await run(`SELECT id, guests FROM rsvps WHERE event_id = $1::int AND status = 'waiting' ORDER BY arrival`, [
    eventId,
  ])) as { id: number; guests: number }[];
}

/** Seats these waiting RSVPs; answers the IDs of those seated. */
export async function seatWaiting(run: Driver, ids: number[]): Promise<number[]> {
  if (!ids.length) return [];
  const rows = (await run(
    `UPDATE rsvps SET status = 'going', modified_at = clock_timestamp()
    WHERE id = ANY($1::int[]) AND status = 'waiting' RETURNING id`,
    [ids],
  )) as { id: number }[];
  return rows.map((row) => row.id);
}

/** What proves a hold on an RSVP without an account: the hashes of its confirmation code and owner's token. */
export interface RsvpSecrets {
  /** Hex, as `encode` writes it: the same from every driver (a bytea is a Buffer from some, not all). */
  confirmHash: string | null;
  confirmExpires: Date | null;
  tokenHash: string | null;
}

export async function rsvpSecrets(run: Driver, eventId: number, id: number): Promise<RsvpSecrets | undefined> {
  const rows = (await run(
    `SELECT encode(confirm_hash, 'hex') AS "confirmHash", confirm_expires AS "confirmExpires",
      encode(token_hash, 'hex') AS "tokenHash"
    FROM rsvps WHERE id = $1::int AND event_id = $2::int`,
    [id, eventId],
  )) as RsvpSecrets[];
  return rows.at(0);
}

/** The event's RSVP with this ID, if any. */
export async function findRsvp(run: Driver, eventId: number, id: number): Promise<RsvpRow | undefined> {
  const rows = (await run(`SELECT ${RSVP_COLUMNS} FROM rsvps WHERE id = $1::int AND event_id = $2::int`, [
    id,
    eventId,
  ])) as RsvpRow[];
  return rows.at(0);
}

/** What a new RSVP is written with (its times are the write's; its place on the waiting list's order, the next). */
export type NewRsvp = Pick<RsvpRow, 'eventId' | 'accountId' | 'name' | 'email' | 'guests' | 'answer' | 'status'> & {
  /** Unconfirmed (without an account): the hash of its link's code, and when the link expires. */
  unconfirmed?: { confirmHash: Buffer; confirmExpires: Date };
};

/**
 * Inserts the RSVP with a new check-in code (lib/check-in-code.ts). A code another RSVP of the event
 * holds already is drawn again: the unique index on (event_id, check_in_code) decides, with ON
 * CONFLICT on that index alone, so the transaction goes on (an error would abort it); any other
 * conflict still fails. `draw` is the code generator (a test's may repeat a code).
 */
export async function insertRsvp(run: Driver, rsvp: NewRsvp, draw: () => string = newCheckInCode): Promise<RsvpRow> {
  for (let attempt = 1; ; attempt++) {
    const rows = (await run(
      `INSERT INTO rsvps (event_id, account_id, name, email, guests, answer, status, confirmed, confirm_hash,
        confirm_expires, check_in_code, created_at, modified_at)
      VALUES ($1::int, $2::int, $3::text, $4::text, $5::int, $6::text::"RsvpAnswer", $7::text::"RsvpStatus",
        $8::boolean, decode($9::text, 'hex'), $10::timestamptz, $11::text, clock_timestamp(), clock_timestamp())
      ON CONFLICT (event_id, check_in_code) WHERE check_in_code IS NOT NULL DO NOTHING
      RETURNING ${RSVP_COLUMNS}`,
      [
        rsvp.eventId,
        rsvp.accountId,
        rsvp.name,
        rsvp.email,
        rsvp.guests,
        rsvp.answer,
        rsvp.status,
        !rsvp.unconfirmed,
        rsvp.unconfirmed?.confirmHash.toString('hex') ?? null,
        rsvp.unconfirmed?.confirmExpires ?? null,
        draw(),
      ],
    )) as RsvpRow[];
    if (rows.length) return rows[0];
    // 40 random bits: a second draw that collides too means the generator is broken, not unlucky.
    if (attempt === MAX_CODE_DRAWS) throw new Error(`No free check-in code for event ${rsvp.eventId}.`);
  }
}

const MAX_CODE_DRAWS = 5;

/** The event's RSVP with this check-in code (normalised: lib/check-in-code.ts), if any. */
export async function findRsvpByCode(run: Driver, eventId: number, code: string): Promise<RsvpRow | undefined> {
  const rows = (await run(`SELECT ${RSVP_COLUMNS} FROM rsvps WHERE event_id = $1::int AND check_in_code = $2::text`, [
    eventId,
    code,
  ])) as RsvpRow[];
  return rows.at(0);
}

/**
 * A change of an RSVP: the fields given (undefined keeps one), and with `anew` a new place at the end
 * of the waiting list's order, for an RSVP that asks for a seat anew (approved, or answered again).
 */
export interface RsvpChange {
  accountId?: number | null;
  name?: string;
  email?: string;
  guests?: number;
  answer?: RsvpAnswer;
  status?: RsvpStatus;
  confirmed?: boolean;
  /** null clears it (a code used, a token replaced). */
  confirmHash?: Buffer | null;
  confirmExpires?: Date | null;
  tokenHash?: Buffer | null;
  anew?: boolean;
}

const CHANGED: Record<Exclude<keyof RsvpChange, 'anew'>, string> = {
  accountId: 'account_id = $%::int',
  name: 'name = $%::text',
  email: 'email = $%::text',
  guests: 'guests = $%::int',
  answer: 'answer = $%::text::"RsvpAnswer"',
  status: 'status = $%::text::"RsvpStatus"',
  confirmed: 'confirmed = $%::boolean',
  confirmHash: "confirm_hash = decode($%::text, 'hex')",
  confirmExpires: 'confirm_expires = $%::timestamptz',
  tokenHash: "token_hash = decode($%::text, 'hex')",
};

export async function updateRsvpRow(run: Driver, id: number, change: RsvpChange): Promise<RsvpRow> {
  const values: unknown[] = [id];
  const sets = Object.entries(CHANGED).flatMap(([field, set]) => {
    const value = change[field as keyof typeof CHANGED];
    if (value === undefined) return [];
    // Hashes go as hex text (decoded in the statement), which every driver passes as it is.
    values.push(Buffer.isBuffer(value) ? value.toString('hex') : value);
    return [set.replace('%', String(values.length))];
  });
  if (change.anew) sets.push(`arrival = nextval('rsvp_arrival_seq')`);
  sets.push('modified_at = clock_timestamp()');
  const [row] = (await run(
    `UPDATE rsvps SET ${sets.join(', ')} WHERE id = $1::int RETURNING ${RSVP_COLUMNS}`,
    values,
  )) as RsvpRow[];
  return row;
}

/**
 * Events among this one and its occurrences that have RSVPs to settle after their settings changed:
 * seats taken above the capacity, or RSVPs waiting; in ID order, each with its capacity and seats.
 * Their rows are locked already: the write of the settings updated them (an occurrence changed on its
 * own is not: it kept its settings).
 */
export async function eventsToSettle(
  run: Driver,
  id: number,
): Promise<{ id: number; capacity: number | null; startUtc: Date; seats: number; waiting: boolean }[]> {
  return (await run(
    `
    SELECT e.id, e.rsvp_capacity AS capacity, e.start_utc AS "startUtc", s.seats, s.waiting
    FROM events e
    CROSS JOIN LATERAL (
      SELECT coalesce(sum(1 + r.guests) FILTER (WHERE r.status IN ('going', 'checked_in')), 0)::int AS seats,
        bool_or(r.status = 'waiting') AS waiting
      FROM rsvps r WHERE r.event_id = e.id) s
    WHERE (e.id = $1::int OR (e.parent_id = $1::int AND NOT e.is_exception))
      AND (s.waiting OR (e.rsvp_capacity IS NOT NULL AND s.seats > e.rsvp_capacity))
    ORDER BY e.id`,
    [id],
  )) as { id: number; capacity: number | null; startUtc: Date; seats: number; waiting: boolean }[];
}
