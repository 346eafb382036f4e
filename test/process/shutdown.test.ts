// Graceful shutdown: on SIGTERM the service fails readiness, keeps serving for its grace period,
// then stops taking connections, answers the requests in flight, closes its database and exits 0.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { freePort, startProcess } from '../setup/process.js';

describe('shutdown on SIGTERM', () => {
  it('finishes the requests in flight, then exits 0 and takes no more', async () => {
    const port = await freePort();
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'shutdown-'));
    const child = await startProcess(port, { DATABASE_URL: '', DATA_DIR: dataDir, SHUTDOWN_GRACE_SECONDS: '3' });
    const exited = new Promise<number | null>((resolve) =>
      child.once('exit', (code) => {
        resolve(code);
      }),
    );
    const base = `http://127.0.0.1:${port}`;
    try {
      // Forty list requests in flight when the signal arrives.
      const inFlight = Array.from({ length: 40 }, () =>
        fetch(`${base}/wp-json/calendar/events/v1/events?per_page=50`).then(
          (r) => r.status,
          (err: unknown) => (err instanceof Error ? err.message : String(err)),
        ),
      );
      await new Promise((resolve) => setTimeout(resolve, 5));
      child.kill('SIGTERM');
      // Draining: readiness fails while the service still answers.
      let ready = 200;
      for (let i = 0; i < 40 && ready !== 503; i++) {
        ready = (await fetch(`${base}/readyz`)).status;
        if (ready !== 503) await new Promise((resolve) => setTimeout(resolve, 50));
      }
      expect(ready).toBe(503);
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
