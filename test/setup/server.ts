// Starts the real app on an ephemeral loopback port over a fresh database, and gives the test a
// client whose every response is checked against the document.
import type { AddressInfo } from 'node:net';
import { createApp } from '../../src/app.js';
import type { Role } from '../../src/auth/roles.js';
import { loadConfig } from '../../src/config.js';
import type { Database } from '../../src/db/client.js';
import { NAMESPACE } from '../../src/http/urls.js';
import { assertConforms } from './contract.js';
import { type DatabaseKind, openTestDatabase } from './databases.js';
import type { TestUser } from './role-users.js';

export interface TestResponse<T = any> {
  status: number;
  headers: Headers;
  body: T;
  text: string;
}

export interface RequestOptions {
  body?: unknown;
  /** Sent as application/x-www-form-urlencoded instead of JSON. */
  form?: Record<string, string | string[]>;
  /** Sent as is, with the given content type. */
  raw?: { contentType: string; data: string | Buffer };
  headers?: Record<string, string>;
  /** Path prefix before the REST prefix, e.g. `/fr`. */
  locale?: string;
  /** The path is from the REST root (`/batch/v1`) rather than from the namespace. */
  fromRoot?: boolean;
  /** Answer a 303 as it is instead of following it. */
  noRedirect?: boolean;
  /** Whose application password to send (Bearer); `null` sends none. Default: the administrator. */
  as?: Role | null;
}

export type { TestUser } from './role-users.js';

export interface TestServer {
  db: Database;
  /** The connection string of the server's PostgreSQL database (absent on PGlite), for a second instance's own pool. */
  url?: string;
  /** One user per role, whose login is the role's name. */
  users: Record<Role, TestUser>;
  origin: string;
  base: string;
  request<T = any>(method: string, path: string, options?: RequestOptions): Promise<TestResponse<T>>;
  get<T = any>(path: string, options?: RequestOptions): Promise<TestResponse<T>>;
  post<T = any>(path: string, body?: unknown, options?: RequestOptions): Promise<TestResponse<T>>;
  /** What the service does before it listens (server.ts); test servers skip it unless asked. */
  warmUp(): Promise<void>;
  close(): Promise<void>;
}

export async function startServer(kind: DatabaseKind, env: Record<string, string> = {}): Promise<TestServer> {
  // Limits far above what a test file asks, so that they count on every request but refuse none;
  // test/http/rate-limits.test.ts and test/http/series-growth.test.ts set their own.
  const config = {
    ...loadConfig({
      REST_PREFIX: '/wp-json',
      RATE_LIMIT_READS: '1000000',
      RATE_LIMIT_WRITES: '1000000',
      RATE_LIMIT_SIGN_INS: '1000000',
      QUOTA_CREATES_PER_HOUR: '1000000',
      QUOTA_SERIES: '1000000',
      QUOTA_OCCURRENCES: '100000000',
      // The client is in the server's process: after a long synchronous stretch (PGlite runs its
      // statements on this thread), a request may go out on a kept-alive connection in the same turn
      // as the server's idle timer for it fires, and fail with ECONNRESET (seen on a busy two-core
      // machine). Idle connections outlive every pause here; test/http/slow-clients.test.ts sets its own.
      HTTP_KEEP_ALIVE_TIMEOUT_SECONDS: '300',
      ...env,
    }),
    port: 0,
  };
  const database = await openTestDatabase(kind, {
    statementTimeoutMs: config.databaseStatementTimeoutSeconds * 1000,
    transactionTimeoutMs: config.databaseTransactionTimeoutSeconds * 1000,
  });
  const users = database.users;
  const app = createApp({
    config,
    db: database.db,
    onServerError: (err) => {
      console.error(err);
    },
  });
  await app.ready();
  const server = app.listen(0, '127.0.0.1');
  await new Promise<void>((resolve) =>
    server.once('listening', () => {
      resolve();
    }),
  );
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const namespacePath = `${config.restPrefix}/${NAMESPACE}`;

  async function request<T>(method: string, path: string, options: RequestOptions = {}): Promise<TestResponse<T>> {
    const as = options.as === undefined ? 'administrator' : options.as;
    const headers: Record<string, string> = {
      ...(as ? { authorization: `Bearer ${users[as].appPassword}` } : {}),
      ...options.headers,
    };
    const encoded = encodeBody(options);
    if (encoded) headers['content-type'] = encoded.contentType;
    const data = encoded?.data;
    const prefix = `${options.locale ?? ''}${options.fromRoot ? config.restPrefix : namespacePath}`;
    let url = new URL(`${origin}${prefix}${path}`);
    // Redirects are followed as a client would (GET's 303 to an event's iCalendar URL), each answer
    // checked against the document on its own.
    for (;;) {
      const response = await fetch(url, { method, headers, body: data, redirect: 'manual' });
      const { text, body } = await checkedAnswer(response, { method, url, prefix });
      const location = response.headers.get('location');
      if (response.status === 303 && location && !options.noRedirect) {
        url = new URL(location, url);
        continue;
      }
      return { status: response.status, headers: response.headers, body, text };
    }
  }

  return {
    db: database.db,
    url: database.url,
    users,
    origin,
    base: `${origin}${namespacePath}`,
    request,
    get: (path, options) => request('GET', path, options),
    post: (path, body, options) => request('POST', path, { ...options, body }),
    warmUp: () => app.warmUp(),
    close: async () => {
      await new Promise<void>((resolve) =>
        server.close(() => {
          resolve();
        }),
      );
      await app.close();
      await database.drop();
    },
  };
}

/** The request's body and its content type: raw bytes, a form, or JSON; undefined without a body. */
function encodeBody(options: RequestOptions): { contentType: string; data: string | Buffer } | undefined {
  if (options.raw) return options.raw;
  if (options.form) {
    const form = new URLSearchParams();
    for (const [k, v] of Object.entries(options.form)) for (const item of [v].flat()) form.append(k, item);
    return { contentType: 'application/x-www-form-urlencoded', data: form.toString() };
  }
  if (options.body !== undefined) return { contentType: 'application/json', data: JSON.stringify(options.body) };
  return undefined;
}

/** The answer's text and body (JSON parsed), checked against the document. */
async function checkedAnswer(response: Response, sent: { method: string; url: URL; prefix: string }) {
  const text = await response.text();
  const body = text && response.headers.get('content-type')?.includes('json') ? JSON.parse(text) : text;
  // The path as sent: URL parsing resolves `..` segments (`/events/by-slug/..` is `/events/`).
  const { pathname } = sent.url;
  const path = pathname.startsWith(sent.prefix) ? pathname.slice(sent.prefix.length) : pathname;
  assertConforms({
    method: sent.method,
    path: path || '/',
    search: sent.url.search,
    status: response.status,
    headers: response.headers,
    body,
  });
  return { text, body };
}
