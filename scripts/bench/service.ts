// The service as `npm start` runs it, started on a benchmark database.
import path from 'node:path';
import type { Storage } from './fixtures.js';
import { type Server, startServer } from './load.js';
import { PROFILE_DIR, SERVICE_ENV, START_ARGS } from './settings.js';

export function startService(
  storage: Storage,
  extra: Record<string, string> = {},
  nodeFlags: string[] = [],
): Promise<Server> {
  const env: Record<string, string> =
    storage.kind === 'postgresql' ? { DATABASE_URL: storage.url } : { DATABASE_URL: '', DATA_DIR: storage.dataDir };
  // V8 writes the profile when the process exits, after the shutdown that stop() starts.
  const profile = PROFILE_DIR ? [`--cpu-prof`, `--cpu-prof-dir=${path.resolve(PROFILE_DIR)}`] : [];
  return startServer(
    [...profile, ...nodeFlags, ...START_ARGS],
    { ...env, LOG_LEVEL: process.env.LOG_LEVEL ?? 'info', ...SERVICE_ENV, ...extra },
    '/readyz',
  );
}
