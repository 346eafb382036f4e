// `npm run users -- <command>`: manage accounts and application passwords in the database the
// service uses (DATABASE_URL, else the PGlite directory DATA_DIR). PGlite admits one process at a
// time: while the service runs on it, this command refuses, naming the service's process.
import { randomBytes } from 'node:crypto';
import { parseArgs } from 'node:util';
import * as accounts from '../src/auth/accounts.js';
import { displayAppPassword } from '../src/auth/secrets.js';
import { loadConfig } from '../src/config.js';
import { ConfigError } from '../src/config/read.js';
import { openDatabase, type PrismaClient } from '../src/db/client.js';
import { DataDirLockedError } from '../src/db/data-dir-lock.js';

const USAGE = `Usage: npm run users -- <command>

  list
  create <login> [--role R] [--email E] [--name "Display Name"] [--password P] [--rate-limits L]
      roles: administrator, editor, author, contributor, subscriber (default subscriber);
      without --password (or USER_PASSWORD in the environment) a random one is made and printed once;
      --rate-limits exempt: the general rate limits never count the account (an integration of your
      own), counted (the default) as everyone else
  set <login> [--role R] [--email E] [--name N] [--password P] [--rate-limits exempt|counted]
  delete <login>
  app-password add <login> <name>      prints the new application password once
  app-password list <login>
  app-password revoke <login> <uuid|name>
`;

const OPTIONS = {
  role: { type: 'string' },
  email: { type: 'string' },
  name: { type: 'string' },
  password: { type: 'string' },
  'rate-limits': { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const;

const readArgs = (argv: string[]) => parseArgs({ args: argv, allowPositionals: true, options: OPTIONS });
type Options = ReturnType<typeof readArgs>['values'];
/** A command, given the arguments after its name. */
type Command = (prisma: PrismaClient, args: string[], options: Options) => Promise<void>;

async function main(argv: string[]): Promise<number> {
  const { values, positionals } = readArgs(argv);
  const [command, ...rest] = positionals;
  if (values.help || !command) {
    process.stdout.write(USAGE);
    return command || values.help ? 0 : 2;
  }
  const config = loadConfig();
  const db = await openDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir });
  try {
    const run = COMMANDS.get(`${command} ${command === 'app-password' ? rest.shift() : ''}`.trim());
    if (!run) {
      process.stderr.write(`Unknown command "${positionals.join(' ')}".\n\n${USAGE}`);
      return 2;
    }
    await run(db.prisma, rest, values);
    return 0;
  } finally {
    await db.close();
  }
}

const createCommand: Command = async (prisma, [login], options) => {
  const given = options.password ?? process.env.USER_PASSWORD;
  const password = given ?? randomBytes(15).toString('base64url');
  const generated = given === undefined ? password : undefined;
  const user = await accounts.createUser(prisma, {
    login: required(login, 'login'),
    password,
    role: options.role as never,
    email: options.email,
    displayName: options.name,
    rateLimitExempt: rateLimitExempt(options),
  });
  console.log(
    `Created ${user.role} "${user.login}" (ID ${user.id}${user.rateLimitExempt ? ', exempt from rate limits' : ''}).`,
  );
  if (generated) console.log(`Password (shown once): ${generated}`);
};

const setCommand: Command = async (prisma, [login], options) => {
  const user = await accounts.updateUser(prisma, required(login, 'login'), {
    role: options.role,
    email: options.email,
    displayName: options.name,
    password: options.password,
    rateLimitExempt: rateLimitExempt(options),
  });
  const limits = user.rateLimitExempt ? 'exempt from rate limits' : 'counted by rate limits';
  console.log(`Updated "${user.login}": ${user.role}, ${user.email || 'no e-mail'}, ${limits}.`);
};

const deleteCommand: Command = async (prisma, [login]) => {
  await accounts.deleteUser(prisma, required(login, 'login'));
  console.log(`Deleted "${login}"; their items keep existing without an author.`);
};

const addAppPasswordCommand: Command = async (prisma, [login, name]) => {
  const issued = await accounts.issueAppPassword(prisma, required(login, 'login'), required(name, 'name'));
  console.log(
    `Application password "${issued.name}" (${issued.uuid}), shown once:\n\n  ${displayAppPassword(issued.password)}\n`,
  );
  console.log('Use it with HTTP Basic (login and this password) or as "Authorization: Bearer <password>".');
};

const revokeAppPasswordCommand: Command = async (prisma, [login, which]) => {
  const count = await accounts.revokeAppPassword(prisma, required(login, 'login'), required(which, 'uuid or name'));
  console.log(`Revoked ${count} application password(s).`);
};

/** The commands by name (`app-password` ones with their subcommand), as USAGE lists them. */
const COMMANDS = new Map<string, Command>([
  [
    'list',
    async (prisma) => {
      console.table(await accounts.listUsers(prisma));
    },
  ],
  ['create', createCommand],
  ['set', setCommand],
  ['delete', deleteCommand],
  ['app-password add', addAppPasswordCommand],
  [
    'app-password list',
    async (prisma, [login]) => {
      console.table(await accounts.listAppPasswords(prisma, required(login, 'login')));
    },
  ],
  ['app-password revoke', revokeAppPasswordCommand],
]);

/** --rate-limits: exempt or counted; undefined when not given. */
function rateLimitExempt(options: Options): boolean | undefined {
  const value = options['rate-limits'];
  if (value === undefined) return undefined;
  if (value !== 'exempt' && value !== 'counted')
    throw new accounts.AccountError(`--rate-limits must be exempt or counted, got "${value}"`);
  return value === 'exempt';
}

function required(value: string | undefined, what: string): string {
  if (!value) throw new accounts.AccountError(`missing ${what}`);
  return value;
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (err: unknown) => {
    // A command line parseArgs cannot read (an option without its value, an unknown one): what is
    // wrong and how it goes, as for an unknown command.
    if ((err as { code?: string }).code?.startsWith('ERR_PARSE_ARGS_')) {
      process.stderr.write(`users: ${(err as Error).message}\n\n${USAGE}`);
      process.exit(2);
    }
    const known =
      err instanceof accounts.AccountError || err instanceof ConfigError || err instanceof DataDirLockedError;
    console.error(known ? `users: ${err.message}` : err);
    process.exit(1);
  },
);
