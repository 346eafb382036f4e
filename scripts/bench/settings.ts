// What every part of `npm run bench` (scripts/bench/run.ts) runs with: the environment's settings
// and the service's command.
import { readFileSync } from 'node:fs';

// 8 s: with CalDAV beside Radicale in the default run, 10 s runs took it past ten minutes.
export const SECONDS = Number(process.env.BENCH_SECONDS ?? 8);
export const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 32);
export const ROUNDS = Math.max(1, Number(process.env.BENCH_ROUNDS ?? 2));
export const PROFILE_DIR = process.env.BENCH_PROFILE;
export const SERVER_URL =
  process.env.BENCH_DATABASE_URL ||
  process.env.TEST_DATABASE_URL ||
  process.env.DATABASE_URL ||
  'postgresql://postgres@127.0.0.1:5432/test';
export const API = '/wp-json/calendar/events/v1';
export const NOW = new Date();
/** The service as `npm start` runs it: the node arguments of its last command (flags and dist/src/server.js). */
export const START_ARGS = (
  JSON.parse(readFileSync('package.json', 'utf8')) as { scripts: { start: string } }
).scripts.start
  .replace(/^.*&&/s, '') // everything after the last `&&`
  .trim()
  .split(/\s+/)
  .slice(1);
/** BENCH_SERVICE_ENV: settings of the service's own to compare, as JSON (`{"REDIS_URL":"redis://127.0.0.1:6379"}`). */
export const SERVICE_ENV = JSON.parse(process.env.BENCH_SERVICE_ENV || '{}') as Record<string, string>;
