// How much of the slow, exhaustive testing a run does. CI (CI=true) and TEST_FULL=1 run all of it;
// a developer's `npm test` runs half of the generated requests, with the same seeds, so that
// the loop stays short. FUZZ_RUNS sets the number outright.
export const FULL_RUN = process.env.CI === 'true' || process.env.TEST_FULL === '1';

/** Generated requests per fuzz property: `full` in a full run, half otherwise. */
export function fuzzRuns(full: number): number {
  if (process.env.FUZZ_RUNS) return Number(process.env.FUZZ_RUNS);
  return FULL_RUN ? full : Math.ceil(full / 2);
}

export const FUZZ_SEED = Number(process.env.FUZZ_SEED ?? 20261122);
