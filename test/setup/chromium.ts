// Debian's headless Chromium for the browser tests (playwright-core drives it; its own browser
// downloads do not work here). CI installs it (.ci/run); elsewhere the tests are skipped when it is
// missing, and say so.
import fs from 'node:fs';
import { chromium } from 'playwright-core';

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
