// What every response carries in production, and the probes: request IDs, security headers, CORS,
// OPTIONS and HEAD, compression, /healthz and /readyz.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createApp } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { openTestDatabase } from '../setup/databases.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from '../setup/server.js';

/** A raw request, to see headers and bytes as they travel (fetch would decompress). */
function raw(url: string, headers: Record<string, string> = {}, method = 'GET') {
  return new Promise<{ status: number; headers: http.IncomingHttpHeaders; body: Buffer }>((resolve, reject) => {
    const req = http.request(url, { method, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => {
        resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks) });
      });
    });
    req.on('error', reject);
    req.end();
  });
}

describe('production HTTP behaviour', () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startServer('pglite');
    for (let i = 0; i < 12; i++)
      await s.post('/venues', { venue: `Production hall ${i}`, description: 'A long description. '.repeat(10) });
  });
  afterAll(() => s?.close());

  it('gives every response a request ID, keeping a well-formed one from the client', async () => {
    const made = await s.get('/venues');
    expect(made.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    const kept = await s.get('/venues', { headers: { 'x-request-id': 'trace-abc.123' } });
    expect(kept.headers.get('x-request-id')).toBe('trace-abc.123');
    const replaced = await s.get('/venues', { headers: { 'x-request-id': 'bad id <script>' } });
    expect(replaced.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    expect((await s.get('/no/such/route')).headers.get('x-request-id')).toBeTruthy();
  });

  it('sends security headers', async () => {
    const r = await s.get('/venues');
    expect(r.headers.get('x-content-type-options')).toBe('nosniff');
    expect(r.headers.get('content-security-policy')).toContain("default-src 'none'");
    expect(r.headers.get('x-frame-options')).toBe('SAMEORIGIN');
    expect(r.headers.get('referrer-policy')).toBe('no-referrer');
    expect(r.headers.get('x-powered-by')).toBeNull();
  });

  it('lets browser scripts call the API and read the pagination headers (CORS)', async () => {
    const preflight = await raw(
      `${s.base}/events`,
      {
        origin: 'https://app.example.org',
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'authorization,content-type,if-match',
      },
      'OPTIONS',
    );
    expect(preflight.status).toBe(204);
    expect(preflight.headers['access-control-allow-origin']).toBe('*');
    expect(preflight.headers['access-control-allow-methods']).toContain('PATCH');
    expect(String(preflight.headers['access-control-allow-headers']).toLowerCase()).toContain('if-match');
    const list = await s.get('/venues', { headers: { origin: 'https://app.example.org' } });
    expect(list.headers.get('access-control-allow-origin')).toBe('*');
    for (const header of ['X-TEC-Total', 'X-WP-TotalPages', 'Link', 'ETag', 'X-Request-Id']) {
      expect(list.headers.get('access-control-expose-headers'), header).toContain(header);
    }

    const strict = await startServer('pglite', { CORS_ORIGINS: 'https://app.example.org' });
    try {
      const allowed = await fetch(`${strict.base}/venues`, { headers: { origin: 'https://app.example.org' } });
      expect(allowed.headers.get('access-control-allow-origin')).toBe('https://app.example.org');
      const other = await fetch(`${strict.base}/venues`, { headers: { origin: 'https://evil.example.com' } });
      expect(other.headers.get('access-control-allow-origin')).toBeNull();
    } finally {
      await strict.close();
    }
  });

  it('answers OPTIONS with the methods of the route, and HEAD like GET without a body', async () => {
    const options = await raw(
      `${s.base}/venues/1`,
      { authorization: `Bearer ${s.users.editor.appPassword}` },
      'OPTIONS',
    );
    expect(options.status).toBe(200);
    expect(options.headers.allow).toBe('OPTIONS, GET, POST, PUT, PATCH, DELETE, HEAD');
    expect((await raw(`${s.base}/no-such-thing`, {}, 'OPTIONS')).status).toBe(404);
    const get = await raw(`${s.base}/venues`);
    const head = await raw(`${s.base}/venues`, {}, 'HEAD');
    expect(head.status).toBe(200);
    expect(head.body.length).toBe(0);
    expect(head.headers['x-tec-total']).toBe(get.headers['x-tec-total']);
    expect(head.headers['content-type']).toBe(get.headers['content-type']);
  });

  it('compresses large bodies for clients that accept it', async () => {
    const gzip = await raw(`${s.base}/venues?per_page=12`, { 'accept-encoding': 'gzip' });
    expect(gzip.headers['content-encoding']).toBe('gzip');
    const plain = await raw(`${s.base}/venues?per_page=12`);
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(gzip.body.length).toBeLessThan(plain.body.length / 2);
    const small = await raw(`${s.base}/venues/999999`, { 'accept-encoding': 'gzip' });
    expect(small.headers['content-encoding']).toBeUndefined();
  });

  it('answers the probes outside the namespace', async () => {
    const healthz = await fetch(`${s.origin}/healthz`);
    expect(healthz.status).toBe(200);
    expect(await healthz.json()).toEqual({ status: 'ok' });
    const readyz = await fetch(`${s.origin}/readyz`);
    expect(readyz.status).toBe(200);
    expect(await readyz.json()).toEqual({
      status: 'ready',
      database: 'pglite',
      change_feed: { held_back: 0, lag_seconds: 0 },
    });
    expect(readyz.headers.get('cache-control')).toBe('no-store');
  });

  it('fails readiness while draining and when the database is gone, while staying alive', async () => {
    const database = await openTestDatabase('pglite');
    const app = createApp({ config: { ...loadConfig({}), port: 0 }, db: database.db });
    const server = app.listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    try {
      expect((await fetch(`${origin}/readyz`)).status).toBe(200);
      await database.db.close();
      expect((await fetch(`${origin}/readyz`)).status).toBe(503);
      app.drain();
      expect(await (await fetch(`${origin}/readyz`)).json()).toEqual({ status: 'draining' });
      expect((await fetch(`${origin}/healthz`)).status).toBe(200);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
