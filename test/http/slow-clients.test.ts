// Slow clients cannot hold connections: headers that trickle in, a body that never comes and an
// idle kept-alive connection are all closed after the configured limits (src/http/http-server.ts).
import net from 'node:net';
import type { Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { createHttpServer } from '../../src/http/http-server.js';
import { openTestDatabase } from '../setup/databases.js';

describe('slow clients', () => {
  let server: Server;
  let port: number;
  let close: () => Promise<void>;
  beforeAll(async () => {
    const database = await openTestDatabase('pglite');
    const config = loadConfig({
      HTTP_HEADERS_TIMEOUT_SECONDS: '1',
      HTTP_REQUEST_TIMEOUT_SECONDS: '2',
      HTTP_KEEP_ALIVE_TIMEOUT_SECONDS: '1',
    });
    server = createHttpServer(createApp({ config, db: database.db }), config.http);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as net.AddressInfo).port;
    close = async () => {
      await new Promise((resolve) => server.close(resolve));
      await database.drop();
    };
  });
  afterAll(() => close?.());

  /** Writes `chunks` one by one, `everyMs` apart, until the server closes; answers when it did and what it said. */
  function trickle(chunks: string[], everyMs: number): Promise<{ closedAfterMs: number; answer: string }> {
    return new Promise((resolve) => {
      const started = Date.now();
      const socket = net.connect(port, '127.0.0.1');
      let answer = '';
      let i = 0;
      const timer = setInterval(() => {
        if (i < chunks.length && !socket.destroyed) socket.write(chunks[i++]);
      }, everyMs);
      socket.on('data', (d) => (answer += d.toString()));
      socket.on('error', () => undefined);
      socket.on('close', () => {
        clearInterval(timer);
        resolve({ closedAfterMs: Date.now() - started, answer });
      });
      // Bound the test itself: a server that never closes fails below.
      setTimeout(() => socket.destroy(), 15_000);
    });
  }

  it('closes a connection whose headers trickle in', async () => {
    const request = 'GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ' + 'a'.repeat(200);
    const { closedAfterMs, answer } = await trickle(Array.from(request), 100);
    expect(closedAfterMs).toBeLessThan(4_000);
    expect(answer).not.toContain('200 OK');
  });

  it('closes a connection whose body never comes', async () => {
    const head =
      'POST /wp-json/calendar/events/v1/venues HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{';
    const { closedAfterMs } = await trickle(
      [
        head,
        ' ',
        ' ',
        ' ',
        ' ',
        ' ',
        ' ',
        ' ',
        ' ',
        ' ',
        ' ',
        ' ',
        ' ',
        ' ',
        ' ',
        ' ',
        ' ',
        ' ',
        ' ',
        ' ',
        ' ',
        ' ',
        ' ',
        ' ',
        ' ',
      ],
      400,
    );
    expect(closedAfterMs).toBeLessThan(5_000);
  });

  it('closes an idle kept-alive connection', async () => {
    const { closedAfterMs, answer } = await trickle(['GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n'], 10);
    expect(answer).toContain('200 OK');
    expect(closedAfterMs).toBeLessThan(4_000);
  });
});
