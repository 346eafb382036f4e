// The guarded fetcher (src/lib/guarded-fetch.ts), through which every outbound request goes. Two
// servers on loopback stand for two origins. Where an address is to be refused, the resolver and the
// connections are the test's own (`network`): whatever address a broken guard would connect to, the
// connection goes to a loopback server, and the test sees that it was made.
import http from 'node:http';
import net, { type AddressInfo } from 'node:net';
import zlib from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  guardedFetch,
  isPublicAddress,
  type Network,
  OutboundRefused,
  type OutboundRequest,
} from '../../src/lib/guarded-fetch.js';

interface Seen {
  path: string;
  authorization?: string;
}

/** A server on loopback that records what it is sent, and answers by path. */
async function startServer(answer: (req: http.IncomingMessage, res: http.ServerResponse) => void) {
  const seen: Seen[] = [];
  const server = http.createServer((req, res) => {
    seen.push({ path: req.url ?? '', authorization: req.headers.authorization });
    answer(req, res);
  });
  server.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  const port = (server.address() as AddressInfo).port;
  return { server, seen, port, origin: `http://127.0.0.1:${port}` };
}

type Started = Awaited<ReturnType<typeof startServer>>;

/** Names resolved as the test says; every connection goes to `to` on loopback, and is noted. */
function testNetwork(names: Record<string, string[]>, to: () => number) {
  const connections: string[] = [];
  const resolved: string[] = [];
  const network: Network = {
    resolve(host) {
      resolved.push(host);
      return Promise.resolve((names[host] ?? []).map((address) => ({ address, family: net.isIP(address) })));
    },
    connect({ address, port }) {
      connections.push(`${address}:${port}`);
      return net.connect({ host: '127.0.0.1', port: to() });
    },
  };
  return { network, connections, resolved };
}

const BASIC = 'Basic YWRtaW46c2VjcmV0';
const LIMITS = { maxBytes: 100_000, timeoutMs: 5000, maxRedirects: 5 } satisfies Partial<OutboundRequest>;

describe('the guarded fetcher', () => {
  let a: Started;
  let b: Started;
  beforeAll(async () => {
    b = await startServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.end('b');
    });
    a = await startServer((req, res) => {
      const path = req.url ?? '/';
      if (path.startsWith('/redirect?to=')) {
        res.writeHead(302, { location: decodeURIComponent(path.slice('/redirect?to='.length)) });
        res.end();
      } else if (path === '/bomb') {
        // 1 MB of zeros, a kilobyte or so on the wire.
        res.writeHead(200, { 'content-encoding': 'gzip' });
        res.end(zlib.gzipSync(Buffer.alloc(1_000_000)));
      } else if (path === '/silent') {
        res.flushHeaders();
      } else {
        res.writeHead(200, { 'content-type': 'text/plain' });
        res.end('a');
      }
    });
  });
  afterAll(() => {
    for (const { server } of [a, b]) {
      server.closeAllConnections();
      server.close();
    }
  });

  it('sends credentials only to the origin they were given for, on every hop of a redirect', async () => {
    const credentials = { origin: a.origin, authorization: BASIC };
    const request = { ...LIMITS, allowPrivate: true, credentials };
    await guardedFetch(`${a.origin}/own`, request);
    await guardedFetch(`${b.origin}/image.png`, request);
    const answer = await guardedFetch(
      `${a.origin}/redirect?to=${encodeURIComponent(`${b.origin}/moved.png`)}`,
      request,
    );
    expect(answer.url.href).toBe(`${b.origin}/moved.png`);
    expect(new TextDecoder().decode(answer.bytes)).toBe('b');
    expect(a.seen.filter((r) => r.authorization === BASIC).map((r) => r.path)).toEqual(['/own', expect.any(String)]);
    expect(b.seen).toEqual([{ path: '/image.png' }, { path: '/moved.png' }]);
  });

  it('refuses private, loopback and link-local addresses before connecting, unless allowed', async () => {
    const { network, connections } = testNetwork(
      {
        'loopback.test': ['127.0.0.1'],
        'mapped.test': ['::ffff:127.0.0.1'],
        'metadata.test': ['169.254.169.254'],
        'internal.test': ['10.1.2.3'],
        'mixed.test': ['93.184.215.14', '192.168.1.10'],
      },
      () => a.port,
    );
    const urls = [
      `${a.origin}/`,
      'http://[::1]:9/',
      'http://169.254.169.254/latest/meta-data/',
      'http://[::ffff:10.0.0.1]/',
      'http://0.0.0.0/',
      'http://2130706433/', // 127.0.0.1 written as a number
      'http://loopback.test/',
      'http://mapped.test/',
      'http://metadata.test/',
      'http://internal.test/',
      'http://mixed.test/',
    ];
    for (const url of urls) {
      const refused = await guardedFetch(url, { ...LIMITS, allowPrivate: false, network }).catch((err: unknown) => err);
      expect([url, refused instanceof OutboundRefused && refused.reason]).toEqual([url, 'address']);
      expect((refused as Error).message).toContain('private, loopback or link-local');
    }
    expect(connections).toEqual([]);
    const allowed = await guardedFetch('http://loopback.test/', { ...LIMITS, allowPrivate: true, network });
    expect(allowed.status).toBe(200);
    expect(connections).toEqual(['127.0.0.1:80']);
  });

  it('checks the address of every redirect, and connects to the address it checked', async () => {
    let answers = 0;
    const { network, connections } = testNetwork(
      { 'public.test': ['93.184.215.14'], localhost: ['127.0.0.1', '::1'] },
      () => a.port,
    );
    // A name that resolves to a public address once, then to loopback: it is resolved once, and
    // the connection goes to the address that was checked.
    const rebinding: Network = {
      resolve: () => Promise.resolve([{ address: answers++ ? '127.0.0.1' : '93.184.215.14', family: 4 }]),
      connect: (to) => network.connect(to),
    };
    const answer = await guardedFetch('http://rebinding.test/pinned', {
      ...LIMITS,
      allowPrivate: false,
      network: rebinding,
    });
    expect([answer.status, answers]).toEqual([200, 1]);
    for (const to of [`${b.origin}/private.png`, 'http://[::1]/', 'http://localhost/']) {
      const via = `http://public.test/redirect?to=${encodeURIComponent(to)}`;
      const refused = await guardedFetch(via, { ...LIMITS, allowPrivate: false, network }).catch((err: unknown) => err);
      expect([to, (refused as OutboundRefused).reason]).toEqual([to, 'address']);
    }
    expect(connections).toEqual(['93.184.215.14:80', '93.184.215.14:80', '93.184.215.14:80', '93.184.215.14:80']);
    expect(b.seen.map((r) => r.path)).not.toContain('/private.png');
  });

  it('refuses an answer over its limit as decompressed, or keeps its start when asked to cut it', async () => {
    const request = { ...LIMITS, allowPrivate: true, maxBytes: 10_000 };
    const refused = await guardedFetch(`${a.origin}/bomb`, request).catch((err: unknown) => err);
    expect((refused as OutboundRefused).reason).toBe('size');
    expect((refused as Error).message).toContain('more than 10000 bytes');
    const cut = await guardedFetch(`${a.origin}/bomb`, { ...request, overflow: 'cut' });
    expect(cut.bytes.length).toBe(10_000);
  });

  it('gives up on an answer, or a name, that does not come within the time limit', async () => {
    const started = performance.now();
    await expect(guardedFetch(`${a.origin}/silent`, { ...LIMITS, allowPrivate: true, timeoutMs: 200 })).rejects.toThrow(
      'no answer within 200 ms',
    );
    // A resolver that never answers holds it no longer.
    const silent: Network = { resolve: () => new Promise(() => undefined), connect: () => new net.Socket() };
    await expect(
      guardedFetch('http://slow-dns.test/', { ...LIMITS, allowPrivate: false, timeoutMs: 200, network: silent }),
    ).rejects.toThrow('no answer within 200 ms');
    expect(performance.now() - started).toBeLessThan(2000);
  });

  it('takes only public unicast addresses as public', () => {
    const refused = [
      '127.0.0.1',
      '10.0.0.1',
      '172.16.0.1',
      '192.168.0.1',
      '169.254.169.254',
      '100.64.0.1',
      '0.0.0.0',
      '255.255.255.255',
      '::1',
      '::',
      'fe80::1',
      'fd00::1',
      '::ffff:127.0.0.1',
      '::127.0.0.1',
      '64:ff9b::7f00:1',
      '2002:7f00:1::',
      'not an address',
    ];
    for (const address of refused) expect([address, isPublicAddress(address)]).toEqual([address, false]);
    for (const address of ['93.184.215.14', '2606:4700::1111', '::ffff:93.184.215.14']) {
      expect([address, isPublicAddress(address)]).toEqual([address, true]);
    }
  });
});
