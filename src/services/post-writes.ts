// The steps every update and delete of an event, venue or organizer takes, in this order: lock the
// row, find it (404 when the key names nothing), check the caller may change it, claim the version
// If-Match names; then for updates a slug, and for deletes the trash or the end.
import { Prisma } from '../../generated/prisma/client.js';
import { canDeleteForGood, canEdit, forbidden } from '../auth/permissions.js';
import type { Tx } from '../db/client.js';
import { AlreadyTrashed, NotFound, PreconditionFailed, type ResourceType } from '../domain/errors.js';
import { describeKey, type Key, type Precondition } from '../domain/posts.js';
import type { ServiceContext } from './context.js';
import { freeSlug, type PostHead } from './posts.js';

/** A post table as the write steps need it. */
export interface PostTable<Row extends PostHead> {
  type: ResourceType;
  name: 'events' | 'venues' | 'organizers';
  /** The row as the write goes on with it, read after the lock. */
  read: (id: number) => Promise<Row | null | undefined>;
  /** Prisma's delegate of the table, for the conditional write of If-Match. */
  delegate: { updateMany(args: { where: object; data: object }): Promise<{ count: number }> };
}

/**
 * The post a key names, locked for the rest of the transaction, once the caller may change it and
 * If-Match (if sent) holds. A second writer of the same row waits on the lock; the read that
 * follows is a new statement, so under READ COMMITTED it sees the first writer's committed row.
 * Without the lock a partial update wrote back fields it was not sent (title, status, times, the
 * name a slug or stateprovince derives from) from a copy read before another writer committed.
 * Locking rather than writing only the named columns, because what a write stores depends on the
 * current row: derived columns (UTC times from wall-clock times and zone), and permission checks
 * on the current status and author.
 */
export async function lockForWrite<Row extends PostHead>(
  tx: Tx,
  ctx: ServiceContext,
  table: PostTable<Row>,
  key: Key,
): Promise<Row> {
  const where = 'id' in key ? Prisma.sql`id = ${key.id}::int` : Prisma.sql`slug = ${key.slug}::text`;
  const locked = await tx.$queryRaw<
    { id: number }[]
  >`SELECT id FROM ${Prisma.raw(table.name)} WHERE ${where} FOR UPDATE`;
  const current = locked[0] ? await table.read(locked[0].id) : undefined;
  if (!current) throw new NotFound(table.type, describeKey(key));
  if (!canEdit(ctx.caller, current)) throw forbidden(ctx.caller);
  await claimVersion(table.delegate, current.id, ctx.precondition);
  return current;
}

/**
 * Enforces If-Match inside a write's transaction: the row is touched only if its modification time
 * is one the client named. The update locks the row, so a second writer holding the same version
 * waits, then finds it changed: PreconditionFailed, and nothing written.
 */
export async function claimVersion(
  delegate: PostTable<PostHead>['delegate'],
  id: number,
  precondition: Precondition | undefined,
): Promise<void> {
  if (!precondition || precondition.versions === '*') return;
  const { count } = await delegate.updateMany({
    where: { id, modifiedAt: { in: precondition.versions } },
    data: { modifiedAt: new Date() },
  });
  if (count === 0) throw new PreconditionFailed();
}

/** The slug after an update: the current one unless another is asked for, then the first free one. */
export async function slugForUpdate(
  requested: string | undefined,
  current: PostHead,
  name: string,
  type: ResourceType,
  takenLike: (base: string) => Promise<string[]>,
): Promise<string> {
  return requested !== undefined && requested !== current.slug
    ? freeSlug(requested, name, type, takenLike)
    : current.slug;
}

/**
 * A delete: to the trash (AlreadyTrashed when it is there already), or with `force` for good, which
 * only editors and administrators may do. Answers what `trash` or `remove` answer.
 */
export async function trashOrDelete<T>(
  ctx: ServiceContext,
  type: ResourceType,
  current: PostHead,
  force: boolean,
  ops: { trash: () => Promise<T>; remove: () => Promise<T> },
): Promise<T> {
  if (force) {
    if (!canDeleteForGood(ctx.caller)) {
      throw forbidden(ctx.caller, 'Sorry, only editors and administrators may delete for good.');
    }
    return ops.remove();
  }
  if (current.status === 'trash') throw new AlreadyTrashed(type, current.id);
  return ops.trash();
}
