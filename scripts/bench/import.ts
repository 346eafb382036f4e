// The import part of `npm run bench`: 10,000 events (with their venues, organizers and terms) from
// the stand-in site of The Events Calendar that the tests use (test/setup/tec-site.ts, real answers
// of that service copied to new IDs and dates), over loopback HTTP through its paged lists, as
// `npm run import -- tec` does; then the same import again, where everything is unchanged.
import { createUser } from '../../src/auth/accounts.js';
import { openDatabase } from '../../src/db/client.js';
import { importTec } from '../../src/import/commands.js';
import { plainProgress } from '../../src/import/progress.js';
import { addEvents, startTecSite } from '../../test/setup/tec-site.js';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createPostgres } from './fixtures.js';

/** BENCH_IMPORT_EVENTS: fewer for a quick look. */
const EVENTS = Number(process.env.BENCH_IMPORT_EVENTS ?? 10_000);

export async function timeImport(storage: Parameters<typeof openDatabase>[0], label: string): Promise<void> {
  const site = await startTecSite();
  addEvents(site, EVENTS - site.events.length);
  const db = await openDatabase(storage);
  try {
    const admin = await createUser(db.prisma, {
      login: 'bench-import',
      password: 'bench-password',
      role: 'administrator',
    });
    const run = {
      ctx: {
        db: db.prisma,
        caller: { id: admin.id, login: admin.login, role: 'administrator' as const },
        siteZone: 'UTC',
        now: new Date(),
      },
      dryRun: false,
      concurrency: Number(process.env.BENCH_IMPORT_CONCURRENCY ?? (label === 'postgresql' ? 4 : 1)),
    };
    // The stand-in site is on loopback, which an import reads only when allowed.
    const options = {
      base: site.base,
      user: site.credentials.user,
      appPassword: site.credentials.password,
      fetch: { allowPrivate: true },
    };
    const quiet = plainProgress({ write: () => true });
    const timed = async () => {
      const started = performance.now();
      const summary = await importTec(run, options, quiet, new AbortController().signal);
      return { summary, seconds: (performance.now() - started) / 1000 };
    };
    const first = await timed();
    const second = await timed();
    const { created } = first.summary.counts.event;
    const failed = first.summary.skipped.length + second.summary.skipped.length;
    console.log(
      `  import of ${created.toLocaleString('en')} events from a site of The Events Calendar on ${label}: ` +
        `${first.seconds.toFixed(1)} s, ${(created / first.seconds).toFixed(0)} events/s; ` +
        `again (${second.summary.counts.event.unchanged.toLocaleString('en')} unchanged): ${second.seconds.toFixed(1)} s; ` +
        `peak RSS of the process ${(process.resourceUsage().maxRSS / 1024).toFixed(0)} MB` +
        (failed ? `; ${failed} SKIPPED` : ''),
    );
    if (failed || created !== site.events.length) process.exitCode = 1;
  } finally {
    await db.close();
    await site.close();
  }
}

/** The import of 10,000 events, on PostgreSQL and on PGlite (scripts/bench/import.ts). */
export async function measureImports() {
  const database = await createPostgres('import');
  try {
    await timeImport({ databaseUrl: database.url, dataDir: '' }, 'postgresql');
  } finally {
    await database.drop();
  }
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'calendar-bench-import-'));
  try {
    await timeImport({ dataDir }, 'pglite');
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}
