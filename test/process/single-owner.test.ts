// One process per embedded database and one per port: a second service or `npm run users` on a
// directory the running service holds is refused, naming the service's process; a lock left by a
// killed process is taken over; a service that cannot listen exits non-zero instead of idling.
import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort, startProcess } from '../setup/process.js';

interface Finished {
  code: number | null;
  output: string;
}

/** Runs a script of the project with `env` until it exits (or 60 s pass). */
function run(args: string[], env: Record<string, string>): Promise<Finished> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', ...args], {
      env: { ...process.env, DATABASE_URL: '', LOG_LEVEL: 'info', ...env },
    });
    let output = '';
    child.stdout.on('data', (chunk) => (output += String(chunk)));
    child.stderr.on('data', (chunk) => (output += String(chunk)));
    const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
    child.on('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, output });
    });
  });
}

describe('one owner per embedded database, one process per port', () => {
  let dataDir: string;
  let service: ChildProcess | undefined;
  beforeAll(() => {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'cal-owner-'));
  });
  afterAll(() => {
    service?.kill('SIGKILL');
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('refuses a second process on the directory the service holds, and takes over the lock of a killed one', async () => {
    service = await startProcess(await freePort(), { DATA_DIR: dataDir, DATABASE_URL: '' });
    const users = await run(['scripts/users.ts', 'create', 'bob', '--password', 'bob-password'], { DATA_DIR: dataDir });
    expect(users.code).not.toBe(0);
    expect(users.output).toContain(`in use by process ${service.pid}`);
    expect(users.output).not.toContain('Created');

    const second = await run(['src/server.ts'], { DATA_DIR: dataDir, PORT: String(await freePort()) });
    expect(second.code).not.toBe(0);
    expect(second.output).toContain(`in use by process ${service.pid}`);

    service.kill('SIGKILL');
    await new Promise((resolve) => service!.once('exit', resolve));
    const created = await run(['scripts/users.ts', 'create', 'bob', '--password', 'bob-password'], {
      DATA_DIR: dataDir,
    });
    expect(created.output).toContain('Created');
    expect(created.code).toBe(0);
    // Bob is there for the service started next.
    const port = await freePort();
    service = await startProcess(port, { DATA_DIR: dataDir, DATABASE_URL: '' });
    const r = await fetch(`http://127.0.0.1:${port}/wp-json/calendar/events/v1/venues`, {
      headers: { authorization: `Basic ${Buffer.from('bob:bob-password').toString('base64')}` },
    });
    expect(r.status).toBe(200);
  }, 120_000);

  it('exits non-zero with a clear message when its port is taken, and lets go of the database', async () => {
    service?.kill('SIGKILL');
    const squatter = net.createServer().listen(0, '127.0.0.1');
    await new Promise((resolve) => squatter.once('listening', resolve));
    const port = (squatter.address() as net.AddressInfo).port;
    try {
      const started = Date.now();
      const result = await run(['src/server.ts'], { DATA_DIR: dataDir, PORT: String(port) });
      expect(result.code).toBe(1);
      expect(result.output).toContain('the port is in use');
      expect(result.output).not.toContain('"msg":"listening:');
      expect(Date.now() - started).toBeLessThan(30_000);
    } finally {
      squatter.close();
    }
    const users = await run(['scripts/users.ts', 'list'], { DATA_DIR: dataDir });
    expect(users.code).toBe(0);
  }, 120_000);
});
