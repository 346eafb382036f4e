// Input that once reached a 500 or stalled the process: bodies nested without end (in any charset),
// bodies that do not decompress as their Content-Encoding says, Host headers that are no host, names
// built to make a pattern backtrack. Each is the client's fault: a 4xx in the error shape, at once.
// Sent over a raw socket where fetch would refuse to send it.
import net from 'node:net';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from '../setup/server.js';

interface RawAnswer {
  status: number;
  body: any;
}

/** One HTTP/1.1 request written by hand; answers the status and the JSON body. */
function rawRequest(
  server: TestServer,
  method: string,
  path: string,
  headers: Record<string, string>,
  body: Buffer | string = '',
): Promise<RawAnswer> {
  const data = Buffer.isBuffer(body) ? body : Buffer.from(body);
  const head = [
    `${method} /wp-json/calendar/events/v1${path} HTTP/1.1`,
    'Connection: close',
    `Content-Length: ${data.length}`,
  ]
    .concat(Object.entries({ Host: '127.0.0.1', ...headers }).map(([k, v]) => `${k}: ${v}`))
    .join('\r\n');
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(new URL(server.origin).port), '127.0.0.1', () =>
      socket.write(Buffer.concat([Buffer.from(`${head}\r\n\r\n`), data])),
    );
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

/** Bad hosts: the first five fail HOST's shape, the rest pass it but not the URL parser. */
const BAD_HOSTS = [
  '[::1',
  'a b',
  'example.org:port',
  '[::1]]',
  'x'.repeat(300),
  '[1:2]',
  '256.1.1.1',
  '1.2.3.4.5',
  '999999999999',
  'example.org:99999',
  '[::1]:65536',
];
const GOOD_HOSTS = ['[::1]:8080', 'localhost', 'calendar.example.org:443', '127.0.0.1'];

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

  const raw = (method: string, path: string, headers: Record<string, string>, body: Buffer | string = '') =>
    rawRequest(s, method, path, headers, body);
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
        expect({ method, path, status: r.status, code: r.body.code }).toEqual({
          method,
          path,
          status: 400,
          code: 'rest_invalid_json',
        });
      }
    }
  });

  it('lets bodies 64 levels deep through to validation, and does not count brackets inside strings', async () => {
    const deep = await raw(
      'POST',
      '/categories',
      { ...json, ...admin() },
      `{"name":"Deep","description":${'['.repeat(63)}${']'.repeat(63)}}`,
    );
    expect(deep.status).toBe(400);
    expect(deep.body.code).toBe('rest_invalid_param');
    const brackets = await raw(
      'POST',
      '/categories',
      { ...json, ...admin() },
      JSON.stringify({ name: 'Brackets', description: `${'['.repeat(500)}\\" {{{` }),
    );
    expect(brackets.status).toBe(201);
  });

  it('answers 400 to a body that is not what its Content-Encoding says, and reads one that is', async () => {
    for (const encoding of ['gzip', 'deflate', 'br']) {
      const r = await raw(
        'POST',
        '/venues',
        { ...json, ...admin(), 'Content-Encoding': encoding },
        '{"venue":"Plain"}',
      );
      expect({ encoding, status: r.status, code: r.body.code }).toEqual({
        encoding,
        status: 400,
        code: 'rest_invalid_body',
      });
    }
    const ok = await raw(
      'POST',
      '/venues',
      { ...json, ...admin(), 'Content-Encoding': 'gzip' },
      gzipSync('{"venue":"Zipped hall"}'),
    );
    expect(ok.status).toBe(201);
    expect(ok.body.venue).toBe('Zipped hall');
  });

  it('answers 400 rest_invalid_host to a Host that is no host, on reads and writes', async () => {
    for (const host of BAD_HOSTS) {
      for (const [method, path, body] of [
        ['GET', '/events', ''],
        ['GET', `/venues/${venueId}`, ''],
        ['GET', '/doc', ''],
        ['POST', '/venues', '{"venue":"Hosted"}'],
      ]) {
        const r = await raw(method, path, { ...json, ...admin(), Host: host }, body);
        expect({ host, method, path, status: r.status, code: r.body.code }).toEqual({
          host,
          method,
          path,
          status: 400,
          code: 'rest_invalid_host',
        });
      }
    }
    for (const host of GOOD_HOSTS) {
      expect((await raw('GET', `/venues/${venueId}`, { Host: host })).status).toBe(200);
    }
  });

  it('answers a form nested too deep with 400 rest_invalid_body saying so', async () => {
    const r = await raw(
      'POST',
      '/venues',
      { ...admin(), 'Content-Type': 'application/x-www-form-urlencoded' },
      `venue${'[a]'.repeat(200)}=1`,
    );
    expect({ status: r.status, code: r.body.code, message: r.body.message }).toEqual({
      status: 400,
      code: 'rest_invalid_body',
      message: 'The form is nested too deep.',
    });
  });

  it('refuses JSON in any charset but UTF-8 with 415, where the depth scan could be fooled', async () => {
    // In UTF-16 the escaped quote `\"` is `\`, NUL, `"`: a scan over bytes took the NUL as the
    // escaped character and ended the string early, so the 5,000 brackets after it went uncounted.
    const nested = `["\\"", ${'['.repeat(5000)}${']'.repeat(5000)}]`;
    const utf16le = Buffer.from(nested, 'utf16le');
    const utf32le = Buffer.alloc(nested.length * 4);
    for (let i = 0; i < nested.length; i++) utf32le.writeUInt32LE(nested.charCodeAt(i), i * 4);
    for (const [method, path] of writes()) {
      for (const [charset, body] of [
        ['utf-16le', utf16le],
        ['utf-16be', Buffer.from(utf16le).swap16()],
        ['utf-32', utf32le],
      ] as const) {
        const r = await raw(method, path, { ...admin(), 'Content-Type': `application/json; charset=${charset}` }, body);
        expect({ method, path, charset, status: r.status, code: r.body.code }).toEqual({
          method,
          path,
          charset,
          status: 415,
          code: 'rest_unsupported_media_type',
        });
      }
    }
    const utf8 = await raw(
      'POST',
      '/venues',
      { ...admin(), 'Content-Type': 'application/json; charset=UTF-8' },
      '{"venue":"Eight-bit hall"}',
    );
    expect(utf8.status).toBe(201);
  });

  it('checks a long name that can never match in linear time', async () => {
    // The name pattern was quadratic, and validation runs it even past maxLength: 80,000
    // characters ending in NUL took 7 s of CPU, a full 1 MiB body would take many minutes.
    const name = `${'a'.repeat(100_000)}\u0000`;
    for (const [path, field] of [
      ['/venues', 'venue'],
      ['/organizers', 'organizer'],
      ['/events', 'title'],
      ['/categories', 'name'],
    ]) {
      const started = performance.now();
      const r = await s.post(path, { [field]: name }, { as: 'author' });
      const took = performance.now() - started;
      expect({ path, status: r.status, fast: took < 2500 }).toEqual({ path, status: 400, fast: true });
    }
  });
});

describe('hostile forwarded hosts from a trusted proxy', () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startServer('pglite', { TRUST_PROXY: 'loopback' });
  });
  afterAll(() => s?.close());

  it('answers 400 rest_invalid_host to an X-Forwarded-Host that is no host, and builds links from a good one', async () => {
    for (const host of BAD_HOSTS) {
      const r = await rawRequest(s, 'GET', '/events', { 'X-Forwarded-Host': host });
      expect({ host, status: r.status, code: r.body.code }).toEqual({ host, status: 400, code: 'rest_invalid_host' });
    }
    for (const host of GOOD_HOSTS) {
      const r = await rawRequest(s, 'GET', '/doc', { 'X-Forwarded-Host': host, 'X-Forwarded-Proto': 'https' });
      expect({ host, status: r.status, server: r.body.servers?.[0]?.url }).toEqual({
        host,
        status: 200,
        server: `https://${host}/wp-json/calendar/events/v1`,
      });
    }
  });
});
