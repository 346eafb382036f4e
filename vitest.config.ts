import { defineConfig } from 'vitest/config';

// The machines run in UTC, where reading a zoneless time as local time happens to be right; the
// tests run in a zone with daylight saving and a non-whole-hour offset history, so that such a
// mistake shows.
process.env.TZ = 'America/Sao_Paulo';

/**
 * The slow part (`npm run test:slow`): tests that start the service or the CLI as processes, drive
 * a browser or third-party generators, import whole calendars, or measure the event loop and memory
 * (which a machine busy with the rest of the suite disturbs). `npm test` runs everything else; CI
 * runs both (.ci/run).
 */
const SLOW = [
  'test/process/**/*.test.ts',
  'test/cli/**/*.test.ts',
  'test/browser/**/*.test.ts',
  'test/tools/**/*.test.ts',
  'test/http/import-*.test.ts',
  'test/http/disk-full.test.ts',
  'test/http/database-outage.test.ts',
  'test/http/slow-clients.test.ts',
  'test/unit/migrate.test.ts',
];

/** Files of the slow part that measure time, and run one at a time after the rest. */
const ALONE = ['test/http/event-loop.test.ts'];

export default defineConfig({
  test: {
    projects: [
      // The fast files share their workers' modules (isolate: false): each file starts servers of its
      // own on databases of its own, so nothing a file sees is another's, and importing the service
      // anew for each file took 171 of the run's 362 s.
      {
        extends: true,
        test: { name: 'fast', include: ['test/**/*.test.ts'], exclude: [...SLOW, ...ALONE], isolate: false },
      },
      { extends: true, test: { name: 'slow', include: SLOW } },
      // How long the event loop is held is wall-clock time, which other files running at once on
      // the two cores stretch (a 40 ms search measured 133 ms): these run after the slow part, alone.
      {
        extends: true,
        test: { name: 'alone', include: ALONE, fileParallelism: false, sequence: { groupOrder: 1 } },
      },
    ],
    globalSetup: ['test/setup/global-setup.ts'],
    pool: 'forks',
    // Many files wait more than they compute (child processes, timeouts, the database), so a third
    // worker on two cores shortens the run; CI, which runs every file on two databases, keeps two.
    maxWorkers: process.env.CI ? 2 : 3,
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // The JSON report lets CI print a plain 'N passed, N failed' line.
    reporters: ['default', 'json'],
    outputFile: { json: 'test-artifacts/vitest.json' },
  },
});
