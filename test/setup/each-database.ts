// One suite per database the run has (databases.ts): each starts a server of its own before its
// tests and closes it after them. The suite's body gets the server as `s`, usable in tests and hooks.
import { afterAll, beforeAll, describe, it } from 'vitest';
import { databaseKinds, type DatabaseKind, NEEDS_POSTGRES, postgresTitle } from './databases.js';
import { startServer, type TestServer } from './server.js';

export interface EachDatabaseOptions {
  /** Environment the server's configuration is read from, over the test defaults. */
  env?: Record<string, string>;
  /**
   * The databases to run on; all of the run's by default. One the run has not (PostgreSQL without
   * TEST_DATABASE_URL) gets a suite of one skipped test that says so, rather than no suite at all.
   */
  kinds?: DatabaseKind[];
}

/**
 * A test that only PostgreSQL can run (`why`: what PGlite's one connection cannot do): run in the
 * PostgreSQL suite, and in the PGlite suite shown skipped with the reason, never left out unseen.
 */
export function itOnPostgres(
  kind: DatabaseKind,
  title: string,
  why: string,
  fn: () => Promise<void>,
  timeout?: number,
) {
  if (kind === 'postgresql') it(title, fn, timeout);
  else it.skip(postgresTitle(`${title} (PostgreSQL only: ${why})`), fn);
}

export function describeEachDatabase(
  title: string,
  body: (s: TestServer, kind: DatabaseKind) => void,
  options: EachDatabaseOptions = {},
) {
  // The database's name goes where the title has %s, else at its end.
  const named = title.includes('%s') ? title : `${title} on %s`;
  const kinds = options.kinds ?? databaseKinds;
  for (const kind of kinds.filter((k) => !databaseKinds.includes(k))) {
    describe(named.replace('%s', kind), () => {
      it.skip(NEEDS_POSTGRES);
    });
  }
  describe.each(kinds.filter((k) => databaseKinds.includes(k)))(named, (kind) => {
    let server: TestServer | undefined;
    beforeAll(async () => {
      server = await startServer(kind, options.env);
    });
    afterAll(async () => {
      await server?.close();
    });
    body(
      serverOnceStarted(() => server),
      kind,
    );
  });
}

/** The server as the suite's body sees it: it exists from the suite's first hook on. */
function serverOnceStarted(current: () => TestServer | undefined): TestServer {
  return new Proxy({} as TestServer, {
    get(_target, property) {
      const server = current();
      if (!server) throw new Error('The test server starts in beforeAll: use it inside tests and hooks.');
      const value: unknown = Reflect.get(server, property);
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(server) : value;
    },
  });
}
