import { defineConfig } from 'vitest/config';

// The machines run in UTC, where reading a zoneless time as local time happens to be right; the
// tests run in a zone with daylight saving and a non-whole-hour offset history, so that such a
// mistake shows.
process.env.TZ = 'America/Sao_Paulo';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
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
