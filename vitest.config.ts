import { availableParallelism } from 'node:os';
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
  // The iCalendar reader's rules as calendar programs write them run in the fast part
  // (import-ics-programs.test.ts); these import whole sites and calendars, or measure memory.
  'test/http/import-category-trees.test.ts',
  'test/http/import-ics.test.ts',
  'test/http/import-images.test.ts',
  'test/http/import-tec.test.ts',
  'test/http/disk-full.test.ts',
  'test/http/database-outage.test.ts',
  'test/http/slow-clients.test.ts',
  'test/unit/migrate.test.ts',
];

/**
 * Files of both parts: the fast part runs a small budget of their generated cases, callers and
 * primers, the slow part all of it (test/setup/budget.ts reads TEST_PART).
 */
const BUDGETED = [
  'test/http/document-fuzz.test.ts',
  'test/http/routes-fuzz.test.ts',
  'test/http/permissions.test.ts',
  'test/http/doors.test.ts',
  'test/http/kept-answers-whole.test.ts',
  'test/unit/recurrence-window.test.ts',
  'test/unit/recurrence-split.test.ts',
  'test/unit/event-times.test.ts',
];

/** Files of the slow part that measure time, and run one at a time after the rest. */
const ALONE = ['test/http/event-loop.test.ts', 'test/http/submission-flood.test.ts'];

export default defineConfig({
  test: {
    projects: [
      // The fast files share their workers' modules (isolate: false): each file starts servers of its
      // own on databases of its own, so nothing a file sees is another's, and importing the service
      // anew for each file took 171 of the run's 362 s. So a worker can hand a file's embedded
      // database on to its next file, put back to the template's rows (test/setup/databases.ts),
      // which it is told here: a global set-up sees the root project only.
      {
        extends: true,
        test: {
          name: 'fast',
          include: ['test/**/*.test.ts'],
          exclude: [...SLOW, ...ALONE],
          isolate: false,
          provide: { sharedModules: true },
          env: { TEST_PART: 'fast' },
        },
      },
      { extends: true, test: { name: 'slow', include: [...SLOW, ...BUDGETED], env: { TEST_PART: 'slow' } } },
      // How long the event loop is held is wall-clock time, which other files running at once on
      // the two cores stretch (a 40 ms search measured 133 ms): these run after the slow part, alone.
      {
        extends: true,
        test: { name: 'alone', include: ALONE, fileParallelism: false, sequence: { groupOrder: 1 } },
      },
    ],
    globalSetup: ['test/setup/global-setup.ts'],
    pool: 'forks',
    // One worker per core (two at least, four at most: each holds embedded databases of a few hundred
    // MB). The fast files compute more than they wait: PGlite runs on the worker's own thread, so a
    // third worker on two cores only stretched each test's wall time by half, and with another run
    // beside it by three, past the timeout (caldav.test.ts on a busy two-core machine).
    maxWorkers: Math.min(4, Math.max(2, availableParallelism())),
    // A backstop for a test that hangs, not a budget for one that computes.
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // The JSON report lets CI print a plain 'N passed, N failed' line.
    reporters: ['default', 'json'],
    outputFile: { json: 'test-artifacts/vitest.json' },
  },
});
