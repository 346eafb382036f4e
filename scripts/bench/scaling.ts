// The scaling part of `npm run bench` (scripts/bench/run.ts): lists on a small and a large calendar.
import { scaledCalendar } from './calendar.js';
import { type Print, ratio } from './figures.js';
import { createPostgres, seed } from './fixtures.js';
import { type Figures, measure } from './load.js';
import { scenarios } from './scenarios.js';
import { startService } from './service.js';
import { CONNECTIONS, SECONDS } from './settings.js';

/**
 * Scaling: the same lists on calendars of 1,000 and of 100,000 events in the same proportions
 * (PostgreSQL), so that the filtered list finds about as many events in both. The searches find
 * a hundred times as many at 100,000: their figures say what a search that matches a tenth of a
 * large calendar costs.
 */
const SCALED = ['default list', 'filtered list', 'venue search', 'event search'] as const;

export async function measureScaling(print: Print) {
  const scaled = new Map<string, Figures>();
  for (const events of [1_000, 100_000]) {
    const database = await createPostgres(`scale_${events}`);
    try {
      const fixtures = await seed({ kind: 'postgresql', url: database.url }, scaledCalendar(events));
      const all = scenarios(fixtures);
      const service = await startService({ kind: 'postgresql', url: database.url });
      try {
        for (const name of SCALED) {
          const figures = await measure(service, all[name], SECONDS, CONNECTIONS);
          scaled.set(`${name} ${events}`, figures);
          print(`PostgreSQL, ${events.toLocaleString('en')} events`, name, figures);
        }
      } finally {
        await service.stop();
      }
    } finally {
      await database.drop();
    }
  }
  console.log('\nScaling, 100,000 events against 1,000 (latency ratio; 1.5 or less is the target):');
  for (const name of SCALED) {
    const small = scaled.get(`${name} 1000`);
    const large = scaled.get(`${name} 100000`);
    if (!small || !large) throw new Error(`no scaling figures for ${name}`);
    console.log(
      `  ${name.padEnd(14)} p50 ${ratio(large.p50, small.p50)}  p99 ${ratio(large.p99, small.p99)}  throughput ${(large.requestsPerSecond / small.requestsPerSecond).toFixed(2)}×`,
    );
  }
}
