import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    pool: 'forks',
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // The JSON report lets CI print a plain 'N passed, N failed' line.
    reporters: ['default', 'json'],
    outputFile: { json: 'test-artifacts/vitest.json' },
  },
});
