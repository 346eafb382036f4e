// The change feed: what changed after a cursor, each change with the object as the caller may read
// it now, or a tombstone when it is gone or no longer readable by the caller (an event that stops
// being public is, to anonymous readers, removed). Replaying the feed from any cursor it gave leaves
// a copy equal to what the caller can read: every change after the cursor is there, each with the
// object's current state.
import { may } from '../auth/capabilities.js';
import { canRead } from '../auth/permissions.js';
import type { Caller } from '../auth/roles.js';
import type { PrismaClient, Tx } from '../db/client.js';
import { Prisma } from '../../generated/prisma/client.js';
import { CursorExpired, InvalidInput } from '../domain/errors.js';
import type { ChangedObject, ChangeRecord } from '../domain/records.js';
import { type ChangeRow, type FeedPosition, selectChanges } from '../queries/changes.js';
import { selectEvents } from '../queries/event-rows.js';
import type { ServiceContext } from './context.js';
import { termsWithIds } from './terms.js';

/** A cursor as clients see it: the feed position, `<xid>-<seq>`. */
const cursorOf = (p: FeedPosition) => `${p.xid}-${p.seq}`;

const MAX_XID = 2n ** 64n - 1n;
const MAX_SEQ = 2n ** 63n - 1n;

/** The position a cursor names; the document's pattern has checked its form, not its range. */
function positionOf(cursor: string): FeedPosition {
  const [xid, seq] = cursor.split('-');
  if (BigInt(xid) > MAX_XID || BigInt(seq) > MAX_SEQ) throw badCursor();
  return { xid: BigInt(xid).toString(), seq: BigInt(seq).toString() };
}

const badCursor = () => new InvalidInput({ since: 'since is not a cursor this feed gave.' });

/**
 * A page of the feed holds `per_page` changes, or fewer when their objects come to about this many
 * bytes: five hundred events with long descriptions would be tens of megabytes to read, hold and
 * write at once. `more` and the cursor then say where the next page begins.
 */
export const CHANGES_MAX_BYTES = 2 * 1024 * 1024;
/** Changes whose objects are read with one statement, so that none holds an embedded database long. */
const CHANGES_READ = 50;

export async function readChanges(
  ctx: ServiceContext,
  since: string | undefined,
  perPage: number,
): Promise<{ items: ChangeRecord[]; next: string; more: boolean }> {
  const position = since === undefined ? undefined : positionOf(since);
  const read = await selectChanges(
    ctx.db,
    position,
    perPage,
    may(ctx.caller, 'read attendee data'),
    may(ctx.caller, 'moderate submissions'),
  );
  if ('expired' in read) throw new CursorExpired();
  if ('ahead' in read) throw badCursor();
  const items = await withObjects(ctx.db, ctx.caller, read.changes, CHANGES_MAX_BYTES);
  const last = items.at(-1);
  if (last && items.length < read.changes.length) return { items, next: last.cursor, more: true };
  return { items, next: cursorOf(read.next), more: read.more };
}

/**
 * The changes, each with its object as `caller` may read it now (each object read once), or none;
 * read CHANGES_READ at a time, and with `maxBytes` only as many as fit in about that many bytes
 * (at least one).
 */
export async function withObjects(
  db: PrismaClient | Tx,
  caller: Caller,
  changes: ChangeRow[],
  maxBytes = Number.POSITIVE_INFINITY,
): Promise<ChangeRecord[]> {
  const records: ChangeRecord[] = [];
  let bytes = 0;
  for (let from = 0; from < changes.length; from += CHANGES_READ) {
    const slice = changes.slice(from, from + CHANGES_READ);
    const objects = await currentObjects(db, caller, slice);
    for (const change of slice) {
      const object = objects.get(`${change.type}:${change.id}`);
      bytes += sizeOf(object);
      if (records.length && bytes > maxBytes) return records;
      records.push({
        cursor: cursorOf(change.position),
        type: change.type,
        id: change.id,
        action: change.action,
        changed: change.changed,
        modifiedAt: change.modifiedAt,
        object,
      });
    }
  }
  return records;
}

/** About how many bytes an object takes in a change: its long texts, and a share for the rest. */
function sizeOf(object: ChangedObject | undefined): number {
  if (!object) return 100;
  const row = object.row as { description?: string; excerpt?: string };
  return 2048 + 2 * ((row.description?.length ?? 0) + (row.excerpt?.length ?? 0));
}

/** The changed objects as they are now, keyed `type:id`; unreadable ones left out. */
async function currentObjects(
  db: PrismaClient | Tx,
  caller: Caller,
  changes: ChangeRow[],
): Promise<Map<string, ChangedObject>> {
  const ids = (...types: ChangeRow['type'][]) => [
    ...new Set(changes.filter((c) => types.includes(c.type)).map((c) => c.id)),
  ];
  /** The rows with these IDs, read only when there are some. */
  const read = async <T>(wanted: number[], rows: (wanted: number[]) => Promise<T[]>): Promise<T[]> =>
    wanted.length ? rows(wanted) : [];
  // RSVPs only to those who may read attendee data: to anyone else they are tombstones, should one
  // reach them (the feed leaves them out for them: queries/changes.ts).
  const rsvpIds = may(caller, 'read attendee data') ? ids('rsvp') : [];
  const [events, venues, organizers, terms, media, rsvps] = await Promise.all([
    read(ids('event'), (id) => selectEvents(db, { where: Prisma.sql`e.id = ANY(${id}::int[])` })),
    read(ids('venue'), (id) => db.venue.findMany({ where: { id: { in: id } } })),
    read(ids('organizer'), (id) => db.organizer.findMany({ where: { id: { in: id } } })),
    read(ids('category', 'tag'), (id) => termsWithIds(db, id)),
    read(ids('media'), (id) => db.media.findMany({ where: { id: { in: id } } })),
    read(rsvpIds, (id) => db.rsvp.findMany({ where: { id: { in: id } } })),
  ]);
  const found = new Map<string, ChangedObject>();
  for (const row of events) if (canRead(caller, row)) found.set(`event:${row.id}`, { type: 'event', row });
  for (const row of venues) if (canRead(caller, row)) found.set(`venue:${row.id}`, { type: 'venue', row });
  for (const row of organizers) {
    if (canRead(caller, row)) found.set(`organizer:${row.id}`, { type: 'organizer', row });
  }
  for (const row of terms) {
    const type = row.taxonomy === 'tribe_events_cat' ? 'category' : 'tag';
    found.set(`${type}:${row.id}`, { type, row });
  }
  // Every uploaded image is public.
  for (const row of media) found.set(`media:${row.id}`, { type: 'media', row });
  for (const row of rsvps) found.set(`rsvp:${row.id}`, { type: 'rsvp', row });
  return found;
}
