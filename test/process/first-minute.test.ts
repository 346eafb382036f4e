// What `npm start` tells a new user: where the API, its documentation and the health probe are, how to
// make the first administrator while no account exists, and one clear message for a bad setting.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { freePort } from '../setup/process.js';

interface LogLine {
  level: number;
  msg: string;
  [key: string]: unknown;
}

/** Runs the service until `done` says its output is complete (or it exits, or 60 s pass). */
function runService(env: Record<string, string>, done: (lines: LogLine[]) => boolean) {
  return new Promise<{ lines: LogLine[]; raw: string[]; code: number | null }>((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/server.ts'], {
      env: { ...process.env, DATABASE_URL: '', LOG_LEVEL: 'info', ADMIN_USER: '', ADMIN_PASSWORD: '', ...env },
    });
    const raw: string[] = [];
    let buffer = '';
    let finished = false;
    const finish = (code: number | null) => {
      if (finished) return;
      finished = true;
      clearTimeout(timer);
      child.kill('SIGKILL');
      resolve({ lines: raw.map((l) => JSON.parse(l) as LogLine), raw, code });
    };
    child.stdout.on('data', (chunk) => {
      buffer += String(chunk);
      const parts = buffer.split('\n');
      buffer = parts.pop() ?? '';
      raw.push(...parts.filter(Boolean));
      if (done(raw.map((l) => JSON.parse(l) as LogLine))) finish(null);
    });
    child.on('exit', (code) => {
      if (buffer) raw.push(buffer);
      finish(code);
    });
    const timer = setTimeout(() => {
      finish(null);
    }, 60_000);
  });
}

describe('the first minute', () => {
  const dirs: string[] = [];
  const dataDir = () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cal-first-'));
    dirs.push(dir);
    return dir;
  };
  afterAll(() => {
    for (const dir of dirs) fs.rmSync(dir, { recursive: true, force: true });
  });

  it('says where the API, its documentation and the health probe are, and how to make the first administrator', async () => {
    const port = await freePort();
    const { lines } = await runService({ DATA_DIR: dataDir(), PORT: String(port) }, (l) =>
      l.some((line) => line.msg.startsWith('no account exists yet')),
    );
    const api = `http://127.0.0.1:${port}/wp-json/calendar/events/v1`;
    const banner = lines.find((line) => line.msg.startsWith('listening:'));
    expect(banner?.msg).toContain(api);
    expect(banner?.msg).toContain(`${api}/doc`);
    expect(banner?.msg).toContain(`http://127.0.0.1:${port}/healthz`);
    expect(banner).toMatchObject({ api, documentation: `${api}/doc`, health: `http://127.0.0.1:${port}/healthz` });
    const hint = lines.find((line) => line.msg.startsWith('no account exists yet'));
    expect(hint?.msg).toContain('npm run users -- create admin --role administrator');
    expect(hint?.msg).toContain('ADMIN_USER');
  }, 90_000);

  it('says nothing of accounts once one exists', async () => {
    const { lines } = await runService(
      {
        DATA_DIR: dataDir(),
        PORT: String(await freePort()),
        ADMIN_USER: 'admin',
        ADMIN_PASSWORD: 'first-admin-password',
      },
      (l) => l.some((line) => line.msg.startsWith('listening:')),
    );
    // The hint would follow the banner at once; give it the time to come.
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(lines.some((line) => line.msg.startsWith('listening:'))).toBe(true);
    expect(lines.some((line) => line.msg.startsWith('no account exists yet'))).toBe(false);
  }, 90_000);

  it('answers a bad setting with one message that names it, and exits 1', async () => {
    const { lines, raw, code } = await runService({ DATA_DIR: dataDir(), PORT: 'abc' }, () => false);
    expect(code).toBe(1);
    expect(lines).toHaveLength(1);
    expect(raw[0].match(/"msg":/g)).toHaveLength(1);
    expect(lines[0].msg).toBe('could not start: PORT must be an integer from 0 to 65535, got "abc"');
  }, 90_000);
});
