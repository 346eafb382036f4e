// An instance of the service with federation on: its PUBLIC_URL is the loopback address it listens
// on (known only once it listens, so the app is made after), with its delivery worker running.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createApp } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { startFederation } from '../../src/federation/worker.js';
import { configuredUrls } from '../../src/http/urls.js';
import { assertConforms } from './contract.js';
import { type DatabaseKind, openTestDatabase } from './databases.js';

export async function federatedInstance(kind: DatabaseKind, env: Record<string, string> = {}) {
  const database = await openTestDatabase(kind);
  const server = http.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  const origin = `http://127.0.0.1:${port}`;
  const config = {
    ...loadConfig({
      REST_PREFIX: '/wp-json',
      PUBLIC_URL: origin,
      // Loopback peers: the tests' own actors and instances.
      FEDERATION_ALLOW_PRIVATE_ADDRESSES: '1',
      FEDERATION_RETRY_BASE_MS: '100',
      FEDERATION_TIMEOUT_SECONDS: '2',
      HTTP_KEEP_ALIVE_TIMEOUT_SECONDS: '300',
      ...env,
    }),
    port,
  };
  const errors: unknown[] = [];
  const app = createApp({
    config,
    db: database.db,
    onServerError: (err) => {
      console.error(err);
    },
  });
  await app.ready();
  server.on('request', app);
  const federation = app.federation;
  const settings = config.federation;
  if (!federation || !settings) throw new Error('federation is off: PUBLIC_URL was not taken');
  const worker = startFederation(
    database.db,
    federation.federation,
    {
      federation: settings,
      dispatch: { urls: configuredUrls(config, port), siteZone: config.siteTimezone, currency: config.costCurrency },
      pollMs: 50,
    },
    (err) => errors.push(err),
  );
  const api = `${origin}/wp-json/calendar/events/v1`;
  const admin = { authorization: `Bearer ${database.users.administrator.appPassword}` };
  /** A request to the REST API as the administrator; the body parsed as JSON. */
  const rest = async (method: string, path: string, body?: unknown) => {
    const response = await fetch(`${api}${path}`, {
      method,
      headers: { ...admin, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    const parsed = text ? (JSON.parse(text) as Record<string, any>) : undefined;
    // Checked against the document, as every answer of test/setup/server.ts's client is.
    const url = new URL(`${api}${path}`);
    assertConforms({
      method,
      path: url.pathname.slice(new URL(api).pathname.length) || '/',
      search: url.search,
      status: response.status,
      headers: response.headers,
      body: parsed,
    });
    return { status: response.status, body: parsed };
  };
  return {
    origin,
    db: database.db,
    actorId: `${origin}/federation/actors/events`,
    inbox: `${origin}/federation/actors/events/inbox`,
    sharedInbox: `${origin}/federation/inbox`,
    rest,
    /** The administrator's credentials, for requests `rest` does not make (uploads). */
    adminHeaders: admin,
    /** One user per role (test/setup/role-users.ts). */
    users: database.users,
    /** The REST API's base URL. */
    api,
    errors,
    nudge: () => {
      worker.nudge();
    },
    close: async () => {
      await worker.stop();
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      await app.close();
      await database.drop();
    },
  };
}
