// `npm run users`: the command-line tool works on the service's own database and its application
// passwords authenticate; secrets are printed once and never stored in clear.
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUser, deleteUser, updateUser } from '../../src/auth/accounts.js';
import { authenticate } from '../../src/auth/authenticate.js';
import { openDatabase } from '../../src/db/client.js';
import { InvalidCredentials } from '../../src/domain/errors.js';
import { createPostgresDatabase, postgresTitle, postgresUrl } from '../setup/databases.js';

const run = promisify(execFile);
const limits = { maxFailures: 100, maxAddressFailures: 100, windowSeconds: 60 };

// Each command is a process of its own that opens the database: seconds each on a loaded machine.
describe('npm run users (on PGlite in a directory)', () => {
  let dataDir: string;
  const users = async (...args: string[]) => {
    const { stdout } = await run(process.execPath, ['--import', 'tsx', 'scripts/users.ts', ...args], {
      env: { ...process.env, DATA_DIR: dataDir, DATABASE_URL: '' },
    });
    return stdout;
  };
  const withDb = async <T>(fn: (db: Awaited<ReturnType<typeof openDatabase>>) => Promise<T>) => {
    const db = await openDatabase({ dataDir });
    try {
      return await fn(db);
    } finally {
      await db.close();
    }
  };

  beforeAll(() => {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'cal-users-'));
  });
  afterAll(() => {
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('creates a user, issues an application password that authenticates, lists, changes and revokes', async () => {
    expect(
      await users(
        'create',
        'maria',
        '--role',
        'editor',
        '--email',
        'maria@example.org',
        '--password',
        'maria-password',
      ),
    ).toContain('Created editor "maria"');
    const issued = await users('app-password', 'add', 'maria', 'phone app');
    const password = /^ {2}(\S{4}(?: \S{4}){7})$/m.exec(issued)?.[1];
    expect(password, issued).toBeDefined();

    const listed = await users('list');
    expect(listed).toContain('maria');
    expect(listed).not.toContain('scrypt');

    const caller = await withDb((db) =>
      authenticate(db.prisma, { scheme: 'bearer', secret: password! }, 'cli-test', limits),
    );
    expect(caller).toMatchObject({ login: 'maria', role: 'editor' });
    const stored = await withDb((db) => db.prisma.appPassword.findMany());
    expect(JSON.stringify(stored)).not.toContain(password!.replace(/ /g, '').slice(8));

    expect(await users('set', 'maria', '--role', 'author')).toContain('author');
    expect(await users('set', 'maria', '--rate-limits', 'exempt')).toContain('exempt from rate limits');
    expect(
      await withDb((db) => authenticate(db.prisma, { scheme: 'bearer', secret: password! }, 'cli-test', limits)),
    ).toMatchObject({ login: 'maria', rateLimitExempt: true });
    await expect(users('set', 'maria', '--rate-limits', 'sometimes')).rejects.toMatchObject({
      code: 1,
      stderr: expect.stringContaining('exempt or counted'),
    });
    expect(await users('app-password', 'revoke', 'maria', 'phone app')).toContain('Revoked 1');
    await expect(
      withDb((db) => authenticate(db.prisma, { scheme: 'bearer', secret: password! }, 'cli-test', limits)),
    ).rejects.toBeInstanceOf(InvalidCredentials);
  }, 120_000);

  it('prints a generated password once when none is given, and refuses bad input with exit code 1', async () => {
    const out = await users('create', 'li');
    const generated = /Password \(shown once\): (\S+)/.exec(out)?.[1];
    expect(generated).toBeDefined();
    const caller = await withDb((db) =>
      authenticate(db.prisma, { scheme: 'basic', login: 'li', secret: generated! }, 'cli-test', limits),
    );
    expect(caller).toMatchObject({ login: 'li', role: 'subscriber' });
    await expect(users('create', 'li', '--password', 'another-one')).rejects.toMatchObject({
      code: 1,
      stderr: expect.stringContaining('taken'),
    });
    await expect(users('create', 'bad role', '--role', 'king')).rejects.toMatchObject({ code: 1 });
  }, 120_000);

  it('keeps an administrator, and says what is wrong with a command line it cannot read', async () => {
    await users('create', 'boss', '--role', 'administrator', '--password', 'boss-password');
    const refusal = { code: 1, stderr: expect.stringContaining('the last administrator') };
    await expect(users('delete', 'boss')).rejects.toMatchObject(refusal);
    await expect(users('set', 'boss', '--role', 'editor')).rejects.toMatchObject(refusal);
    await users('create', 'deputy', '--role', 'administrator', '--password', 'deputy-password');
    expect(await users('set', 'boss', '--role', 'editor')).toContain('editor');
    await expect(users('delete', 'deputy')).rejects.toMatchObject(refusal);
    // An option without its value: the message and the usage, no stack trace.
    const missing = await users('create', 'someone', '--role').catch((err: unknown) => err);
    expect(missing).toMatchObject({ code: 2, stderr: expect.stringContaining('Usage: npm run users') });
    expect((missing as { stderr: string }).stderr).toContain("'--role <value>' argument missing");
    expect((missing as { stderr: string }).stderr).not.toMatch(/\n\s+at /);
  }, 120_000);
});

describe.runIf(postgresUrl)(postgresTitle('the last administrators removed at once, on PostgreSQL'), () => {
  it('lets one removal through and refuses the other', async () => {
    const created = await createPostgresDatabase();
    const db = await openDatabase({ databaseUrl: created.url, dataDir: '' });
    try {
      for (const login of ['first-admin', 'second-admin'])
        await createUser(db.prisma, { login, password: 'admin-password', role: 'administrator' });
      const outcomes = await Promise.allSettled([
        deleteUser(db.prisma, 'first-admin'),
        updateUser(db.prisma, 'second-admin', { role: 'editor' }),
      ]);
      expect(outcomes.map((o) => o.status).sort()).toEqual(['fulfilled', 'rejected']);
      expect(await db.prisma.user.count({ where: { role: 'administrator' } })).toBe(1);
    } finally {
      await db.close();
      await created.drop();
    }
  });
});
