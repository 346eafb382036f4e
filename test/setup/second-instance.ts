// A second instance of the app beside a test server, with its own pool on the same PostgreSQL
// database, as another process behind the load balancer would have: for tests of what must hold
// across instances (row locks, leases), which PGlite's one connection cannot show.
import type { AddressInfo } from 'node:net';
import { createApp } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { openDatabase } from '../../src/db/client.js';
import type { TestServer } from './server.js';

export interface SecondInstance {
  /** Its namespace's base URL. */
  base: string;
  close(): Promise<void>;
}

export async function secondInstance(s: TestServer, env: Record<string, string> = {}): Promise<SecondInstance> {
  const config = {
    ...loadConfig({ REST_PREFIX: '/wp-json', RATE_LIMIT_WRITES: '1000000', RATE_LIMIT_READS: '1000000', ...env }),
    port: 0,
  };
  if (!s.url) throw new Error('a second instance needs the PostgreSQL test database');
  const db = await openDatabase({ databaseUrl: s.url, dataDir: '', poolSize: 5 });
  const app = createApp({ config, db });
  await app.ready();
  const server = app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  return {
    base: `http://127.0.0.1:${(server.address() as AddressInfo).port}/wp-json/calendar/events/v1`,
    async close() {
      await new Promise((resolve) => server.close(resolve));
      await app.close();
    },
  };
}
