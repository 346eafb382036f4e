// The change feed's statements (migration change_feed explains the table and its order). A feed
// position is (xid, seq): the transaction that recorded a change and the change's number. Only
// changes of transactions older than every one still running are given, so a position, once
// passed, never has a change appear behind it.
import { Prisma } from '../../generated/prisma/client.js';
import type { PrismaClient, Tx } from '../db/client.js';
import { selectRows } from '../db/driver.js';

const sql = Prisma.sql;

/** A place in the feed: every change at or before it has been given. Both parts are decimal digits. */
export interface FeedPosition {
  xid: string;
  seq: string;
}

/** Past every change of transactions before `xid` (the largest seq a bigint holds). */
const LAST_SEQ = '9223372036854775807';

export type ChangeAction = 'created' | 'submitted' | 'updated' | 'trashed' | 'deleted';
export type ChangedType = 'event' | 'venue' | 'organizer' | 'category' | 'tag' | 'media' | 'rsvp';

export interface ChangeRow {
  position: FeedPosition;
  type: ChangedType;
  id: number;
  action: ChangeAction;
  /** The object's modification time when the change was recorded. */
  modifiedAt: Date;
  /** When the change was recorded (the database's clock). */
  recordedAt: Date;
  /** What an update of an event changed that those who planned to come need to know (migration event_status_and_online). */
  changed: string[];
}

export interface ChangePage {
  changes: ChangeRow[];
  /** Where the next read starts: after the last change given, or as far as the feed is complete. */
  next: FeedPosition;
  /** Whether more changes were ready than the page held. */
  more: boolean;
}

/** The feed cannot give what lies before the retained changes (`expired`: where they begin), nor what lies ahead of now. */
export type ChangeRead = ChangePage | { expired: FeedPosition } | { ahead: true };

interface Row {
  xmin: string;
  xmax: string;
  pruned_xid: string;
  pruned_seq: string;
  seq: string | null;
  xid: string | null;
  object_type: ChangedType | null;
  object_id: number | null;
  action: ChangeAction | null;
  modified_ms: string | null;
  recorded_ms: string | null;
  changed: string[] | null;
}

/** A row that holds a change (the horizon's row alone holds none when the page is empty). */
interface FoundRow extends Row {
  seq: string;
  xid: string;
  object_type: ChangedType;
  object_id: number;
  action: ChangeAction;
  modified_ms: string;
  recorded_ms: string;
  changed: string[];
}

const compare = (a: FeedPosition, b: FeedPosition) => {
  const [ax, bx, as, bs] = [BigInt(a.xid), BigInt(b.xid), BigInt(a.seq), BigInt(b.seq)];
  if (ax !== bx) return ax < bx ? -1 : 1;
  if (as === bs) return 0;
  return as < bs ? -1 : 1;
};

/**
 * Up to `limit` changes after `after` (from the oldest retained change without it), in feed order.
 * The page, the running transactions' horizon and the retention mark come from one statement, so
 * from one snapshot: the position given for an empty page is exact. Changes of RSVPs only with
 * `attendeeData`: for anyone else they are not in the feed at all, so a page is as full as it
 * would be without them and nothing of them shows but a gap in the numbers, which every rolled-back
 * write leaves too.
 */
export async function selectChanges(
  db: PrismaClient | Tx,
  after: FeedPosition | undefined,
  limit: number,
  attendeeData = false,
  submissions = false,
): Promise<ChangeRead> {
  const rows = await selectRows<Row>(
    db,
    sql`WITH horizon AS (
          SELECT pg_snapshot_xmin(s.snapshot) AS xmin, pg_snapshot_xmax(s.snapshot) AS xmax,
            p.xid AS pruned_xid, p.seq AS pruned_seq
          FROM changes_pruned p, (SELECT pg_current_snapshot() AS snapshot) s),
        page AS (
          SELECT c.* FROM changes c, horizon h
          WHERE (c.xid, c.seq) > (${after?.xid ?? '0'}::xid8, ${after?.seq ?? '0'}::bigint)
            AND (c.xid, c.seq) > (h.pruned_xid, h.pruned_seq)
            AND c.xid < h.xmin
            AND (${attendeeData}::boolean OR c.object_type <> 'rsvp')
            AND (${submissions}::boolean OR c.action <> 'submitted')
          ORDER BY c.xid, c.seq LIMIT ${limit + 1}::int)
        SELECT h.xmin::text AS xmin, h.xmax::text AS xmax, h.pruned_xid::text AS pruned_xid, h.pruned_seq::text AS pruned_seq,
          page.seq::text AS seq, page.xid::text AS xid, page.object_type, page.object_id, page.action, page.changed,
          (extract(epoch FROM page.modified_at) * 1000)::bigint::text AS modified_ms,
          (extract(epoch FROM page.recorded_at) * 1000)::bigint::text AS recorded_ms
        FROM horizon h LEFT JOIN page ON true ORDER BY page.xid, page.seq`,
  );
  const [{ xmin, xmax, pruned_xid, pruned_seq }] = rows;
  if (after) {
    const pruned = { xid: pruned_xid, seq: pruned_seq };
    if (compare(after, pruned) < 0) return { expired: pruned };
    // A position no transaction has reached: the feed never gave it. (Not the horizon: the horizon
    // of a later snapshot may lie behind an earlier one's when the earlier one skipped a VACUUM's
    // transaction, which records no change.)
    if (BigInt(after.xid) >= BigInt(xmax)) return { ahead: true };
  }
  const found = rows.filter((r): r is FoundRow => r.seq !== null);
  const changes = found.slice(0, limit).map((r): ChangeRow => ({
    position: { xid: r.xid, seq: r.seq },
    type: r.object_type,
    id: r.object_id,
    action: r.action,
    modifiedAt: new Date(Number(r.modified_ms)),
    recordedAt: new Date(Number(r.recorded_ms)),
    changed: r.changed,
  }));
  const last = changes.at(-1)?.position;
  // A full page ends at its last change; a page that holds all the feed has ends where the running
  // transactions begin (the horizon), never behind where it started.
  if (found.length > limit && last) return { changes, next: last, more: true };
  const complete = { xid: (BigInt(xmin) - 1n).toString(), seq: LAST_SEQ };
  const start = after ?? { xid: pruned_xid, seq: pruned_seq };
  return { changes, next: compare(complete, start) > 0 ? complete : start, more: false };
}

/** How far the feed is behind what has been written: the changes committed that it cannot give yet. */
export interface FeedLag {
  /** Committed changes held back behind a transaction still running. */
  heldBack: number;
  /** How long the oldest of them has waited, in seconds (0 when none waits). */
  lagSeconds: number;
}

/**
 * The feed gives only changes of transactions older than every one still running (the snapshot's
 * xmin), so one long transaction anywhere on the server holds back every change committed after it
 * began, and every webhook with them. These are the committed changes at or past that horizon.
 */
export async function selectFeedLag(db: PrismaClient): Promise<FeedLag> {
  const [row] = await selectRows<{ held_back: number; lag_seconds: number }>(
    db,
    sql`SELECT count(*)::int AS held_back,
          coalesce(extract(epoch FROM now() - min(recorded_at)), 0)::float8 AS lag_seconds
        FROM changes WHERE xid >= pg_snapshot_xmin(pg_current_snapshot())`,
  );
  return { heldBack: row.held_back, lagSeconds: Math.max(0, row.lag_seconds) };
}
