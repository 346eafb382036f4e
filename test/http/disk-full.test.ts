// The embedded database's disk fills up: writes answer 503 rest_database_unavailable (not 500),
// reads go on, and writes work again once there is room. PGlite on a small tmpfs, filled by a file.
import { execSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../src/app.js';
import { createUser, issueAppPassword } from '../../src/auth/accounts.js';
import { loadConfig } from '../../src/config.js';
import { type Database, openDatabase } from '../../src/db/client.js';

const mountPoint = fs.mkdtempSync(path.join(os.tmpdir(), 'disk-full-'));
/** A small filesystem of its own needs root (CI and these machines run as root). */
const mounted = (() => {
  try {
    execSync(`mount -t tmpfs -o size=96m tmpfs ${mountPoint}`, { stdio: 'ignore' });
    return true;
  } catch {
    console.warn('disk-full.test.ts: cannot mount a tmpfs here (not root?); skipped');
    return false;
  }
})();

describe.runIf(mounted)('a full disk under the embedded database', () => {
  let db: Database;
  let server: Server;
  let base: string;
  let token: string;
  const filler = path.join(mountPoint, 'filler');

  beforeAll(async () => {
    db = await openDatabase({ dataDir: path.join(mountPoint, 'data') });
    await createUser(db.prisma, { login: 'disk-admin', password: 'disk-password', role: 'administrator' });
    token = (await issueAppPassword(db.prisma, 'disk-admin', 'disk')).password;
    server = createApp({ config: { ...loadConfig({}), port: 0 }, db }).listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/wp-json/calendar/events/v1`;
  }, 60_000);
  afterAll(async () => {
    await new Promise((resolve) => server?.close(resolve));
    fs.rmSync(filler, { force: true });
    await db?.close().catch(() => undefined);
    execSync(`umount ${mountPoint}`);
    fs.rmdirSync(mountPoint);
  });

  const create = (n: number) =>
    fetch(`${base}/events`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      // Descriptions that do not compress, so that each write needs new pages.
      body: JSON.stringify({
        title: `Filling ${n}`,
        start_date: '2036-01-01 10:00',
        end_date: '2036-01-01 11:00',
        description: Array.from({ length: 6000 }, () => Math.random().toString(36).slice(2, 12))
          .join(' ')
          .slice(0, 65_000),
      }),
    });

  it('answers writes with 503 while the disk is full, and takes them again once there is room', async () => {
    expect((await create(0)).status).toBe(201);
    const free = Number(execSync(`df --output=avail -B1 ${mountPoint} | tail -1`).toString().trim());
    execSync(`fallocate -l ${free - 64 * 1024} ${filler}`);
    const statuses: number[] = [];
    for (let n = 1; n <= 100 && !statuses.includes(503); n++) {
      const r = await create(n);
      statuses.push(r.status);
      if (r.status === 503) {
        const body = (await r.json()) as { code: string };
        expect(body.code).toBe('rest_database_unavailable');
        expect(Number(r.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      }
    }
    expect(statuses).toContain(503);
    expect(statuses.filter((status) => status !== 201 && status !== 503)).toEqual([]);
    expect((await fetch(`${base}/events?search=Filling`)).status).toBe(200);
    fs.rmSync(filler);
    expect((await create(1000)).status).toBe(201);
  }, 120_000);
});
