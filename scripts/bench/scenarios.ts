// The requests the parts measure, on a seeded calendar's fixtures.
import type { Fixtures } from './fixtures.js';
import type { Scenario } from './load.js';
import { API } from './settings.js';

export const READS = ['single event', 'default list', 'filtered list', 'venue search', 'event search'] as const;

export function scenarios(f: Fixtures): Record<(typeof READS)[number] | 'event creation', Scenario> {
  let n = 0;
  const next = () => n++;
  const filtered = `${API}/events?categories=${f.categoryId}&venue=${f.venueId}&start_date=${f.windowStart}&end_date=${f.windowEnd}`;
  return {
    'single event': {
      name: 'single event',
      path: () => `${API}/events/${f.eventIds[next() % f.eventIds.length]}`,
      expect: 200,
    },
    'default list': { name: 'default list', path: () => `${API}/events`, expect: 200 },
    'filtered list': { name: 'filtered list', path: () => filtered, expect: 200 },
    'venue search': { name: 'venue search', path: () => `${API}/venues?search=lyon`, expect: 200 },
    // Two words in the other order than the titles have them ("Jazz Night").
    'event search': { name: 'event search', path: () => `${API}/events?search=night%20jazz`, expect: 200 },
    'event creation': {
      name: 'event creation',
      method: 'POST',
      path: () => `${API}/events`,
      headers: { authorization: `Bearer ${f.bearer}` },
      body: () => {
        const day = 1 + (next() % 28);
        return JSON.stringify({
          title: `Benchmark Evening ${n}`,
          description: '<p>Created by the benchmark.</p>',
          start_date: `2027-03-${String(day).padStart(2, '0')} 19:00:00`,
          end_date: `2027-03-${String(day).padStart(2, '0')} 21:00:00`,
          venue: f.venueId,
          organizer: [f.organizerId],
          categories: [f.categoryId],
          tags: [f.tagId],
          cost: '10',
        });
      },
      expect: 201,
    },
  };
}

/**
 * The same read as a signed-in caller sends it, with an application password: its answer is built
 * every time (kept answers are for anonymous reads only, http/answer-cache.ts). The password is
 * checked with scrypt once per process and remembered (auth/secrets.ts verifySecret); measure()'s
 * warm-up sends that first request, so the run measures the build.
 */
export const signedIn = (read: Scenario, bearer: string): Scenario => ({
  ...read,
  headers: { ...read.headers, authorization: `Bearer ${bearer}` },
});
