// A TCP proxy between the service and its database that a test can pause (the database stops
// answering, connections stay open: a stopped or overloaded server) and cut (every connection is
// reset and new ones are refused: a dead server), then resume.
import net from 'node:net';

export interface TcpProxy {
  port: number;
  /** Stops forwarding bytes in both directions; new connections are accepted and held. */
  pause(): void;
  /** Resets every connection and every new one, until `resume`. */
  cut(): void;
  resume(): void;
  close(): Promise<void>;
}

export async function startTcpProxy(targetHost: string, targetPort: number): Promise<TcpProxy> {
  let state: 'open' | 'paused' | 'cut' = 'open';
  const pairs = new Set<{ client: net.Socket; upstream?: net.Socket }>();
  const held: (() => void)[] = [];

  const connect = (pair: { client: net.Socket; upstream?: net.Socket }) => {
    const upstream = net.connect(targetPort, targetHost);
    pair.upstream = upstream;
    pair.client.pipe(upstream).pipe(pair.client);
    const drop = () => {
      pair.client.destroy();
      upstream.destroy();
      pairs.delete(pair);
    };
    upstream.on('error', drop).on('close', drop);
    pair.client.resume();
  };

  const server = net.createServer((client) => {
    if (state === 'cut') {
      client.resetAndDestroy();
      return;
    }
    const pair: { client: net.Socket; upstream?: net.Socket } = { client };
    pairs.add(pair);
    client
      .on('error', () => pair.upstream?.destroy())
      .on('close', () => {
        pair.upstream?.destroy();
        pairs.delete(pair);
      });
    if (state === 'paused') {
      client.pause();
      held.push(() => {
        connect(pair);
      });
    } else {
      connect(pair);
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));

  return {
    port: (server.address() as net.AddressInfo).port,
    pause() {
      state = 'paused';
      for (const { client, upstream } of pairs) {
        client.unpipe();
        upstream?.unpipe();
        client.pause();
        upstream?.pause();
      }
    },
    cut() {
      state = 'cut';
      for (const { client, upstream } of pairs) {
        client.resetAndDestroy();
        upstream?.destroy();
      }
      pairs.clear();
      held.length = 0;
    },
    resume() {
      const wasPaused = state === 'paused';
      state = 'open';
      if (wasPaused) {
        for (const { client, upstream } of pairs) {
          if (!upstream) continue;
          client.pipe(upstream).pipe(client);
          client.resume();
          upstream.resume();
        }
      }
      for (const start of held.splice(0)) start();
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const { client, upstream } of pairs) {
          client.destroy();
          upstream?.destroy();
        }
        server.close(() => {
          resolve();
        });
      }),
  };
}
