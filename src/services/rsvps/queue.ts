// RSVP writes of one event, one at a time in each instance (docs/decisions.md, "RSVP").
//
// Exactness needs no queue: every RSVP write locks the event's row in its transaction (seats.ts), and
// that lock is what makes the seats exact across instances, whatever each instance does. But a
// write waiting for the lock waits holding a connection of its instance's pool: 150 RSVPs at once
// to one event held every connection, and every other request of the instance (a sign-in, a rate
// limit, a read of another event) waited for one until the pool's limit answered 503. So each
// instance queues the writes of an event in memory, a promise chain per event ID, and sends one at
// a time to the database: an event's writers hold one connection per instance, whatever their
// number, and the lock decides between instances. Writes of different events do not queue on each
// other. The queue is bounded: past MAX_QUEUED writes of one event, a write is refused at once
// (503 with Retry-After) rather than held in memory for as long as the queue takes to drain.
import type { PrismaClient } from '../../db/client.js';
import { RsvpRefused } from '../../domain/errors.js';

/**
 * Writes of one event an instance holds at most, the one running included: about a second and a
 * half of writes at PostgreSQL's pace on a small machine (test/http/rsvp-concurrency.test.ts sends
 * 150 to each instance at once).
 */
export const MAX_QUEUED = 500;

interface Queue {
  /** Settles when the last write queued so far has finished, whatever its outcome. */
  tail: Promise<unknown>;
  /** Writes queued, the one running included. */
  length: number;
}

/** Per database client: each instance (each pool) queues for itself, as separate processes do. */
const queues = new WeakMap<PrismaClient, Map<number, Queue>>();

/** Runs `write` after the writes of the event queued before it, or refuses it when too many are. */
export async function queued<T>(db: PrismaClient, eventId: number, write: () => Promise<T>): Promise<T> {
  let byEvent = queues.get(db);
  if (!byEvent) queues.set(db, (byEvent = new Map<number, Queue>()));
  const queue = byEvent.get(eventId) ?? { tail: Promise.resolve(), length: 0 };
  if (queue.length >= MAX_QUEUED) {
    throw new RsvpRefused('busy', 'Too many RSVPs to this event are being taken at once; try again in a moment.');
  }
  byEvent.set(eventId, queue);
  queue.length++;
  const run = queue.tail.then(write);
  // The next write waits for this one to end, not to succeed.
  queue.tail = run.catch(() => undefined);
  try {
    return await run;
  } finally {
    // The last write queued ends last: an empty queue is forgotten, so idle events hold no memory.
    if (--queue.length === 0) byEvent.delete(eventId);
  }
}
