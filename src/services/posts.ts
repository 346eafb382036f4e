// What events, venues and organizers share as posts: publication dates, slugs, the answer
// to "may this caller read this item", and the `modified_after` filter (terms have it too).
import { canRead } from '../auth/permissions.js';
import type { Caller } from '../auth/roles.js';
import type { PrismaClient, Tx } from '../db/client.js';
import { InvalidInput, NotReadable, type ResourceType } from '../domain/errors.js';
import type { PostStatus } from '../domain/posts.js';
import type { ServiceContext } from './context.js';
import { DateTime } from 'luxon';
import { parseDateInput } from '../lib/dates.js';
import { firstFreeSlug, slugify } from '../lib/slug.js';

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
    if (!parsed) throw new InvalidInput({ date_utc: 'date_utc is not a date this service understands.' });
    return parsed.toJSDate();
  }
  if (input.date !== undefined) {
    const parsed = parseDateInput(input.date, siteZone);
    if (!parsed) throw new InvalidInput({ date: 'date is not a date this service understands.' });
    return parsed.toJSDate();
  }
  return undefined;
}

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

/** NotReadable unless the caller may read the item. */
export function assertReadable(type: ResourceType, caller: Caller, item: PostHead) {
  if (!canRead(caller, item)) throw new NotReadable(type);
}

/** Whether the caller may read the event: a filter that names one treats any other as missing. */
export async function readableEvent(db: PrismaClient, caller: Caller, id: number): Promise<boolean> {
  const row = await db.event.findUnique({ where: { id }, select: { status: true, authorId: true } });
  return row !== null && canRead(caller, row);
}

export async function userExists(tx: Tx, id: number) {
  return (await tx.user.findUnique({ where: { id }, select: { id: true } })) !== null;
}

/** `modified_after` of a list as an instant (to the millisecond, site zone unless it has an offset), or a 400. */
export function modifiedAfter(value: string | number | undefined, ctx: ServiceContext): Date | undefined {
  if (value === undefined) return undefined;
  const instant = parseDateInput(value, ctx.siteZone, DateTime.fromJSDate(ctx.now));
  const year = instant?.toUTC().year;
  if (!instant || year === undefined || year < 1 || year > 9999) {
    throw new InvalidInput({ modified_after: 'modified_after is not a date this service understands.' });
  }
  return instant.toJSDate();
}
