// The database stops answering, or dies, while the service runs: requests fail within seconds with
// 503 rest_database_unavailable and Retry-After instead of hanging or answering 500, /readyz says
// so, and the service recovers by itself when the database is back. PostgreSQL behind a TCP proxy
// that the test pauses and cuts.
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../src/app.js';
import { createUser, issueAppPassword } from '../../src/auth/accounts.js';
import { loadConfig } from '../../src/config.js';
import { type Database, openDatabase } from '../../src/db/client.js';
import { createPostgresDatabase, postgresTitle, postgresUrl } from '../setup/databases.js';
import { startTcpProxy, type TcpProxy } from '../setup/tcp-proxy.js';

describe.runIf(postgresUrl)(postgresTitle('a database outage on PostgreSQL'), () => {
  let database: { url: string; drop: () => Promise<void> };
  let proxy: TcpProxy;
  let db: Database;
  let server: Server;
  let origin: string;
  let token: string;

  beforeAll(async () => {
    database = await createPostgresDatabase();
    const target = new URL(database.url);
    proxy = await startTcpProxy(target.hostname, Number(target.port || 5432));
    const viaProxy = new URL(database.url);
    viaProxy.port = String(proxy.port);
    db = await openDatabase({
      databaseUrl: viaProxy.toString(),
      dataDir: '',
      poolSize: 4,
      connectTimeoutMs: 1000,
      statementTimeoutMs: 1500,
    });
    await createUser(db.prisma, { login: 'outage-admin', password: 'outage-password', role: 'administrator' });
    token = (await issueAppPassword(db.prisma, 'outage-admin', 'outage')).password;
    const app = createApp({ config: { ...loadConfig({}), port: 0 }, db });
    server = app.listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  }, 60_000);
  afterAll(async () => {
    await new Promise((resolve) => server?.close(resolve));
    proxy?.resume();
    await db?.close().catch(() => undefined);
    await proxy?.close();
    await database?.drop();
  });

  const api = `/wp-json/calendar/events/v1`;
  const timed = async (path: string, init: RequestInit = {}) => {
    const started = Date.now();
    const r = await fetch(`${origin}${path}`, { ...init, signal: AbortSignal.timeout(20_000) });
    const text = await r.text();
    return {
      status: r.status,
      body: text.startsWith('{') ? JSON.parse(text) : text,
      retryAfter: r.headers.get('retry-after'),
      ms: Date.now() - started,
    };
  };
  const requests = () => [
    () => timed(`${api}/events`),
    () => timed(`${api}/venues?search=x`),
    () =>
      timed(`${api}/venues`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: '{"venue":"During the outage"}',
      }),
  ];

  async function expectUnavailable() {
    for (const send of requests()) {
      const r = await send();
      expect({ status: r.status, code: r.body.code }).toEqual({ status: 503, code: 'rest_database_unavailable' });
      expect(Number(r.retryAfter)).toBeGreaterThanOrEqual(1);
      expect(r.ms).toBeLessThan(5_000);
    }
    const ready = await timed('/readyz');
    expect(ready.status).toBe(503);
    expect(ready.ms).toBeLessThan(5_000);
    expect((await timed('/healthz')).status).toBe(200);
  }

  async function expectRecovered() {
    let last = 0;
    for (let i = 0; i < 40 && last !== 200; i++) {
      last = (await timed(`${api}/events`)).status;
      if (last !== 200) await new Promise((resolve) => setTimeout(resolve, 250));
    }
    expect(last).toBe(200);
    expect((await timed('/readyz')).status).toBe(200);
    const created = await requests()[2]();
    expect(created.status).toBe(201);
  }

  it('answers 503 within seconds while the database does not answer, and recovers', async () => {
    expect((await timed(`${api}/events`)).status).toBe(200);
    proxy.pause();
    await expectUnavailable();
    proxy.resume();
    await expectRecovered();
  }, 60_000);

  it('answers 503 within seconds while the database is gone, and recovers', async () => {
    proxy.cut();
    await expectUnavailable();
    proxy.resume();
    await expectRecovered();
  }, 60_000);
});
