// Reading a source (src/import/fetch-source.ts) over real HTTP on loopback: a body cut off is tried
// again like any network error, a body larger than allowed is refused at once, and only http(s)
// URLs without credentials are taken.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fetchSource, SourceError, sourceUrl } from '../../src/import/fetch-source.js';

describe('reading a source', () => {
  let server: http.Server;
  let base: string;
  const hits = new Map<string, number>();
  beforeAll(async () => {
    server = http.createServer((req, res) => {
      const path = req.url ?? '/';
      const hit = (hits.get(path) ?? 0) + 1;
      hits.set(path, hit);
      if (path === '/cut' && hit === 1) {
        // Headers and half the promised body, then the connection goes.
        res.writeHead(200, { 'content-length': '100' });
        res.write('x'.repeat(50));
        setTimeout(() => res.socket?.destroy(), 20);
        return;
      }
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.end(path === '/big' ? 'y'.repeat(5000) : 'whole');
    });
    server.listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => {
    server.close();
  });

  it('tries a body cut off again, and refuses a body too large without asking again', async () => {
    const answer = await fetchSource(new URL(`${base}/cut`), { minTimeoutMs: 1, retries: 3, allowPrivate: true });
    expect(new TextDecoder().decode(answer.bytes)).toBe('whole');
    expect(hits.get('/cut')).toBe(2);
    await expect(
      fetchSource(new URL(`${base}/big`), {
        minTimeoutMs: 1,
        retries: 3,
        maxBytes: 1000,
        allowPrivate: true,
      }),
    ).rejects.toThrow(/more than 1000 bytes/);
    expect(hits.get('/big')).toBe(1);
  });

  it('takes only http(s) URLs without credentials', () => {
    expect(sourceUrl('https://example.org/wp-json/tribe/events/v1').hostname).toBe('example.org');
    for (const url of ['file:///etc/passwd', 'ftp://example.org/', 'data:text/calendar,x', 'not a url']) {
      expect(() => sourceUrl(url), url).toThrow(SourceError);
    }
    expect(() => sourceUrl('https://user:secret@example.org/')).toThrow(/--app-password/);
  });
});
