// A webhook receiver on loopback for the tests: it keeps every request (headers and body) and
// answers what the test says (204 by default), or never.
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Received {
  headers: http.IncomingHttpHeaders;
  body: string;
}

/** What to answer the n-th request (from 1); undefined: never answer it. */
type Answer = (
  r: Received,
  n: number,
) => { status: number; body?: string; headers?: Record<string, string> } | undefined;

export async function receiver() {
  const received: Received[] = [];
  let answer: Answer = () => ({ status: 204 });
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const r = { headers: req.headers, body: Buffer.concat(chunks).toString('utf8') };
      received.push(r);
      const a = answer(r, received.length);
      if (a) res.writeHead(a.status, a.headers).end(a.body ?? '');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    received,
    /** What the receiver answers from now on. */
    answer: (f: Answer) => {
      answer = f;
    },
    /** Each message's `webhook-id` and the ID of the object it is about. */
    messages: () =>
      received.map((r) => ({
        id: String(r.headers['webhook-id']),
        object: (JSON.parse(r.body) as { data: { id: number } }).data.id,
      })),
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => {
          resolve();
        });
      }),
  };
}
