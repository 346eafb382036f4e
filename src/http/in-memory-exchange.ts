// One HTTP exchange with the app itself, written by Node's HTTP client and read by Node's HTTP
// server into the same Express app, over a pair of connected in-memory streams rather than a
// socket: the request meets every part a request from the network meets (authentication, the
// document's validation, rate limits, the handler), with no second copy of that pipeline and no
// fake request objects. The batch route sends its requests so (http/batch.ts), and the submission
// form its submission (pages/submit.ts).
import http, { type IncomingMessage, type RequestListener } from 'node:http';
import type { Socket } from 'node:net';
import { duplexPair, type Duplex } from 'node:stream';

/** No request takes this long: a statement's limit is 10 s, a transaction's 30 s (db/client.ts). */
const INNER_TIMEOUT_MS = 30_000;

export interface Exchanged {
  status: number;
  headers: IncomingMessage['headers'];
  text: string;
}

export interface InMemoryRequest {
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: string | Buffer;
}

/**
 * Sends `request` to `app` and reads its whole answer. The server's end of the connection has the
 * address of `peer` (the connection the outer request came on), so that the proxy headers carried
 * count as they did for it (req.ip, http/urls.ts). `connected` is told of the server's end before
 * the request is read, to mark it (http/batch.ts innerOf). `maxHeaderSize` is the inner server's.
 */
export function exchangeInMemory(
  app: RequestListener,
  peer: Socket,
  request: InMemoryRequest,
  { connected, maxHeaderSize }: { connected?: (serverEnd: Duplex) => void; maxHeaderSize?: number } = {},
): Promise<Exchanged> {
  const [clientEnd, serverEnd] = duplexPair();
  Object.assign(serverEnd, { remoteAddress: peer.remoteAddress, remotePort: peer.remotePort });
  if ('encrypted' in peer) Object.assign(serverEnd, { encrypted: true });
  connected?.(serverEnd);
  const server = http.createServer(maxHeaderSize ? { maxHeaderSize } : {}, app);
  server.emit('connection', serverEnd);
  let timer: NodeJS.Timeout | undefined;
  return new Promise<Exchanged>((resolve, reject) => {
    const sent = http.request({ ...request, createConnection: () => clientEnd }, (answer) => {
      const chunks: Buffer[] = [];
      answer.on('data', (chunk: Buffer) => chunks.push(chunk));
      answer.on('end', () => {
        resolve({ status: answer.statusCode ?? 500, headers: answer.headers, text: Buffer.concat(chunks).toString() });
      });
      answer.on('error', reject);
    });
    sent.on('error', reject);
    // A connection closed without a whole answer (the server refused to parse the request) is a
    // failure, not a wait; once answered, this does nothing.
    sent.on('close', () => {
      reject(new Error('The inner request ended without an answer.'));
    });
    timer = setTimeout(() => {
      reject(new Error(`The inner request took longer than ${INNER_TIMEOUT_MS} ms.`));
    }, INNER_TIMEOUT_MS);
    sent.end(request.body);
  }).finally(() => {
    clearTimeout(timer);
    clientEnd.destroy();
    serverEnd.destroy();
  });
}
