// Debian's headless Chromium for the browser tests (playwright-core drives it; its own browser
// downloads do not work here). CI installs it (.ci/run); elsewhere the tests are skipped when it is
// missing, and say so.
import fs from 'node:fs';
import { type Browser, chromium } from 'playwright-core';
import { afterAll, beforeAll } from 'vitest';
import { startServer, type TestServer } from './server.js';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

export const chromiumAvailable = fs.existsSync(CHROMIUM);
if (!chromiumAvailable && process.env.CI) throw new Error(`Chromium is required in CI and is not at ${CHROMIUM}`);
if (!chromiumAvailable)
  console.warn(`Skipping the browser tests: no Chromium at ${CHROMIUM} (apt-get install chromium).`);

const FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
];

export const launchChromium = () => chromium.launch({ executablePath: CHROMIUM, args: FLAGS });

/**
 * A test server (on PGlite, its settings read from `env` over the tests') and Chromium for one
 * suite: started before its tests, closed after them.
 * The fields are there from the suite's first test on.
 */
export function serverAndBrowser(env: Record<string, string> = {}): { s: TestServer; browser: Browser } {
  const suite = {} as { s: TestServer; browser: Browser };
  beforeAll(async () => {
    suite.s = await startServer('pglite', env);
    suite.browser = await launchChromium();
    fs.mkdirSync('test-artifacts', { recursive: true });
  }, 60_000);
  afterAll(async () => {
    await suite.browser?.close();
    await suite.s?.close();
  });
  return suite;
}
