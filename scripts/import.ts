// `npm run import -- tec|ics ...`: brings a calendar over into the database the service uses
// (DATABASE_URL, else the PGlite directory DATA_DIR), through the same services as the API
// (src/import/). PGlite admits one process at a time: while the service runs on it, this command
// refuses, naming the service's process.
import { parseArgs } from 'node:util';
import { type Config, loadConfig } from '../src/config.js';
import { ConfigError } from '../src/config/read.js';
import { openDatabase } from '../src/db/client.js';
import { DataDirLockedError } from '../src/db/data-dir-lock.js';
import { type Capability, may } from '../src/auth/capabilities.js';
import { isRole } from '../src/auth/roles.js';
import { importIcs, importTec, readIcs } from '../src/import/commands.js';
import { SourceError, Stopped } from '../src/import/fetch-source.js';
import type { ImageImport } from '../src/import/import-run.js';
import { DEFAULT_LIMITS, type ImportLimits } from '../src/import/limits.js';
import { terminalProgress } from '../src/import/progress.js';
import { exitStatus, summaryLines } from '../src/import/run-import.js';
import { serviceContext } from '../src/services/context.js';

const USAGE = `Usage: npm run import -- <source> [options]

  tec <base URL>     a site of The Events Calendar, e.g. https://example.org/wp-json/tribe/events/v1
      --user LOGIN --app-password PASSWORD
                     sign in there (a WordPress application password; or TEC_APP_PASSWORD in the
                     environment) to bring drafts and private items too
  ics <file or URL>  an iCalendar file, or an http(s) URL of one

  --as LOGIN         the account here the items are written as (default: the first administrator)
  --dry-run          say what would be created, updated and skipped; write nothing
  --keep-image-urls  link items to the source's image URLs instead of bringing the images into the
                     media library (by default each image is copied once, across runs)
  --max-pages N      pages read of each of a site's lists (default ${DEFAULT_LIMITS.maxPages})
  --max-items N      items taken of each kind, or VEVENTs of a file (default ${DEFAULT_LIMITS.maxItems})
  --max-links N      categories, tags or organizers taken of one item (default ${DEFAULT_LIMITS.maxLinks})
  --allow-private    read from the source's private, loopback or link-local address too (a site or
                     file on this machine or a closed network): refused otherwise, and always for
                     what the source names on another host (an image on another private address)

Run it again to bring changes over: items imported before are updated, not created again.
Exit status: 0 done, every item taken; 3 done, some items skipped (they are listed); 1 failed, or not
one event could be taken; 2 wrong usage; 130 stopped (run it again to go on).
`;

const OPTIONS = {
  user: { type: 'string' },
  'app-password': { type: 'string' },
  as: { type: 'string' },
  'dry-run': { type: 'boolean', default: false },
  'keep-image-urls': { type: 'boolean', default: false },
  'max-pages': { type: 'string' },
  'max-items': { type: 'string' },
  'max-links': { type: 'string' },
  'allow-private': { type: 'boolean', default: false },
  help: { type: 'boolean', short: 'h' },
} as const;

const LIMIT_OPTIONS = { 'max-pages': 'maxPages', 'max-items': 'maxItems', 'max-links': 'maxLinks' } as const;

const parseCommand = (argv: string[]) => parseArgs({ args: argv, allowPositionals: true, options: OPTIONS });

/** Images brought into the media library, unless the links are to be kept. */
const imageImport = (keepLinks: boolean, config: Config): ImageImport | undefined =>
  keepLinks ? undefined : { limits: config.media, known: new Map() };

async function main(argv: string[]): Promise<number> {
  let parsed: ReturnType<typeof parseCommand>;
  try {
    parsed = parseCommand(argv);
  } catch (err) {
    // An option without its value, or one it does not know: what was wrong, then how to call it.
    if (!(err as { code?: string }).code?.startsWith('ERR_PARSE_ARGS_')) throw err;
    process.stderr.write(`${(err as Error).message}\n\n${USAGE}`);
    return 2;
  }
  const { values, positionals } = parsed;
  const [kind, location, ...extra] = positionals;
  if (values.help) {
    process.stdout.write(USAGE);
    return 0;
  }
  if ((kind !== 'tec' && kind !== 'ics') || !location || extra.length) {
    process.stderr.write(USAGE);
    return 2;
  }
  const limits: Partial<ImportLimits> = {};
  for (const [option, key] of Object.entries(LIMIT_OPTIONS)) {
    const given = values[option as keyof typeof LIMIT_OPTIONS];
    if (given === undefined) continue;
    if (!/^[1-9][0-9]{0,8}$/.test(given)) {
      process.stderr.write(`--${option} takes a whole number from 1, not "${given}".\n\n${USAGE}`);
      return 2;
    }
    limits[key] = Number(given);
  }
  const config = loadConfig();
  const db = await openDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir });
  // Reading stops at once (a request or a pause is cut short); writing after the item being written.
  const stop = new AbortController();
  const onSignal = () => {
    if (stop.signal.aborted) process.exit(130); // a second Ctrl-C: now
    stop.abort();
    process.stderr.write('\nStopping after the item being written (Ctrl-C again to stop at once)...\n');
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  try {
    const caller = await importingUser(db.prisma, values.as);
    const run = {
      ctx: serviceContext(config, { db: db.prisma, caller }),
      dryRun: values['dry-run'],
      // PostgreSQL overlaps the round trips of a few writers; PGlite runs one statement at a time.
      concurrency: config.databaseUrl ? IMPORT_CONCURRENCY : 1,
      images: imageImport(values['keep-image-urls'], config),
    };
    const progress = terminalProgress();
    const summary =
      kind === 'tec'
        ? await importTec(
            run,
            {
              base: location,
              user: values.user,
              appPassword: values['app-password'] ?? process.env.TEC_APP_PASSWORD,
              fetch: { allowPrivate: privateOf(values['allow-private'], location) },
              limits,
            },
            progress,
            stop.signal,
          )
        : await importIcs(
            run,
            await readIcs(location, {
              allowPrivate: privateOf(values['allow-private'], location),
              onRetry: (line) => {
                progress.log(line);
              },
              signal: stop.signal,
            }),
            progress,
            stop.signal,
            limits,
          );
    process.stdout.write(`${summaryLines(summary, run.dryRun).join('\n')}\n`);
    return exitStatus(summary);
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    await db.close();
  }
}

/** The account named by --as, else the first administrator; it must be able to write events. */
async function importingUser(prisma: import('../src/db/client.js').PrismaClient, login: string | undefined) {
  const user = login
    ? await prisma.user.findUnique({ where: { login } })
    : await prisma.user.findFirst({ where: { role: 'administrator' }, orderBy: { id: 'asc' } });
  if (!user) {
    throw new UsageError(
      login
        ? `There is no account "${login}" here.`
        : 'There is no administrator here to import as: create one with `npm run users -- create <login> --role administrator`, or name an account with --as.',
    );
  }
  if (!isRole(user.role)) throw new UsageError(`The account "${user.login}" has an unknown role.`);
  const caller = { id: user.id, login: user.login, role: user.role };
  // Everything an import may create, as the services would let this account create it.
  const needed: Capability[] = [
    'create events',
    'create venues',
    'create organizers',
    'manage categories',
    'manage tags',
  ];
  const refused = needed.filter((capability) => !may(caller, capability));
  if (refused.length) {
    throw new UsageError(
      `The account "${user.login}" (${user.role}) may not ${refused.join(', ')}: name another with --as.`,
    );
  }
  return caller;
}

class UsageError extends Error {}

/** `--allow-private`: the source's own origin alone may be private (lib/guarded-fetch.ts). */
function privateOf(allowed: boolean, location: string): false | { origin: string } {
  return allowed && URL.canParse(location) && { origin: new URL(location).origin };
}

/** Writers at once on PostgreSQL: scripts/bench/import.ts measured 1, 2, 4 and 8. */
const IMPORT_CONCURRENCY = 4;

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (err: unknown) => {
    if (err instanceof Stopped) {
      process.stderr.write('Stopped while the file was read; nothing was written.\n');
      process.exit(130);
    }
    const known =
      err instanceof UsageError ||
      err instanceof SourceError ||
      err instanceof ConfigError ||
      err instanceof DataDirLockedError;
    process.stderr.write(`${known ? err.message : ((err as Error).stack ?? String(err))}\n`);
    process.exit(1);
  },
);
