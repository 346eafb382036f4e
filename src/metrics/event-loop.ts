// How long the event loop was held: while one piece of synchronous work runs, every other request
// of the instance waits (lib/slices.ts builds big answers a slice at a time for this reason). A timer
// due every SAMPLE_MS observes how late it ran, so the histogram tells how often and how long
// requests could not be served. prom-client's default `nodejs_eventloop_lag_*` gauges give the
// same from perf_hooks as figures since the last scrape.
import { performance } from 'node:perf_hooks';
import { Histogram } from 'prom-client';
import { registry } from './registry.js';

const SAMPLE_MS = 20;

export const loopDelay = new Histogram({
  name: 'event_loop_delay_seconds',
  help: `How late a timer due every ${SAMPLE_MS} ms ran: how long the event loop was held, requests waiting meanwhile.`,
  buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
  registers: [registry],
});

let sampling = false;

/** Starts sampling once per process; the timer never keeps the process alive. */
export function sampleLoopDelay(): void {
  if (sampling) return;
  sampling = true;
  let due = performance.now() + SAMPLE_MS;
  setInterval(() => {
    const now = performance.now();
    loopDelay.observe(Math.max(0, now - due) / 1000);
    due = now + SAMPLE_MS;
  }, SAMPLE_MS).unref();
}
