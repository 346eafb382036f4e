// What events, venues and organizers share as posts: publication dates, images, slugs, truthy
// words, and the answer to "may this caller see or change this item".
import { Prisma as PrismaNS } from '../../generated/prisma/client.js';
import { canDeleteForGood, canEdit, canRead, forbidden, type PostStatus } from '../auth/permissions.js';
import type { Caller } from '../auth/roles.js';
import type { Prisma, Tx } from '../db/client.js';
import { type Precondition, preconditionFailed } from '../http/conditional.js';
import { ApiError, invalidParams, type ResourceType } from '../http/errors.js';
import { parseDateInput } from '../lib/dates.js';
import { firstFreeSlug, slugify } from '../lib/slug.js';

/** How a request names an event, venue or organizer: by ID or by slug. */
export type Key = { id: number } | { slug: string };

export const whereKey = (key: Key) => ('id' in key ? { id: key.id } : { slug: key.slug });
/** The key as the not-found message names it. */
export const describeKey = (key: Key) => ('id' in key ? key.id : key.slug);

export interface PostHead {
  id: number;
  authorId: number | null;
  status: PostStatus;
  slug: string;
}

/** The publication date a write asks for: `date_utc` in UTC, else `date` in the site's zone. */
export function publicationDate(
  input: { date?: string | number; date_utc?: string | number },
  siteZone: string,
): Date | undefined {
  if (input.date_utc !== undefined) {
    const parsed = parseDateInput(input.date_utc, 'UTC');
    if (!parsed) throw invalidParams({ date_utc: 'date_utc is not a date this service understands.' });
    return parsed.toJSDate();
  }
  if (input.date !== undefined) {
    const parsed = parseDateInput(input.date, siteZone);
    if (!parsed) throw invalidParams({ date: 'date is not a date this service understands.' });
    return parsed.toJSDate();
  }
  return undefined;
}

/**
 * The stored image for an `image` input: a URL is kept; an empty value or 0 removes the image. IDs
 * would name uploaded media, which this service does not hold, so any other ID is refused.
 */
export function imageValue(image: string | number | undefined): string | null | undefined {
  if (image === undefined) return undefined;
  if (image === '' || image === 0 || image === '0') return null;
  if (typeof image === 'number' || /^\d+$/.test(image)) {
    throw invalidParams({ image: `There is no uploaded image with ID ${image}; give the image's URL instead.` });
  }
  if (!/^https?:\/\/[^\s]+$/i.test(image))
    throw invalidParams({ image: 'image must be an http(s) URL or the ID of an image.' });
  return image;
}

/** The image object of the representation (reference part 1.6) for a stored image URL. */
export function imageObject(url: string | null) {
  if (!url) return undefined;
  const extension = /\.([A-Za-z0-9]{1,5})$/.exec(new URL(url).pathname)?.[1]?.toLowerCase();
  return { url, ...(extension ? { extension } : {}) };
}

const TRUTHY = new Set(['1', 'true', 'yes', 'y', 'on', 'enable', 'enabled']);

/** The reference's truthy test: JSON true, or one of its words in any case. */
export const truthy = (value: boolean | string | number | undefined | null) =>
  value === true || (typeof value === 'string' && TRUTHY.has(value.trim().toLowerCase())) || value === 1;

/** A slug free in one resource's table: the requested one, or one derived from the name. */
export async function freeSlug(
  requested: string | undefined,
  name: string,
  fallback: string,
  takenLike: (base: string) => Promise<string[]>,
): Promise<string> {
  const base = (requested !== undefined ? slugify(requested) : '') || slugify(name) || fallback;
  return firstFreeSlug(base, await takenLike(base));
}

/** 403 `<type>-not-accessible` unless the caller may read the item. */
export function assertReadable(type: ResourceType, caller: Caller, item: PostHead) {
  if (!canRead(caller, item))
    throw new ApiError(403, `${type}-not-accessible`, `The requested ${type} is not accessible.`);
}

/** `rest_forbidden` unless the caller may change the item. */
export function assertEditable(caller: Caller, item: PostHead) {
  if (!canEdit(caller, item)) throw forbidden(caller);
}

export const globalId = (site: string, id: number) => `${new URL(site).host}?id=${id}`;

/** Whether the caller may read the event: a filter that names one treats any other as missing. */
export async function readableEvent(prisma: Prisma, caller: Caller, id: number): Promise<boolean> {
  const row = await prisma.event.findUnique({ where: { id }, select: { status: true, authorId: true } });
  return row !== null && canRead(caller, row);
}

export async function userExists(tx: Tx, id: number) {
  return (await tx.user.findUnique({ where: { id }, select: { id: true } })) !== null;
}

/**
 * A delete of an event, venue or organizer: to the trash (410 when it is there already), or with
 * `force` for good, which only editors and administrators may do. Answers what `trash` or `remove`
 * answer: the item after the trash, or as it was.
 */
export async function trashOrDelete<T>(
  type: ResourceType,
  caller: Caller,
  current: PostHead,
  force: boolean,
  ops: { trash: () => Promise<T>; remove: () => Promise<T> },
): Promise<T> {
  assertEditable(caller, current);
  if (force) {
    if (!canDeleteForGood(caller))
      throw forbidden(caller, 'Sorry, only editors and administrators may delete for good.');
    return ops.remove();
  }
  if (current.status === 'trash') {
    throw new ApiError(410, `${type}-is-in-trash`, `The ${type} with ID ${current.id} is already in the trash.`);
  }
  return ops.trash();
}

/**
 * Locks the post a key names until the write's transaction ends, and answers its ID (undefined when
 * there is none). Every update and delete of a post starts here. A second writer of the same row
 * waits on the lock; the read that follows it is a new statement, so under READ COMMITTED it sees
 * the first writer's committed row. Without the lock a partial update wrote back fields it was not
 * sent (title, status, times, the name a slug or stateprovince derives from) from a copy read before
 * another writer committed. Locking rather than writing only the named columns, because what a write
 * stores depends on the current row: derived columns (UTC times from wall-clock times and zone), and
 * permission checks on the current status and author.
 */
export async function lockPost(
  tx: Tx,
  table: 'events' | 'venues' | 'organizers',
  key: Key,
): Promise<number | undefined> {
  const where = 'id' in key ? PrismaNS.sql`id = ${key.id}::int` : PrismaNS.sql`slug = ${key.slug}::text`;
  const rows = await tx.$queryRaw<{ id: number }[]>`SELECT id FROM ${PrismaNS.raw(table)} WHERE ${where} FOR UPDATE`;
  return rows[0]?.id;
}

/**
 * Enforces If-Match inside a write's transaction: the row is touched only if its modification time
 * is one the client named. The update locks the row, so a second writer holding the same version
 * waits, then finds it changed: 412, and nothing written.
 */
export async function claimVersion(
  table: { updateMany(args: { where: object; data: object }): Promise<{ count: number }> },
  id: number,
  precondition: Precondition | undefined,
): Promise<void> {
  if (!precondition || precondition.versions === '*') return;
  const { count } = await table.updateMany({
    where: { id, modifiedAt: { in: precondition.versions } },
    data: { modifiedAt: new Date() },
  });
  if (count === 0) throw preconditionFailed();
}
