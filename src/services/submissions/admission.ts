// Submissions an instance works on at once (docs/decisions.md, "Public submissions"). A flood from
// many addresses passes the per-address limits; each submission is a transaction of a dozen
// statements, and sixteen at once took the instance's CPU and pool from its readers (their median
// went from milliseconds to most of a second: test/http/submission-flood.test.ts). So each instance
// takes a few at a time (SUBMISSIONS_AT_ONCE) and queues a bounded number more; past the queue a
// submission is refused at once (503, Retry-After), as an RSVP queue is (services/rsvps/queue.ts).
// Readers never queue here.
import pLimit, { type LimitFunction } from 'p-limit';
import type { PrismaClient } from '../../db/client.js';
import { SubmissionRefused } from '../../domain/errors.js';

/** Submissions an instance holds waiting, beyond those it works on. */
export const MAX_WAITING = 64;

/** Per database client: each instance (each pool) takes its own, as separate processes do. */
const limits = new WeakMap<PrismaClient, LimitFunction>();

export function admitted<T>(db: PrismaClient, atOnce: number, work: () => Promise<T>): Promise<T> {
  let limit = limits.get(db);
  if (limit?.concurrency !== atOnce) {
    limit = pLimit(atOnce);
    limits.set(db, limit);
  }
  if (limit.pendingCount >= MAX_WAITING) {
    return Promise.reject(
      new SubmissionRefused('busy', 'Too many submissions are being taken at once; try again in a moment.'),
    );
  }
  return limit(work);
}
