// Two writers can pass a service's checks at once; a unique index then rejects one of them, and it
// runs again and sees the other's row (a derived slug moves on to the next number). Each round lets
// at least one of the racing writers through; a short random pause keeps the others from meeting
// again at once. Two writers that lock the same rows in opposite orders (an event's inline venues
// named in another order) deadlock; PostgreSQL aborts one, which runs again the same way. A write
// whose venue, term, parent or author was deleted after it checked it fails its foreign key; run
// again, its checks find the row gone and answer 400.
import { setTimeout as sleep } from 'node:timers/promises';
import { isForeignKeyViolation, isTransient, isUniqueViolation } from '../db/errors.js';
import { Conflict } from '../domain/errors.js';
import type { Tx } from '../db/client.js';
import type { ServiceContext } from './context.js';

export async function retryOnConflict<T>(work: () => Promise<T>, attempts = 10): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await work();
    } catch (err) {
      if (!(isUniqueViolation(err) || isTransient(err) || isForeignKeyViolation(err))) throw err;
      // Still colliding after every attempt: the client may try again later (409 with Retry-After).
      if (attempt >= attempts) throw new Conflict();
      await sleep(Math.random() * 5 * attempt);
    }
  }
}

/** Runs a write in one transaction, again while it collides with concurrent writers (as above). */
export const inTransaction = <T>(ctx: ServiceContext, work: (tx: Tx) => Promise<T>): Promise<T> =>
  retryOnConflict(() => ctx.db.$transaction(work));
