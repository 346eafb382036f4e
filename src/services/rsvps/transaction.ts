// The transaction of every RSVP write (write.ts, anonymous.ts): in its turn in this instance
// (queue.ts says why), in one transaction, again on a conflict (services/retry.ts). It runs on the
// driver beneath Prisma, as creates do (services/events/create.ts): Prisma's takes about six times
// as long for the same statements, and the event's row stays locked all the while. Inside a batch's
// transaction, which has no driver of its own, through Prisma as a savepoint of it (db/savepoints.ts).
import { type Driver, statementsOf, transactionDriverOf } from '../../db/driver.js';
import type { ServiceContext } from '../context.js';
import { retryOnConflict } from '../retry.js';
import { queued } from './queue.js';

export function eventWrite<T>(ctx: ServiceContext, eventId: number, work: (run: Driver) => Promise<T>): Promise<T> {
  return queued(ctx.db, eventId, () => rsvpTransaction(ctx, work));
}

/** One transaction of RSVP statements, again on a conflict: eventWrite's, without the queue (erasure.ts). */
export function rsvpTransaction<T>(ctx: ServiceContext, work: (run: Driver) => Promise<T>): Promise<T> {
  const transaction = transactionDriverOf(ctx.db);
  return retryOnConflict(() => (transaction ? transaction(work) : ctx.db.$transaction((tx) => work(statementsOf(tx)))));
}
