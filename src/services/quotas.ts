// Quotas per account (docs/decisions.md, "Quotas"): one account below editor (a contributor, an
// author) may not fill the database on its own. It may create so many items an hour, hold so many
// series, and its series so many occurrences in all. Editors and administrators are trusted with
// the whole calendar and are held to none; a series an editor writes is not held to its author's.
import { DEFAULT_QUOTAS } from '../config/limits.js';
import type { Tx } from '../db/client.js';
import { hasRole, type Role } from '../auth/roles.js';
import { QuotaExceeded } from '../domain/errors.js';
import type { ServiceContext } from './context.js';

const quotasOf = (ctx: Pick<ServiceContext, 'quotas'>) => ctx.quotas ?? DEFAULT_QUOTAS;

/**
 * Counts one create of the caller in its hour, or refuses it (429 with the seconds to the next
 * hour). The last statement of the create's transaction, so that a create that fails counts for
 * nothing, and the account's counter is the last lock it takes (docs/architecture.md, "Locks"). The
 * conditional upsert is the read-modify-write: concurrent creates of one account queue on its row,
 * and only those that find room add one. `run` is the transaction's (Prisma's, or the driver's in
 * services/events/create.ts plainCreate).
 */
export async function chargeCreate(
  run: (text: string, values: unknown[]) => Promise<unknown[]>,
  ctx: Pick<ServiceContext, 'caller' | 'quotas'>,
): Promise<void> {
  const limit = quotasOf(ctx).createsPerHour;
  const { caller } = ctx;
  if (!chargesCreate(ctx) || !caller) return;
  const rows = await run(
    `INSERT INTO account_creates AS a (user_id, hour, creates) VALUES ($1::int, date_trunc('hour', now()), 1)
     ON CONFLICT (user_id, hour) DO UPDATE SET creates = a.creates + 1 WHERE a.creates < $2::int
     RETURNING creates`,
    [caller.id, limit],
  );
  if (!rows.length) {
    const nextHour = Math.ceil(Date.now() / 3_600_000) * 3_600_000;
    throw new QuotaExceeded('creates', limit, Math.max(1, Math.ceil((nextHour - Date.now()) / 1000)));
  }
}

/** Whether chargeCreate counts the caller's creates (else it writes nothing). */
export function chargesCreate(ctx: Pick<ServiceContext, 'caller' | 'quotas'>): boolean {
  const { caller } = ctx;
  return Boolean(quotasOf(ctx).createsPerHour && caller && !caller.ownsNothing && !hasRole(caller, 'editor'));
}

/** chargeCreate in a Prisma transaction. */
export const chargeCreateIn = (tx: Tx, ctx: Pick<ServiceContext, 'caller' | 'quotas'>) =>
  chargeCreate((text, values) => tx.$queryRawUnsafe<unknown[]>(text, ...values), ctx);

/** Whether a series of this author, written by this caller (none: housekeeping), is held to quotas. */
async function heldAccount(tx: Tx, caller: ServiceContext['caller'] | undefined, authorId: number | null) {
  if (authorId === null || (caller && hasRole(caller, 'editor'))) return false;
  // The author's row, locked until the write ends: writes of one account's series take turns here,
  // so that two of them cannot both find room for the last occurrences (docs/architecture.md, "Locks").
  const authors = await tx.$queryRaw<{ role: Role }[]>`
    SELECT role::text AS role FROM users WHERE id = ${authorId}::int FOR NO KEY UPDATE`;
  const role = authors.at(0)?.role;
  return role !== undefined && !hasRole({ id: authorId, login: '', role }, 'editor');
}

/** 403 when the author holds as many series (not in the trash) as it may, this one not counted. */
export async function assertSeriesRoom(
  tx: Tx,
  ctx: Pick<ServiceContext, 'caller' | 'quotas'>,
  authorId: number | null,
  seriesId: number,
): Promise<void> {
  const limit = quotasOf(ctx).series;
  if (!limit || !(await heldAccount(tx, ctx.caller, authorId))) return;
  const [{ n }] = await tx.$queryRaw<{ n: number }[]>`
    SELECT count(*)::int AS n FROM events
    WHERE author_id = ${authorId}::int AND recurrence <> '{}' AND status <> 'trash' AND id <> ${seriesId}::int`;
  if (n >= limit) throw new QuotaExceeded('series', limit);
}

/**
 * How many more occurrences the series' author may hold (Infinity when held to no quota). The
 * author's row stays locked to the end of the write, which adds them.
 */
export async function occurrenceRoom(
  tx: Tx,
  ctx: Pick<ServiceContext, 'quotas'> & { caller?: ServiceContext['caller'] },
  authorId: number | null,
): Promise<number> {
  const limit = quotasOf(ctx).occurrences;
  if (!limit || !(await heldAccount(tx, ctx.caller, authorId))) return Number.POSITIVE_INFINITY;
  const [{ n }] = await tx.$queryRaw<{ n: number }[]>`
    SELECT count(*)::int AS n FROM events WHERE author_id = ${authorId}::int AND parent_id IS NOT NULL`;
  return Math.max(0, limit - n);
}
