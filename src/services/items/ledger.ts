// The mapping of imported items to local ones (prisma/schema.prisma, ImportedItem). It is read and
// written in the transaction that writes the item: the row is locked (FOR UPDATE) before the item
// is written, so two imports of the same source that meet on one item take turns, and the second
// finds the first's mapping. Two that both find no mapping both create; the primary key then
// refuses the second's mapping, its transaction is rolled back and run again (services/retry.ts),
// and it updates the first's item instead.
//
// A mapping is its source's: an item is known by (source, kind, external ID), so the same UID from
// two sources, or from an iCalendar file and a CalDAV client, is two items, and no source finds,
// and so updates, what another wrote. Of the rows whose external IDs are UIDs (UID_SOURCES), one
// per event may be `exported`: the UID the event is shown with, never another event's (exportUid).
import { Prisma } from '../../../generated/prisma/client.js';
import type { PrismaClient, Tx } from '../../db/client.js';
import type { ItemRef } from '../../domain/external-items.js';

/** The longest ID of an item at its source that the mapping holds (imported_items.external_id). */
export const MAX_EXTERNAL_ID = 1000;

export interface Mapping {
  localId: number;
  contentHash: string;
  sourceModified: string | null;
}

export async function findMapping(tx: Tx, source: string, ref: ItemRef): Promise<Mapping | undefined> {
  const rows = await tx.$queryRaw<Mapping[]>`
    SELECT local_id AS "localId", content_hash AS "contentHash", source_modified AS "sourceModified"
    FROM imported_items
    WHERE source = ${source} AND kind = ${ref.kind} AND external_id = ${ref.externalId}
    FOR UPDATE`;
  return rows.at(0);
}

/**
 * Records the local item. A new mapping is inserted, never upserted: a concurrent import that
 * mapped the item first makes this one fail and run again (see above) instead of losing its item.
 */
export async function saveMapping(
  tx: Tx,
  source: string,
  ref: ItemRef & { modified?: string },
  localId: number,
  contentHash: string,
  isNew: boolean,
): Promise<void> {
  const data = { localId, contentHash, sourceModified: ref.modified ?? null, importedAt: new Date() };
  const key = { source, kind: ref.kind, externalId: ref.externalId };
  if (isNew) await tx.importedItem.create({ data: { ...key, ...data } });
  else await tx.importedItem.update({ where: { source_kind_externalId: key }, data });
}

/**
 * Makes the UID of the source's event item the one its event is exported with, unless another
 * live event is exported with it or the event already has one; whether it now is. An event gone or
 * in the trash keeps no UID: its claim is given up first. Two writers claiming one UID at once
 * collide on the unique index (migration uid_identity) and the loser runs again (services/retry.ts),
 * to find the UID taken.
 */
export async function exportUid(tx: Tx, source: string, uid: string): Promise<boolean> {
  await tx.$executeRaw`
    UPDATE imported_items i SET exported = false
    WHERE i.kind = 'event' AND i.exported AND i.external_id = ${uid}
      AND NOT EXISTS (SELECT FROM events e WHERE e.id = i.local_id AND e.status <> 'trash')`;
  const rows = await tx.$queryRaw<{ exported: boolean }[]>`
    UPDATE imported_items i SET exported = true
    WHERE i.source = ${source} AND i.kind = 'event' AND i.external_id = ${uid}
      AND (i.exported OR (
        NOT EXISTS (SELECT FROM imported_items o WHERE o.kind = 'event' AND o.exported AND o.external_id = i.external_id)
        AND NOT EXISTS (SELECT FROM imported_items o WHERE o.kind = 'event' AND o.exported AND o.local_id = i.local_id)))
    RETURNING exported`;
  return rows.length > 0;
}

/** The live event (not in the trash) exported with this UID, if any. */
export async function uidHolder(tx: Tx, uid: string): Promise<number | undefined> {
  const rows = await tx.$queryRaw<{ id: number }[]>`
    SELECT e.id FROM imported_items i JOIN events e ON e.id = i.local_id
    WHERE i.kind = 'event' AND i.exported AND i.external_id = ${uid} AND e.status <> 'trash'`;
  return rows.at(0)?.id;
}

/**
 * Makes the source's rows of this UID (the series' and its changed occurrences', `UID#...`) those
 * of the event `eventId` and its occurrences: rows the source left on other events (gone, or which
 * lost the UID in the trash) are forgotten, and the series' row is added if missing, not exported
 * (the event is exported with this UID already, or with its GUID).
 */
export async function mapUidTo(tx: Tx, source: string, uid: string, eventId: number): Promise<void> {
  await tx.$executeRaw`
    DELETE FROM imported_items
    WHERE source = ${source} AND kind = 'event'
      AND (external_id = ${uid} OR left(external_id, ${uid.length + 1}::int) = ${uid + '#'})
      AND local_id NOT IN (SELECT id FROM events WHERE id = ${eventId}::int OR parent_id = ${eventId}::int)`;
  await tx.$executeRaw`
    INSERT INTO imported_items (source, kind, external_id, local_id, content_hash)
    VALUES (${source}, 'event', ${uid}, ${eventId}::int, '') ON CONFLICT DO NOTHING`;
}

/** Forgets what the source mapped to this UID (the series' row and its occurrences'): it starts a new event. */
export async function forgetUid(tx: Tx, source: string, uid: string): Promise<void> {
  await tx.$executeRaw`
    DELETE FROM imported_items WHERE source = ${source} AND kind = 'event'
      AND (external_id = ${uid} OR left(external_id, ${uid.length + 1}::int) = ${uid + '#'})`;
}

/** Every item imported from the source before, by kind and external ID, a page at a time. */
export async function* mappedItemPages(db: PrismaClient, source: string, size = 1000) {
  let after: { kind: string; externalId: string } | undefined;
  for (;;) {
    const rows = await db.importedItem.findMany({
      where: {
        source,
        ...(after
          ? { OR: [{ kind: { gt: after.kind } }, { kind: after.kind, externalId: { gt: after.externalId } }] }
          : {}),
      },
      select: { kind: true, externalId: true, localId: true },
      orderBy: [{ kind: 'asc' }, { externalId: 'asc' }],
      take: size,
    });
    if (rows.length) yield rows;
    if (rows.length < size) return;
    after = rows[rows.length - 1];
  }
}

/** Whether a local item still exists, and whether it is in the trash. */
export async function localState(
  tx: Tx,
  table: 'events' | 'venues' | 'organizers' | 'terms',
  id: number,
): Promise<'present' | 'trash' | 'gone'> {
  const status = table === 'terms' ? Prisma.sql`'publish'` : Prisma.sql`status`;
  const rows = await tx.$queryRaw<{ status: string }[]>`
    SELECT ${status} AS status FROM ${Prisma.raw(table)} WHERE id = ${id}`;
  const row = rows.at(0);
  if (!row) return 'gone';
  return row.status === 'trash' ? 'trash' : 'present';
}
