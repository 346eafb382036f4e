// One suite per database the run has (databases.ts): each starts a server of its own before its
// tests and closes it after them. The suite's body gets the server as `s`, usable in tests and hooks.
import { afterAll, beforeAll, describe } from 'vitest';
import { databaseKinds, type DatabaseKind } from './databases.js';
import { startServer, type TestServer } from './server.js';

export interface EachDatabaseOptions {
  /** Environment the server's configuration is read from, over the test defaults. */
  env?: Record<string, string>;
  /** The databases to run on; all of the run's by default. */
  kinds?: DatabaseKind[];
}

export function describeEachDatabase(
  title: string,
  body: (s: TestServer, kind: DatabaseKind) => void,
  options: EachDatabaseOptions = {},
) {
  // The database's name goes where the title has %s, else at its end.
  describe.each(options.kinds ?? databaseKinds)(title.includes('%s') ? title : `${title} on %s`, (kind) => {
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
