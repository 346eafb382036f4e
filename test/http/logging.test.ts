// The request log: one line per request with what an operator needs, and never a credential.
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { startServer, type TestServer } from '../setup/server.js';

describe('request log', () => {
  let s: TestServer;
  let lines: string[];
  let origin: string;
  let close: () => Promise<void>;
  beforeAll(async () => {
    s = await startServer('pglite');
    lines = [];
    const sink = new Writable({
      write(chunk, _encoding, done) {
        lines.push(...String(chunk).split('\n').filter(Boolean));
        done();
      },
    });
    const app = createApp({ config: { ...loadConfig({}), port: 0 }, db: s.db, logger: pino({ level: 'info' }, sink) });
    const server = app.listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}/wp-json/calendar/events/v1`;
    close = () =>
      new Promise((resolve) =>
        server.close(() => {
          resolve();
        }),
      );
  });
  afterAll(async () => {
    await close?.();
    await s?.close();
  });

  it('logs method, URL and status of each request, without headers, bodies or secrets', async () => {
    const { editor } = s.users;
    const basic = (secret: string) => `Basic ${Buffer.from(`editor:${secret}`).toString('base64')}`;
    const requests: [string, RequestInit][] = [
      ['/venues', { headers: { authorization: `Bearer ${editor.appPassword}` } }],
      [
        '/venues',
        {
          method: 'POST',
          headers: { authorization: basic(editor.password), 'content-type': 'application/json' },
          body: JSON.stringify({ venue: 'Logged Hall', phone: 'body-marker-123' }),
        },
      ],
      ['/venues', { headers: { authorization: basic('wrong-secret-xyz'), cookie: 'session=cookie-secret' } }],
    ];
    const ids: string[] = [];
    for (const [path, init] of requests) ids.push((await fetch(`${origin}${path}`, init)).headers.get('x-request-id')!);
    await new Promise((resolve) => setTimeout(resolve, 50));

    const entries = lines.map((line) => JSON.parse(line));
    expect(entries.map((e) => [e.req?.method, e.req?.url, e.res?.status])).toEqual([
      ['GET', '/wp-json/calendar/events/v1/venues', 200],
      ['POST', '/wp-json/calendar/events/v1/venues', 201],
      ['GET', '/wp-json/calendar/events/v1/venues', 401],
    ]);
    // Each line carries the request ID its response gave the client.
    expect(entries.map((e) => e.requestId)).toEqual(ids);
    expect(new Set(ids).size).toBe(3);
    const log = lines.join('\n');
    for (const secret of [
      editor.appPassword,
      editor.password,
      'wrong-secret-xyz',
      'cookie-secret',
      'body-marker-123',
      Buffer.from(`editor:${editor.password}`).toString('base64'),
    ]) {
      expect(log).not.toContain(secret);
    }
    expect(log).not.toMatch(/authorization/i);
  });
});
