// Graceful shutdown: on SIGTERM the service fails readiness, keeps serving for its grace period,
// then stops taking connections, answers the requests in flight, closes its database and exits 0.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import { createServer } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const freePort = () =>
  new Promise<number>((resolve) => {
    const probe = createServer().listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });

describe('shutdown on SIGTERM', () => {
  it('finishes the requests in flight, then exits 0 and takes no more', async () => {
    const port = await freePort();
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'shutdown-'));
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/server.ts'], {
      env: { ...process.env, DATABASE_URL: '', DATA_DIR: dataDir, PORT: String(port), LOG_LEVEL: 'warn', SHUTDOWN_GRACE_SECONDS: '1' },
      stdio: 'ignore',
    });
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    const base = `http://127.0.0.1:${port}`;
    try {
      for (let i = 0; i < 150 && !(await fetch(`${base}/readyz`).then((r) => r.ok, () => false)); i++) await new Promise((r) => setTimeout(r, 100));

      // Forty list requests in flight when the signal arrives.
      const inFlight = Array.from({ length: 40 }, () => fetch(`${base}/wp-json/calendar/events/v1/events?per_page=50`).then((r) => r.status, (err: Error) => err.message));
      await new Promise((resolve) => setTimeout(resolve, 5));
      child.kill('SIGTERM');
      await new Promise((resolve) => setTimeout(resolve, 100));
      expect((await fetch(`${base}/readyz`)).status).toBe(503); // draining, still answering
      const statuses = await Promise.all(inFlight);
      expect(statuses.filter((s) => s !== 200)).toEqual([]);
      expect(await exited).toBe(0);
      await expect(fetch(`${base}/healthz`)).rejects.toThrow();
    } finally {
      child.kill('SIGKILL');
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  }, 60_000);
});
