// Reading events: one by its ID or slug, as its caller may see it; the iCalendar UIDs they came with.
// Writes read their result back through here too. (A series' overrides: services/series/occurrences.ts.)
import { Prisma } from '../../../generated/prisma/client.js';
import type { PrismaClient, Tx } from '../../db/client.js';
import { NotFound } from '../../domain/errors.js';
import { describeKey, type Key } from '../../domain/posts.js';
import { type EventRecord } from '../../domain/records.js';
import { selectEvents } from '../../queries/event-rows.js';
import type { ServiceContext } from '../context.js';
import { assertReadable } from '../posts.js';

/** The event an ID or slug names, with everything its representation shows, or undefined. */
async function findEvent(db: PrismaClient | Tx, key: Key): Promise<EventRecord | undefined> {
  const where = 'id' in key ? Prisma.sql`e.id = ${key.id}::int` : Prisma.sql`e.slug = ${key.slug}::text`;
  return (await selectEvents(db, { where, prepare: true }))[0];
}

export async function getEvent(ctx: ServiceContext, key: Key): Promise<EventRecord> {
  const row = await findEvent(ctx.db, key);
  if (!row) throw new NotFound('event', describeKey(key));
  assertReadable('event', ctx.caller, row);
  return row;
}

/** The event as stored, read after the write's transaction has committed. */
export async function readBack(db: PrismaClient | Tx, id: number): Promise<EventRecord> {
  const row = await findEvent(db, { id });
  if (!row) throw new NotFound('event', id); // deleted by another request in between
  return row;
}

/**
 * The UIDs these events, and the series of those that are occurrences, are exported with, by ID:
 * the one each was imported with from iCalendar or written with by a CalDAV client, when no other
 * event holds it (services/items/ledger.ts exportUid). An exported event keeps its UID, so that importing
 * the export again, or a calendar app that had the original, finds the same event (ical/write-calendar.ts).
 */
export async function importedUids(ctx: ServiceContext, rows: EventRecord[]): Promise<Map<number, string>> {
  const ids = [...new Set(rows.flatMap((r) => (r.parentId === null ? [r.id] : [r.id, r.parentId])))];
  const uids = new Map<number, string>();
  // A feed's thousand events a hundred at a time: on the embedded database a statement holds the
  // event loop while it runs (services/event-list.ts reads the feed so too).
  for (let from = 0; from < ids.length; from += UIDS_READ) {
    const found = await ctx.db.$queryRaw<{ id: number; uid: string }[]>`
      SELECT local_id AS id, external_id AS uid FROM imported_items
      WHERE local_id = ANY(${ids.slice(from, from + UIDS_READ)}::int[]) AND kind = 'event' AND exported`;
    for (const row of found) uids.set(row.id, row.uid);
  }
  return uids;
}

const UIDS_READ = 100;
