// A CalDAV answer on a real loopback socket (src/caldav/answer.ts): written as it is built, it waits
// for a client that does not read instead of building on in memory, stops when the client leaves,
// and a caller is sent one big answer at a time (the limit set to 1 here), its slot freed when the
// answer ends, however it ends.
import { createServer, type Server } from 'node:http';
import net from 'node:net';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { Answer, BigAnswers, ClientGone } from '../../src/caldav/answer.js';
import { DavError } from '../../src/caldav/errors.js';

const CHUNK = 'x'.repeat(64 * 1024);
let server: Server;
let port: number;
/** Per request: chunks written so far, and how its answer ended. */
const answers: { written: number; ended?: Promise<unknown> }[] = [];

beforeAll(async () => {
  const big = new BigAnswers(1);
  server = createServer((_req, res) => {
    const state: { written: number; ended?: Promise<unknown> } = { written: 0 };
    answers.push(state);
    const answer = new Answer(
      res,
      { status: 200, type: 'text/plain' },
      { maxBytes: 2 ** 40, bigBytes: 1024 },
      big,
      'one',
    );
    // An answer without end, as a hostile request would ask for: only the client can stop it.
    state.ended = (async () => {
      for (;;) {
        await answer.write(CHUNK);
        state.written++;
      }
    })().catch((err: unknown) => {
      if (err instanceof DavError) res.writeHead(err.status).end();
      return err;
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as net.AddressInfo).port;
});

afterAll(() => new Promise((resolve) => server.close(resolve)));

/** How an answer ended, or 'running' if it is still being built after a second. */
const endOf = (answer: { ended?: Promise<unknown> }) =>
  Promise.race([
    answer.ended,
    new Promise((resolve) => {
      setTimeout(() => {
        resolve('running');
      }, 1000);
    }),
  ]);

/** A client that sends its request and reads nothing until told to; resolves at the answer's first bytes. */
function client(): Promise<{ socket: net.Socket; first: string }> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1', () => {
      socket.write('GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n');
    });
    socket.once('data', (data) => {
      socket.pause();
      resolve({ socket, first: data.toString() });
    });
    socket.once('error', reject);
  });
}

const LIMIT = 64 * 1024 * 1024;

/** Until `value()` chunks have stayed the same for a few turns of the server's loop, or passed LIMIT. */
async function settledValue(value: () => number): Promise<number> {
  let last = -1;
  for (let same = 0; same < 5 && last * CHUNK.length < LIMIT;) {
    await new Promise((resolve) => setTimeout(resolve, 50));
    same = value() === last ? same + 1 : 0;
    last = value();
  }
  return last;
}

it('waits for a client that does not read, stops when it leaves, and sends a caller one big answer at a time', async () => {
  const first = await client();
  expect(first.first).toMatch(/^HTTP\/1.1 200/);
  const held = answers[0];
  // Blocked on the socket: what was built is what the socket buffers hold, not the endless answer.
  const written = await settledValue(() => held.written);
  expect(written * CHUNK.length).toBeLessThan(LIMIT);

  // The same caller meanwhile: refused before anything is sent.
  const second = await client();
  expect(second.first).toMatch(/^HTTP\/1.1 429/);
  second.socket.destroy();

  first.socket.destroy();
  expect(await endOf(held)).toBeInstanceOf(ClientGone);
  expect(held.written).toBeLessThanOrEqual(written + 1);

  // Its slot was given back when the answer ended.
  const third = await client();
  expect(third.first).toMatch(/^HTTP\/1.1 200/);
  third.socket.destroy();
  expect(await endOf(answers[2])).toBeInstanceOf(ClientGone);
});
