// How much of the exhaustive testing a run does (vitest.config.ts, BUDGETED). The slow part
// (vitest.config.ts sets TEST_PART) and TEST_FULL=1 run all of it; the fast part (`npm test`) runs a
// tenth of the generated requests and property cases, with the same seeds, and the permission
// matrices at their edges: the full budget took minutes of CPU on two cores, and timed other files
// out on a busy machine. FUZZ_RUNS sets the number outright.
export const FULL_RUN = process.env.TEST_PART === 'slow' || process.env.TEST_FULL === '1';

/** Generated requests per fuzz property: `full` in a full run, a tenth otherwise. */
export function fuzzRuns(full: number): number {
  if (process.env.FUZZ_RUNS) return Number(process.env.FUZZ_RUNS);
  return FULL_RUN ? full : Math.ceil(full / 10);
}

export const FUZZ_SEED = Number(process.env.FUZZ_SEED ?? 20261122);
