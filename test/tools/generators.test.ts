// Clients generated from the service's own document by five generators no one here wrote, as a third
// party would: each generator reads the document the live service serves at /doc, a short typed
// program (clients/<generator>.ts) is type-checked with what it wrote under --strict, and then run
// against the service: list, create with an application password, a 404 and a 400. The programs also
// assert, as types, that fields the document means as strings (an event's `website` and `url`, an
// organizer's `email`) come out as strings, not `unknown` or `any` (issue 34).
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Outcome } from './clients/checks.js';
import { EVENT, ORGANIZER } from './clients/checks.js';
import { databaseKinds } from '../setup/databases.js';
import { startServer, type TestServer } from '../setup/server.js';

const run = promisify(execFile);
const ROOT = path.resolve(import.meta.dirname, '../..');

/**
 * The script of a package's command, read from its package.json: node_modules/.bin is no guide, as
 * two packages may claim one name there (openapi-typescript-codegen's and Redocly CLI's `openapi`).
 */
function bin(pkg: string, command: string): string {
  const directory = path.join(ROOT, 'node_modules', pkg);
  const manifest = JSON.parse(fs.readFileSync(path.join(directory, 'package.json'), 'utf8')) as {
    bin: string | Record<string, string>;
  };
  const script = typeof manifest.bin === 'string' ? manifest.bin : manifest.bin[command];
  if (!script) throw new Error(`${pkg} has no command ${command}`);
  return path.join(directory, script);
}
const CLIENTS = path.join(import.meta.dirname, 'clients');

interface Generator {
  name: string;
  /** The program's files in clients/ besides checks.ts; the first is the program. */
  files: string[];
  /** The commands (package, command, arguments) that write the client into `generated/` of the current directory. */
  commands(doc: string, dir: string): [string, string, string[]][];
  /** Whether the client tells the status of answers that succeed. */
  tellsSuccessStatus: boolean;
}

const GENERATORS: Generator[] = [
  {
    name: 'openapi-typescript',
    files: ['openapi-typescript.ts'],
    // Written as .ts rather than .d.ts so that the type check (skipLibCheck) covers it too.
    commands: (doc) => [['openapi-typescript', 'openapi-typescript', [doc, '-o', 'generated/api.ts']]],
    tellsSuccessStatus: true,
  },
  {
    name: '@hey-api/openapi-ts',
    files: ['hey-api.ts'],
    commands: (doc) => [
      [
        '@hey-api/openapi-ts',
        'openapi-ts',
        ['-i', doc, '-o', 'generated', '-c', '@hey-api/client-fetch', '--no-log-file'],
      ],
    ],
    tellsSuccessStatus: true,
  },
  {
    name: 'orval',
    files: ['orval.ts', 'orval-fetch.ts'],
    commands: (doc, dir) => {
      // orval takes a custom fetch only from a configuration file.
      const config = {
        calendar: {
          input: { target: doc },
          output: {
            target: 'generated/api.ts',
            client: 'fetch',
            override: { mutator: { path: './orval-fetch.ts', name: 'customFetch' } },
          },
        },
      };
      fs.writeFileSync(path.join(dir, 'orval.config.cjs'), `module.exports = ${JSON.stringify(config)};\n`);
      return [['orval', 'orval', ['--config', 'orval.config.cjs']]];
    },
    tellsSuccessStatus: true,
  },
  {
    name: 'swagger-typescript-api',
    files: ['swagger-typescript-api.ts'],
    // Its default HTTP client is fetch (in 13.13, `--http-client fetch` writes the axios client).
    commands: (doc) => [
      [
        'swagger-typescript-api',
        'swagger-typescript-api',
        ['generate', '-p', doc, '-o', 'generated', '-n', 'api.ts', '--silent'],
      ],
    ],
    tellsSuccessStatus: true,
  },
  {
    name: 'openapi-typescript-codegen',
    files: ['openapi-typescript-codegen.ts'],
    commands: (doc) => [
      [
        'openapi-typescript-codegen',
        'openapi',
        ['--input', doc, '--output', 'generated', '--client', 'fetch', '--useOptions'],
      ],
    ],
    tellsSuccessStatus: false,
  },
];

/** What a third party's project would compile generated clients with. */
const TSCONFIG = {
  compilerOptions: {
    target: 'ES2022',
    module: 'ESNext',
    moduleResolution: 'Bundler',
    lib: ['ES2023', 'DOM', 'DOM.Iterable'],
    types: ['node'],
    strict: true,
    noEmit: true,
    skipLibCheck: true,
    esModuleInterop: true,
  },
  include: ['*.ts', 'generated/**/*.ts'],
};

/** What each generator's run came to, printed at the end. */
const summary: Record<string, { compileErrors: string[]; runs: Record<string, Outcome | string> }> = {};

async function command(file: string, args: string[], cwd: string, env: Record<string, string> = {}) {
  try {
    const { stdout, stderr } = await run(file, args, {
      cwd,
      env: { ...process.env, NO_COLOR: '1', FORCE_COLOR: '0', ...env },
      timeout: 90_000,
      maxBuffer: 64 * 1024 * 1024,
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code?: number | string; stdout?: string; stderr?: string; message: string };
    return { code: failed.code ?? 1, stdout: failed.stdout ?? '', stderr: failed.stderr || failed.message };
  }
}

describe('clients generated from the served document', () => {
  const servers: { kind: string; server: TestServer }[] = [];
  let work: string;
  let doc: string;

  beforeAll(async () => {
    for (const kind of databaseKinds) servers.push({ kind, server: await startServer(kind) });
    work = fs.mkdtempSync(path.join(os.tmpdir(), 'calendar-generators-'));
    // The programs and generated clients import packages (openapi-fetch, typescript's lib) from here.
    fs.symlinkSync(path.join(ROOT, 'node_modules'), path.join(work, 'node_modules'), 'dir');
    const response = await fetch(`${servers[0].server.base}/doc`, { headers: { accept: 'application/json' } });
    expect(response.status).toBe(200);
    doc = path.join(work, 'openapi.json');
    fs.writeFileSync(doc, JSON.stringify(await response.json(), null, 2));
  });

  afterAll(async () => {
    fs.mkdirSync(path.join(ROOT, 'test-artifacts'), { recursive: true });
    fs.writeFileSync(path.join(ROOT, 'test-artifacts', 'generators.json'), JSON.stringify(summary, null, 2));
    console.log(
      Object.entries(summary)
        .map(([name, { compileErrors, runs }]) =>
          [
            `${name}: ${compileErrors.length} type errors`,
            ...compileErrors.slice(0, 5).map((line) => `    ${line.slice(0, 200)}`),
            ...Object.entries(runs).map(
              ([kind, run]) => `  on ${kind}: ${(typeof run === 'string' ? run : JSON.stringify(run)).slice(0, 400)}`,
            ),
          ].join('\n'),
        )
        .join('\n'),
    );
    for (const { server } of servers) await server.close();
    if (work) fs.rmSync(work, { recursive: true, force: true });
  });

  for (const generator of GENERATORS) {
    it(`${generator.name}: generates, type-checks under --strict and runs against the service`, async () => {
      const result: (typeof summary)[string] = { compileErrors: [], runs: {} };
      summary[generator.name] = result;
      const dir = path.join(work, generator.name.replace(/[@/]/g, '_'));
      fs.mkdirSync(dir);
      fs.writeFileSync(path.join(dir, 'package.json'), '{ "type": "module" }\n');
      fs.writeFileSync(path.join(dir, 'tsconfig.json'), JSON.stringify(TSCONFIG, null, 2));
      for (const file of ['checks.ts', ...generator.files])
        fs.copyFileSync(path.join(CLIENTS, file), path.join(dir, file));

      for (const [pkg, name, args] of generator.commands(doc, dir)) {
        const generated = await command(process.execPath, [bin(pkg, name), ...args], dir);
        expect(generated.code, `${name} ${args.join(' ')}\n${generated.stdout}\n${generated.stderr}`).toBe(0);
      }
      expect(fs.readdirSync(path.join(dir, 'generated')).length).toBeGreaterThan(0);

      const compiled = await command(
        process.execPath,
        [
          path.join(ROOT, 'node_modules/typescript/bin/tsc'),
          '-p',
          'tsconfig.json',
          '--strict',
          '--noEmit',
          '--pretty',
          'false',
        ],
        dir,
      );
      result.compileErrors = `${compiled.stdout}${compiled.stderr}`
        .split('\n')
        .filter((line) => /error TS\d+/.test(line))
        .map((line) => line.slice(0, 400));
      // Soft, so that the program still runs and the failure says what it does too.
      expect.soft(result.compileErrors, `${generator.name}: type errors under --strict`).toEqual([]);
      expect.soft(compiled.code, `${generator.name}: tsc ended badly:\n${compiled.stderr.slice(0, 1500)}`).toBe(0);

      const program = generator.files[0];
      for (const { kind, server } of servers) {
        const user = server.users.author;
        const ran = await command(process.execPath, [bin('tsx', 'tsx'), program], dir, {
          CALENDAR_URL: server.base,
          CALENDAR_LOGIN: user.login,
          CALENDAR_APP_PASSWORD: user.appPassword,
        });
        const line = ran.stdout.trim().split('\n').at(-1) ?? '';
        if (ran.code !== 0 || !line.startsWith('{')) {
          // What it threw: its first lines and the error body, if the client printed one.
          const thrown = ran.stderr.replace(/\n\s*\[Symbol\(state\)\][^]*$/, '').slice(0, 1500);
          result.runs[kind] = `exit ${ran.code}: ${thrown}`;
          expect
            .soft(
              `exit ${ran.code}, ${line ? 'a last line that is no outcome' : 'no output'}`,
              `${generator.name} on ${kind}:\n${ran.stdout.slice(0, 1500)}\n${thrown}`,
            )
            .toBe('exit 0 with an outcome');
          continue;
        }
        const outcome = JSON.parse(line) as Outcome;
        result.runs[kind] = outcome;
        const success = (status: number) => (generator.tellsSuccessStatus ? status : null);
        expect.soft(outcome, `${generator.name} on ${kind}`).toEqual({
          organizer: { status: success(201), id: expect.any(Number), email: ORGANIZER.email },
          created: {
            status: success(201),
            id: expect.any(Number),
            website: EVENT.website,
            url: expect.stringMatching(/^https?:\/\//),
            organizerEmails: [ORGANIZER.email],
          },
          listed: {
            status: success(200),
            ids: expect.arrayContaining([outcome.created.id]),
            total: expect.any(Number),
          },
          read: { status: success(200), title: EVENT.title, website: EVENT.website },
          notFound: { status: 404, code: 'rest-event-not-found' },
          badParam: { status: 400, code: 'rest_invalid_param', params: ['per_page'] },
        });
      }
    }, 240_000);
  }
});
