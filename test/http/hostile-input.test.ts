// Input that once reached a 500: bodies nested without end, bodies that do not decompress as their
// Content-Encoding says, and Host headers that are no host. Each is the client's fault: a 400 in the
// error shape. Sent over a raw socket where fetch would refuse to send it.
import net from 'node:net';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from '../setup/server.js';

interface RawAnswer {
  status: number;
  body: any;
}

describe('hostile input', () => {
  let s: TestServer;
  let venueId: number;
  let tagId: number;
  beforeAll(async () => {
    s = await startServer('pglite');
    venueId = (await s.post('/venues', { venue: 'Hostile hall' })).body.id;
    tagId = (await s.post('/tags', { name: 'hostile' })).body.id;
  });
  afterAll(() => s?.close());

  /** One HTTP/1.1 request written by hand; answers the status and the JSON body. */
  function raw(method: string, path: string, headers: Record<string, string>, body: Buffer | string = ''): Promise<RawAnswer> {
    const data = Buffer.isBuffer(body) ? body : Buffer.from(body);
    const head = [`${method} /wp-json/calendar/events/v1${path} HTTP/1.1`, 'Connection: close', `Content-Length: ${data.length}`]
      .concat(Object.entries({ Host: '127.0.0.1', ...headers }).map(([k, v]) => `${k}: ${v}`))
      .join('\r\n');
    return new Promise((resolve, reject) => {
      const socket = net.connect(Number(new URL(s.origin).port), '127.0.0.1', () => socket.write(Buffer.concat([Buffer.from(`${head}\r\n\r\n`), data])));
      // Not ended: a half-closed socket makes the server drop the answers it has not written yet.
      const chunks: Buffer[] = [];
      socket.on('data', (chunk) => chunks.push(chunk));
      socket.on('error', reject);
      socket.on('close', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        const split = text.indexOf('\r\n\r\n');
        const payload = text.slice(split + 4);
        resolve({ status: Number(text.split(' ')[1]), body: payload.startsWith('{') ? JSON.parse(payload) : payload });
      });
    });
  }

  const json = { 'Content-Type': 'application/json' };
  const admin = () => ({ Authorization: `Bearer ${s.users.administrator.appPassword}` });
  const writes = () => [
    ['POST', '/events'],
    ['PATCH', `/venues/${venueId}`],
    ['POST', '/categories'],
    ['PUT', `/tags/${tagId}`],
  ];

  it('refuses JSON nested deeper than 64 levels with 400 rest_invalid_json on every kind of write', async () => {
    for (const [method, path] of writes()) {
      for (const body of ['['.repeat(5000) + ']'.repeat(5000), `{"title":${'{"a":'.repeat(65)}1${'}'.repeat(65)}}`]) {
        const r = await raw(method, path, { ...json, ...admin() }, body);
        expect({ method, path, status: r.status, code: r.body.code }).toEqual({ method, path, status: 400, code: 'rest_invalid_json' });
      }
    }
  });

  it('lets bodies 64 levels deep through to validation, and does not count brackets inside strings', async () => {
    const deep = await raw('POST', '/categories', { ...json, ...admin() }, `{"name":"Deep","description":${'['.repeat(63)}${']'.repeat(63)}}`);
    expect(deep.status).toBe(400);
    expect(deep.body.code).toBe('rest_invalid_param');
    const brackets = await raw('POST', '/categories', { ...json, ...admin() }, JSON.stringify({ name: 'Brackets', description: `${'['.repeat(500)}\\" {{{` }));
    expect(brackets.status).toBe(201);
  });

  it('answers 400 to a body that is not what its Content-Encoding says, and reads one that is', async () => {
    for (const encoding of ['gzip', 'deflate', 'br']) {
      const r = await raw('POST', '/venues', { ...json, ...admin(), 'Content-Encoding': encoding }, '{"venue":"Plain"}');
      expect({ encoding, status: r.status, code: r.body.code }).toEqual({ encoding, status: 400, code: 'rest_invalid_body' });
    }
    const ok = await raw('POST', '/venues', { ...json, ...admin(), 'Content-Encoding': 'gzip' }, gzipSync('{"venue":"Zipped hall"}'));
    expect(ok.status).toBe(201);
    expect(ok.body.venue).toBe('Zipped hall');
  });

  it('answers 400 rest_invalid_host to a Host that is no host, on reads and writes', async () => {
    for (const host of ['[::1', 'a b', 'example.org:port', '[::1]]', 'x'.repeat(300)]) {
      for (const [method, path, body] of [
        ['GET', '/events', ''],
        ['GET', `/venues/${venueId}`, ''],
        ['GET', '/doc', ''],
        ['POST', '/venues', '{"venue":"Hosted"}'],
      ]) {
        const r = await raw(method, path, { ...json, ...admin(), Host: host }, body);
        expect({ host, method, path, status: r.status, code: r.body.code }).toEqual({ host, method, path, status: 400, code: 'rest_invalid_host' });
      }
    }
    for (const host of ['[::1]:8080', 'localhost', 'calendar.example.org:443', '127.0.0.1']) {
      expect((await raw('GET', `/venues/${venueId}`, { Host: host })).status).toBe(200);
    }
  });

  it('answers a form nested too deep with a 4xx', async () => {
    const r = await raw('POST', '/venues', { ...admin(), 'Content-Type': 'application/x-www-form-urlencoded' }, `venue${'[a]'.repeat(200)}=1`);
    expect(r.status).toBeGreaterThanOrEqual(400);
    expect(r.status).toBeLessThan(500);
  });
});
