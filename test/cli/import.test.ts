// `npm run import` as docs/import.md gives it: a process of its own on the service's database (PGlite in
// a directory, and PostgreSQL), its summary, its exit statuses, and a second run that duplicates
// nothing.
import { execFile, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPostgresDatabase, databaseKinds } from '../setup/databases.js';
import { openDatabase } from '../../src/db/client.js';
import { addEvents, startTecSite, type TecSite } from '../setup/tec-site.js';

const ICS = path.join(import.meta.dirname, '..', 'fixtures', 'ics', 'calendar.ics');

interface Ran {
  code: number;
  stdout: string;
  stderr: string;
}

describe.each(databaseKinds)('npm run import on %s', (kind) => {
  let env: Record<string, string>;
  let cleanup: () => Promise<void>;
  let site: TecSite;
  let open: () => ReturnType<typeof openDatabase>;
  const run = (script: string, ...args: string[]) =>
    new Promise<Ran>((resolve) => {
      execFile(
        process.execPath,
        ['--import', 'tsx', `scripts/${script}.ts`, ...args],
        { env: { ...process.env, ...env } },
        (err, stdout, stderr) => {
          resolve({ code: err ? Number(err.code ?? 1) : 0, stdout, stderr });
        },
      );
    });

  beforeAll(async () => {
    site = await startTecSite();
    if (kind === 'pglite') {
      const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'cal-import-'));
      env = { DATA_DIR: dataDir, DATABASE_URL: '' };
      open = () => openDatabase({ dataDir });
      cleanup = () => {
        fs.rmSync(dataDir, { recursive: true, force: true });
        return Promise.resolve();
      };
    } else {
      const created = await createPostgresDatabase();
      env = { DATABASE_URL: created.url };
      open = () => openDatabase({ databaseUrl: created.url, dataDir: '' });
      cleanup = created.drop;
    }
  });
  afterAll(async () => {
    await site.close();
    await cleanup();
  });

  it('needs an administrator to write as, and refuses other schemes', async () => {
    const none = await run('import', 'ics', ICS);
    expect(none.code, none.stderr).toBe(1);
    expect(none.stderr).toContain('There is no administrator here');
    expect(
      (await run('users', 'create', 'admin', '--role', 'administrator', '--password', 'admin-password')).code,
    ).toBe(0);
    const ftp = await run('import', 'tec', 'ftp://example.org/wp-json/tribe/events/v1');
    expect(ftp.code).toBe(1);
    expect(ftp.stderr).toContain('Only http: and https:');
    expect((await run('import', 'nothing')).code).toBe(2);
    // A password in the URL is refused, and not repeated.
    const inUrl = await run('import', 'tec', 'http://admin:s3cret-pw@127.0.0.1:9/wp-json/tribe/events/v1');
    expect(inUrl.code).toBe(1);
    expect(inUrl.stderr).toContain('--app-password');
    expect(inUrl.stderr).not.toContain('s3cret-pw');
    // An account that may not create events is refused before anything is written.
    expect((await run('users', 'create', 'reader', '--password', 'reader-password')).code).toBe(0);
    const reader = await run('import', 'ics', ICS, '--as', 'reader');
    expect(reader.code).toBe(1);
    expect(reader.stderr).toContain('may not create events');
  }, 120_000);

  it('answers an option without its value, or an unknown one, with the usage, not a stack trace', async () => {
    for (const args of [
      ['ics', ICS, '--as'],
      ['tec', site.base, '--user', '--dry-run'],
      ['ics', ICS, '--no-such-option'],
      ['tec', site.base, '--max-pages', '0'],
      ['tec', site.base, '--max-items', 'many'],
    ]) {
      const wrong = await run('import', ...args);
      expect(wrong.code, args.join(' ')).toBe(2);
      expect(wrong.stderr).toContain('Usage: npm run import');
      expect(wrong.stderr).not.toMatch(/^\s+at /m);
    }
    expect((await run('import', 'ics', ICS, '--as')).stderr).toMatch(/^Option '--as <value>' argument missing/);
  }, 120_000);

  it('imports an iCalendar file, then again without creating anything', async () => {
    // One VEVENT of the file is broken: done, with an item skipped (3).
    const dry = await run('import', 'ics', ICS, '--dry-run');
    expect(dry.code, dry.stderr).toBe(3);
    expect(dry.stdout).toContain('dry run: nothing was written');
    const first = await run('import', 'ics', ICS);
    expect(first.code, first.stderr).toBe(3);
    expect(first.stdout).toContain('Done: 9 items, 1 of them skipped.');
    expect(first.stdout).toMatch(/event\s+8\s+0\s+0\s+1/);
    expect(first.stdout).toContain('broken-date@calendar.test');
    expect(first.stdout).toMatch(/venue\s+2\s+0\s+0\s+0/); // LOCATION: Atelier du Canal, Harbor Park
    expect(first.stdout).toMatch(/category\s+4\s+0\s+0\s+0/);
    // Plain progress lines (not a terminal); the venues and categories come with their events.
    expect(first.stderr).toContain('done 9 of 9 items (1 skipped)');
    const second = await run('import', 'ics', ICS);
    expect(second.stdout).toMatch(/event\s+0\s+0\s+8\s+1/);
  }, 120_000);

  it('imports a site of The Events Calendar, then again without creating anything', async () => {
    const sign = ['--user', site.credentials.user, '--app-password', site.credentials.password];
    // The stand-in site is on loopback: read only with --allow-private.
    const refused = await run('import', 'tec', site.base, ...sign);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('is a private, loopback or link-local address');
    expect(refused.stderr).toContain('--allow-private');
    const first = await run('import', 'tec', site.base, '--allow-private', ...sign);
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout).toMatch(/event\s+8\s+0\s+0\s+0/);
    // Family and Workshops came with the iCalendar file above: taken, not made again.
    expect(first.stdout).toMatch(/category\s+3\s+0\s+2\s+0/);
    const second = await run('import', 'tec', site.base, '--allow-private', ...sign);
    expect(second.stdout).toMatch(/event\s+0\s+0\s+8\s+0/);
    // Without signing in, the draft is out of reach: reported, not deleted.
    const anonymous = await run('import', 'tec', site.base, '--allow-private');
    expect(anonymous.code).toBe(3); // done, an item skipped
    expect(anonymous.stdout).toContain('1 of them skipped');
    expect(anonymous.stdout).toMatch(/event\s+0\s+0\s+7\s+1/);
    expect(anonymous.stdout).toContain('sign in with --user');
    const wrong = await run(
      'import',
      'tec',
      site.base,
      '--allow-private',
      '--user',
      'admin',
      '--app-password',
      'wrong',
    );
    expect(wrong.code).toBe(1);
    expect(wrong.stderr).toContain('401');
  }, 120_000);

  it('stops at once at Ctrl-C while it waits on a busy site (Retry-After)', async () => {
    site.failNext(1000, 503, '120');
    try {
      const child = spawn(
        process.execPath,
        ['--import', 'tsx', 'scripts/import.ts', 'tec', site.base, '--allow-private'],
        {
          env: { ...process.env, ...env },
        },
      );
      let stderr = '';
      let asked = 0;
      child.stderr.on('data', (chunk: Buffer) => {
        stderr += chunk.toString();
        if (!asked && stderr.includes('trying again')) {
          asked = performance.now();
          child.kill('SIGINT');
        }
      });
      const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
      expect(code, stderr).toBe(130);
      expect(performance.now() - asked).toBeLessThan(5000);
    } finally {
      site.failNext(0);
    }
  }, 60_000);

  it('stops between two items at Ctrl-C, and the next run goes on from there without duplicates', async () => {
    addEvents(site, 300);
    const sign = ['--user', site.credentials.user, '--app-password', site.credentials.password];
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', 'scripts/import.ts', 'tec', site.base, '--allow-private', ...sign],
      {
        env: { ...process.env, ...env },
      },
    );
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    // Once it has written its first pages of events: the stop lands between two of its 300 and more.
    site.beforeAnswer = (url) => {
      if (url.pathname.endsWith('/events') && url.searchParams.get('page') === '3' && !child.killed) {
        child.kill('SIGINT');
        site.beforeAnswer = undefined;
      }
    };
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    expect(code, stderr).toBe(130);
    const stopped = /Stopped after (\d+) of (\d+) items/.exec(stdout);
    expect(stopped, stdout).not.toBeNull();
    expect(Number(stopped?.[1])).toBeLessThan(Number(stopped?.[2]));

    const again = await run('import', 'tec', site.base, '--allow-private', ...sign);
    expect(again.code, again.stderr).toBe(0);
    const events = /event\s+(\d+)\s+(\d+)\s+(\d+)\s+(\d+)/.exec(again.stdout);
    expect(Number(events?.[1]) + Number(events?.[3])).toBe(308);
    expect(Number(events?.[1])).toBeGreaterThan(0);
    const db = await open();
    try {
      const copies = await db.prisma.event.count({ where: { slug: { contains: '-10' } } });
      const mapped = await db.prisma.importedItem.count({
        where: { kind: 'event', externalId: { startsWith: '100' } },
      });
      expect([copies, mapped]).toEqual([300, 300]);
    } finally {
      await db.close();
    }
  }, 300_000);
});
