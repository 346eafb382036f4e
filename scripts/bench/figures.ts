// The figures the parts print: one row per measured run, the best of several rounds.
import type { Figures } from './load.js';

/** Prints one measured run (run.ts prints the table). */
export type Print = (setup: string, name: string, figures: Figures, ratio?: number) => void;

/** The round with the most requests per second, with the most memory and all the failures of every round. */
export function best(runs: Figures[]): Figures {
  const top = runs.reduce((a, b) => (b.requestsPerSecond > a.requestsPerSecond ? b : a));
  const failureKinds: Record<string, number> = {};
  for (const run of runs)
    for (const [kind, count] of Object.entries(run.failureKinds))
      failureKinds[kind] = (failureKinds[kind] ?? 0) + count;
  return {
    ...top,
    peakRssMb: Math.max(...runs.map((run) => run.peakRssMb ?? 0)) || undefined,
    failures: runs.reduce((sum, run) => sum + run.failures, 0),
    failureKinds,
    requests: runs.reduce((sum, run) => sum + run.requests, 0),
  };
}

export const HEADER = ['setup', 'scenario', 'req/s', 'p50', 'p99', 'peak RSS MB', '÷ baseline', ''];
export const WIDTHS = [34, 16, 8, 6, 6, 12, 11, 0];
export const table = (rows: string[][]) =>
  rows
    .map((row) => row.map((cell, i) => (i < 2 ? cell.padEnd(WIDTHS[i]) : cell.padStart(WIDTHS[i]))).join(' '))
    .join('\n');
export const ratio = (a: number, b: number) => (b > 0 ? `${(a / b).toFixed(2)}×` : `${a}/${b} ms`);
