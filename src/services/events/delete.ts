// Deleting an event: to the trash or for good, an occurrence alone or with those after it, or a
// series whole.
import { type Key } from '../../domain/posts.js';
import { type EventRecord } from '../../domain/records.js';
import type { ServiceContext } from '../context.js';
import { trashOrDelete } from '../post-writes.js';
import { inTransaction } from '../retry.js';
import { readBack } from './read.js';
import { type Scope, resolveScope, lockTarget } from './scope.js';
import { dropOccurrences, removeSeries } from '../series/edits.js';

/**
 * To the trash, or for good with `force`; answers the event as it is after the trash, or as it was.
 * A series goes with all its occurrences. An occurrence goes alone (`this`, its default), and its
 * start becomes an EXDATE of the series, so that it does not come back; `following` ends the series
 * before it and takes the later occurrences too; `all` deletes the series.
 */
export async function deleteEvent(ctx: ServiceContext, key: Key, force: boolean, scope?: Scope): Promise<EventRecord> {
  const before = await inTransaction(ctx, async (tx) => {
    const locked = await lockTarget(tx, ctx, key);
    const { kind, chosen, series } = await resolveScope(tx, ctx, locked, scope);
    // Read under the lock, so that the answer to a delete for good is the event as it was deleted.
    const current = await readBack(tx, locked.id);
    if (series && chosen === 'all') {
      const whole = await readBack(tx, series.id);
      await removeSeries(tx, ctx, whole, force);
      return whole;
    }
    if (kind === 'series') {
      await removeSeries(tx, ctx, current, force);
      return current;
    }
    await trashOrDelete(ctx, 'event', current, force, {
      trash: () =>
        tx.event.update({
          where: { id: current.id },
          data: { status: 'trash', modifiedAt: new Date(), isException: kind === 'occurrence' },
        }),
      remove: () => tx.event.delete({ where: { id: current.id } }),
    });
    if (kind === 'occurrence') await dropOccurrences(tx, ctx, locked, chosen === 'following', force);
    return current;
  });
  return force ? before : readBack(ctx.db, before.id);
}
