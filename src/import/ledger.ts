// The mapping of imported items to local ones (prisma/schema.prisma, ImportedItem). It is read and
// written in the transaction that writes the item: the row is locked (FOR UPDATE) before the item
// is written, so two imports of the same source that meet on one item take turns, and the second
// finds the first's mapping. Two that both find no mapping both create; the primary key then
// refuses the second's mapping, its transaction is rolled back and run again (services/retry.ts),
// and it updates the first's item instead.
import { Prisma } from '../../generated/prisma/client.js';
import type { PrismaClient, Tx } from '../db/client.js';
import type { ItemRef } from './items.js';

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
