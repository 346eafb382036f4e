// Work over many items without holding the event loop: every other request (a health probe, a
// small read) waits for as long as one piece of synchronous work runs. Big answers (a calendar
// feed of a thousand events) are built item by item, giving the loop a turn whenever a slice has
// run for `budgetMs`; test/http/event-loop.test.ts measures the loop's delay while they are built.
import { performance } from 'node:perf_hooks';
import { setImmediate as nextTurn } from 'node:timers/promises';

/** How long one slice of work may hold the loop, in milliseconds. */
export const SLICE_MS = 10;

/** Calls `work` on each item in order, yielding to the event loop between slices. */
export async function eachInSlices<T>(items: Iterable<T>, work: (item: T) => void, budgetMs = SLICE_MS): Promise<void> {
  let started = performance.now();
  for (const item of items) {
    work(item);
    if (performance.now() - started >= budgetMs) {
      await nextTurn();
      started = performance.now();
    }
  }
}

/** The items mapped by `work`, in order, yielding to the event loop between slices. */
export async function mapInSlices<T, R>(items: readonly T[], work: (item: T) => R, budgetMs = SLICE_MS): Promise<R[]> {
  const results: R[] = [];
  await eachInSlices(items, (item) => results.push(work(item)), budgetMs);
  return results;
}

/**
 * For loops that await between items: `await turn()` after each item yields to the event loop once
 * a slice has run for `budgetMs`, as eachInSlices does.
 */
export function turns(budgetMs = SLICE_MS): () => Promise<void> {
  let started = performance.now();
  return async () => {
    if (performance.now() - started < budgetMs) return;
    await nextTurn();
    started = performance.now();
  };
}
