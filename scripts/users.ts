// `npm run users -- <command>`: manage accounts and application passwords in the database the
// service uses (DATABASE_URL, else the PGlite directory DATA_DIR). PGlite admits one process at a
// time: while the service runs on it, this command refuses, naming the service's process.
import { randomBytes } from 'node:crypto';
import { parseArgs } from 'node:util';
import * as accounts from '../src/auth/accounts.js';
import { displayAppPassword } from '../src/auth/secrets.js';
import { ConfigError, loadConfig } from '../src/config.js';
import { openDatabase } from '../src/db/client.js';
import { DataDirLockedError } from '../src/db/data-dir-lock.js';

const USAGE = `Usage: npm run users -- <command>

  list
  create <login> [--role R] [--email E] [--name "Display Name"] [--password P]
      roles: administrator, editor, author, contributor, subscriber (default subscriber);
      without --password (or USER_PASSWORD in the environment) a random one is made and printed once
  set <login> [--role R] [--email E] [--name N] [--password P]
  delete <login>
  app-password add <login> <name>      prints the new application password once
  app-password list <login>
  app-password revoke <login> <uuid|name>
`;

async function main(argv: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      role: { type: 'string' },
      email: { type: 'string' },
      name: { type: 'string' },
      password: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  const [command, ...rest] = positionals;
  if (values.help || !command) {
    process.stdout.write(USAGE);
    return command || values.help ? 0 : 2;
  }
  const config = loadConfig();
  const db = await openDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir });
  const { prisma } = db;
  try {
    switch (`${command} ${command === 'app-password' ? rest.shift() : ''}`.trim()) {
      case 'list':
        console.table(await accounts.listUsers(prisma));
        return 0;
      case 'create': {
        const given = values.password ?? process.env.USER_PASSWORD;
        const password = given ?? randomBytes(15).toString('base64url');
        const generated = given === undefined ? password : undefined;
        const user = await accounts.createUser(prisma, {
          login: required(rest[0], 'login'),
          password,
          role: values.role as never,
          email: values.email,
          displayName: values.name,
        });
        console.log(`Created ${user.role} "${user.login}" (ID ${user.id}).`);
        if (generated) console.log(`Password (shown once): ${generated}`);
        return 0;
      }
      case 'set': {
        const user = await accounts.updateUser(prisma, required(rest[0], 'login'), {
          role: values.role,
          email: values.email,
          displayName: values.name,
          password: values.password,
        });
        console.log(`Updated "${user.login}": ${user.role}, ${user.email || 'no e-mail'}.`);
        return 0;
      }
      case 'delete':
        await accounts.deleteUser(prisma, required(rest[0], 'login'));
        console.log(`Deleted "${rest[0]}"; their items keep existing without an author.`);
        return 0;
      case 'app-password add': {
        const issued = await accounts.issueAppPassword(prisma, required(rest[0], 'login'), required(rest[1], 'name'));
        console.log(
          `Application password "${issued.name}" (${issued.uuid}), shown once:\n\n  ${displayAppPassword(issued.password)}\n`,
        );
        console.log('Use it with HTTP Basic (login and this password) or as "Authorization: Bearer <password>".');
        return 0;
      }
      case 'app-password list':
        console.table(await accounts.listAppPasswords(prisma, required(rest[0], 'login')));
        return 0;
      case 'app-password revoke': {
        const count = await accounts.revokeAppPassword(
          prisma,
          required(rest[0], 'login'),
          required(rest[1], 'uuid or name'),
        );
        console.log(`Revoked ${count} application password(s).`);
        return 0;
      }
      default:
        process.stderr.write(`Unknown command "${positionals.join(' ')}".\n\n${USAGE}`);
        return 2;
    }
  } finally {
    await db.close();
  }
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
