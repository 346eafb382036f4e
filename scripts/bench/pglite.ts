// The pglite part: the same reads, creation and CalDAV on PGlite, the embedded default.
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { STANDARD } from './calendar.js';
import { measureCalDav } from './caldav.js';
import type { Print } from './figures.js';
import { seed } from './fixtures.js';
import { measure } from './load.js';
import { READS, scenarios } from './scenarios.js';
import { startService } from './service.js';
import { CONNECTIONS, SECONDS } from './settings.js';

/** PGlite, the embedded default, with the same calendar. */
export async function measurePglite(print: Print) {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'calendar-bench-'));
  try {
    const fixtures = await seed({ kind: 'pglite', dataDir }, STANDARD);
    const all = scenarios(fixtures);
    const service = await startService({ kind: 'pglite', dataDir });
    try {
      // Half as long as the runs on PostgreSQL: no baseline to compare with, and the default run is
      // to stay under ten minutes.
      const seconds = Math.max(1, Math.round(SECONDS / 2));
      for (const name of [...READS, 'event creation'] as const)
        print('service on PGlite', name, await measure(service, all[name], seconds, CONNECTIONS));
      await measureCalDav(service.url, fixtures.bearer, fixtures.eventIds, 'service on PGlite', console.log);
    } finally {
      await service.stop();
    }
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}
