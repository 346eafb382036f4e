// What an update or delete of an event means: which event it locks (a series before its
// occurrences, so that writers of one series queue on it and cannot deadlock), and which events of a
// series it applies to (docs/decisions.md, "Recurring events").
import { canEdit, forbidden } from '../../auth/permissions.js';
import type { Tx } from '../../db/client.js';
import { InvalidInput, NotFound } from '../../domain/errors.js';
import { type Key } from '../../domain/posts.js';
import type { ServiceContext } from '../context.js';
import { lockForWrite, type PostTable } from '../post-writes.js';
import { type PostHead } from '../posts.js';
import { lockSeries, occurrenceOf } from '../series/occurrences.js';

/** Which events of a series a write or delete of one of them means (docs/decisions.md, "Recurring events"). */
export type Scope = 'this' | 'following' | 'all';

type EventKind = 'single' | 'series' | 'occurrence';
function kindOf(row: EventRow): EventKind {
  if (row.recurrence.length) return 'series';
  return row.parentId === null ? 'single' : 'occurrence';
}

/** The scope a write means, its default filled in; 400 for a scope that does not apply. */
function checkScope(kind: EventKind, scope: Scope | undefined): Scope {
  if (kind === 'occurrence') return scope ?? 'this';
  if (scope === 'following' || (kind === 'series' && scope === 'this')) {
    throw new InvalidInput({
      scope:
        kind === 'series'
          ? 'scope=this and scope=following name one occurrence: send them to the occurrence.'
          : 'scope=following applies to occurrences of a series only.',
    });
  }
  return 'all';
}

/**
 * What a write or delete of `current` with `scope` means: its kind, the scope with its default, and
 * for `all` or `following` sent to an occurrence its series, which the caller must be allowed to
 * change too (an occurrence may have an author of its own). `following` from the first occurrence
 * is the whole series: nothing would be left before it.
 */
export async function resolveScope(tx: Tx, ctx: ServiceContext, current: EventRow, scope: Scope | undefined) {
  const kind = kindOf(current);
  const chosen = checkScope(kind, scope);
  if (kind !== 'occurrence' || chosen === 'this') return { kind, chosen, series: undefined };
  const { series: seriesId, original } = occurrenceOf(current);
  const series = await readRow(tx, seriesId);
  if (!canEdit(ctx.caller, series)) throw forbidden(ctx.caller);
  return { kind, chosen: chosen === 'following' && original <= series.startLocal ? 'all' : chosen, series };
}

export type EventRow = NonNullable<Awaited<ReturnType<Tx['event']['findUnique']>>>;

export async function readRow(tx: Tx, id: number): Promise<EventRow> {
  const row = await tx.event.findUnique({ where: { id } });
  if (!row) throw new NotFound('event', id);
  return row;
}

/**
 * The event a key names, locked, once the caller may change it and If-Match holds. An occurrence's
 * series is locked first, as every write of a series locks it before its occurrences
 * (services/series/occurrences.ts), so that the two cannot deadlock.
 */
export async function lockTarget(tx: Tx, ctx: ServiceContext, key: Key): Promise<EventRow> {
  const where = 'id' in key ? { id: key.id } : { slug: key.slug };
  const parent = (await tx.event.findUnique({ where, select: { parentId: true } }))?.parentId;
  if (parent) await lockSeries(tx, parent);
  const current = await lockForWrite(
    tx,
    ctx,
    eventTable(tx, (id) => tx.event.findUnique({ where: { id } })),
    key,
  );
  // Moved to another series (a split) between the two reads: lock that one too.
  if (current.parentId && current.parentId !== parent) await lockSeries(tx, current.parentId);
  return current;
}

function eventTable<Row extends PostHead>(tx: Tx, read: PostTable<Row>['read']): PostTable<Row> {
  return { type: 'event', name: 'events', read, delegate: tx.event };
}
