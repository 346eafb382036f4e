// Runs once before all test files: prepares each database the tests use, migrated and with one
// user per role, so that a test file copies it (PGlite: a tarball; PostgreSQL: CREATE DATABASE ...
// TEMPLATE) instead of migrating and hashing passwords anew. Removed again after the run.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { TestProject } from 'vitest/node';
import { openDatabase } from '../../src/db/client.js';
import { createPostgresDatabase, postgresUrl } from './databases.js';
import { createRoleUsers, type RoleUsers } from './role-users.js';

export interface DatabaseTemplates {
  pglite: { file: string; users: RoleUsers };
  postgresql?: { name: string; users: RoleUsers };
}

declare module 'vitest' {
  export interface ProvidedContext {
    databaseTemplates: DatabaseTemplates;
    /**
     * Set by a project whose files share their workers' modules (isolate: false, vitest.config.ts),
     * so that one file can hand its embedded database on to the next (databases.ts).
     */
    sharedModules?: boolean;
  }
}

export default async function setup(project: TestProject) {
  // One per project of vitest.config.ts: each project runs its own set-up, possibly at once.
  const file = path.join(os.tmpdir(), `calendar-test-template-${process.pid}-${project.name || 'root'}.tar`);
  const lite = await openDatabase({ dataDir: 'memory://' });
  const liteUsers = await createRoleUsers(lite);
  if (!lite.dump) throw new Error('PGlite cannot be dumped');
  fs.writeFileSync(file, Buffer.from(await (await lite.dump()).arrayBuffer()));
  await lite.close();

  let postgresql: DatabaseTemplates['postgresql'];
  let dropTemplate = () => Promise.resolve();
  if (postgresUrl) {
    const created = await createPostgresDatabase();
    const db = await openDatabase({ databaseUrl: created.url, dataDir: '' });
    const users = await createRoleUsers(db);
    await db.close();
    postgresql = { name: new URL(created.url).pathname.slice(1), users };
    dropTemplate = created.drop;
  }
  project.provide('databaseTemplates', {
    pglite: { file, users: liteUsers },
    postgresql,
  });
  return async () => {
    fs.rmSync(file, { force: true });
    await dropTemplate();
  };
}
