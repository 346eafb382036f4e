// Real CalDAV clients as processes, for tests that check a server the way people's programs use it:
// Radicale (a reference server), vdirsyncer (syncs a collection to a folder of .ics files) and khal
// (reads that folder). Every process gets a temp HOME and XDG folders, so nothing reads or writes the
// user's own configuration, and a fixed zone and locale, so that what khal prints is the same anywhere.
import { execFile, spawn } from 'node:child_process';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { freePort } from './process.js';

export interface RunResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** True when the three programs are on PATH (Debian: apt-get install vdirsyncer khal radicale). */
export function davClientsInstalled(): boolean {
  const dirs = (process.env.PATH ?? '').split(path.delimiter).filter(Boolean);
  const onPath = (name: string) =>
    dirs.some((dir) => {
      try {
        fs.accessSync(path.join(dir, name), fs.constants.X_OK);
        return true;
      } catch {
        return false;
      }
    });
  return ['vdirsyncer', 'khal', 'radicale'].every(onPath);
}

const tempDir = (prefix: string) => fsp.mkdtemp(path.join(os.tmpdir(), `dav-${prefix}-`));

/** An environment that keeps the programs out of the user's home and fixes zone and locale. */
async function isolatedEnv(home: string): Promise<NodeJS.ProcessEnv> {
  const xdg = {
    XDG_CONFIG_HOME: path.join(home, '.config'),
    XDG_DATA_HOME: path.join(home, '.local', 'share'),
    XDG_CACHE_HOME: path.join(home, '.cache'),
  };
  await Promise.all(Object.values(xdg).map((dir) => fsp.mkdir(dir, { recursive: true })));
  return { PATH: process.env.PATH, HOME: home, ...xdg, TZ: 'UTC', LANG: 'C.UTF-8', LC_ALL: 'C.UTF-8' };
}

/**
 * Runs a program to its end and resolves with its exit code and output, also when the code is not 0
 * (a sync that reports a conflict is a result, not an error). `input` is written to its stdin.
 */
export function run(
  command: string,
  args: string[],
  options: { env: NodeJS.ProcessEnv; input?: string; timeoutMs?: number },
): Promise<RunResult> {
  return new Promise((resolve) => {
    const child = execFile(
      command,
      args,
      { env: options.env, timeout: options.timeoutMs ?? 30_000, maxBuffer: 4 * 1024 * 1024 },
      (error, stdout, stderr) => {
        // A timeout kills the child: there is no exit code then, and `killed` says why.
        let code = 0;
        if (error) code = typeof error.code === 'number' ? error.code : -1;
        resolve({ code, stdout, stderr: error?.killed ? `${stderr}\n(killed after timeout)` : stderr });
      },
    );
    child.stdin?.end(options.input ?? '');
  });
}

export const basicAuth = (user: string, password: string) =>
  `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;

export interface Radicale {
  url: string;
  user: string;
  password: string;
  calendarUrl: string;
  close(): Promise<void>;
}

/** Radicale on a free port with one user (htpasswd, plain) and one empty calendar, `/<user>/events/`. */
export async function startRadicale(): Promise<Radicale> {
  const dir = await tempDir('radicale');
  const user = 'alice';
  const password = 'secret-alice';
  const port = await freePort();
  await fsp.writeFile(path.join(dir, 'users'), `${user}:${password}\n`);
  await fsp.writeFile(
    path.join(dir, 'config'),
    [
      '[server]',
      `hosts = 127.0.0.1:${port}`,
      '[auth]',
      'type = htpasswd',
      `htpasswd_filename = ${path.join(dir, 'users')}`,
      'htpasswd_encryption = plain',
      '[rights]',
      'type = owner_only',
      '[storage]',
      `filesystem_folder = ${path.join(dir, 'collections')}`,
      '[web]',
      'type = none',
      '[logging]',
      'level = warning',
      '',
    ].join('\n'),
  );
  const child = spawn('radicale', ['--config', path.join(dir, 'config')], {
    env: await isolatedEnv(dir),
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  // Kept for the error message when it does not start (a bad config, a taken port).
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => {
    stderr = (stderr + chunk.toString()).slice(-4000);
  });
  const exited = new Promise<void>((resolve) => {
    child.once('exit', () => {
      resolve();
    });
  });
  const close = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 3000))]);
      child.kill('SIGKILL');
    }
    await fsp.rm(dir, { recursive: true, force: true });
  };
  const url = `http://127.0.0.1:${port}`;
  try {
    await waitForAnswer(url, () => child.exitCode !== null);
    const calendarUrl = `${url}/${user}/events/`;
    const made = await fetch(calendarUrl, {
      method: 'MKCALENDAR',
      headers: { authorization: basicAuth(user, password) },
    });
    if (made.status !== 201) throw new Error(`MKCALENDAR ${calendarUrl} answered ${made.status}`);
    return { url, user, password, calendarUrl, close };
  } catch (error) {
    await close();
    throw new Error(`Radicale did not start: ${error instanceof Error ? error.message : String(error)}\n${stderr}`, {
      cause: error,
    });
  }
}

async function waitForAnswer(url: string, gaveUp: () => boolean): Promise<void> {
  for (let i = 0; i < 150 && !gaveUp(); i++) {
    const answered = await fetch(`${url}/.well-known/caldav`, { redirect: 'manual' }).then(
      () => true,
      () => false,
    );
    if (answered) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`${url} did not answer`);
}

export type ConflictResolution = 'a wins' | 'b wins';

export interface Vdir {
  /** The pair's local folder; collections are its subfolders. */
  root: string;
  /** The synced collection's folder of .ics files (after `discover` when no collection was named). */
  readonly dir: string;
  /** Side a is the CalDAV server, side b the folder: 'a wins' keeps the server's version. */
  setConflictResolution(value: ConflictResolution | undefined): Promise<void>;
  discover(): Promise<RunResult>;
  sync(): Promise<RunResult>;
  files(): Promise<Map<string, string>>;
  write(name: string, icsText: string): Promise<void>;
  remove(name: string): Promise<void>;
  close(): Promise<void>;
}

export interface VdirOptions {
  davUrl: string;
  user: string;
  password: string;
  collection?: string;
  conflictResolution?: ConflictResolution;
}

const PAIR = 'cal';

/** A vdirsyncer pair between `davUrl` (found by discovery: well-known, principal, home set) and a temp folder. */
export async function vdirsyncerPair(opts: VdirOptions): Promise<Vdir> {
  const home = await tempDir('vdirsyncer');
  const root = path.join(home, 'vdir');
  const config = path.join(home, 'config');
  await fsp.mkdir(root);
  const env = await isolatedEnv(home);
  let conflictResolution = opts.conflictResolution;
  const toml = (value: string) => JSON.stringify(value);
  const writeConfig = () =>
    fsp.writeFile(
      config,
      [
        '[general]',
        `status_path = ${toml(path.join(home, 'status'))}`,
        `[pair ${PAIR}]`,
        'a = "remote"',
        'b = "local"',
        `collections = ${opts.collection ? `[${toml(opts.collection)}]` : '["from a", "from b"]'}`,
        conflictResolution ? `conflict_resolution = ${toml(conflictResolution)}` : '',
        '[storage remote]',
        'type = "caldav"',
        `url = ${toml(opts.davUrl)}`,
        `username = ${toml(opts.user)}`,
        `password = ${toml(opts.password)}`,
        '[storage local]',
        'type = "filesystem"',
        `path = ${toml(root)}`,
        'fileext = ".ics"',
        '',
      ].join('\n'),
    );
  await writeConfig();
  const vdirsyncer = (...args: string[]) =>
    // discover asks before it creates a collection on a side; the answer is always yes.
    run('vdirsyncer', ['-c', config, ...args], { env, input: 'y\n'.repeat(20), timeoutMs: 60_000 });
  const dir = () => {
    if (opts.collection) return path.join(root, opts.collection);
    const found = fs.readdirSync(root).sort();
    if (!found[0]) throw new Error(`no collection in ${root}: run discover first`);
    return path.join(root, found[0]);
  };
  return {
    root,
    get dir() {
      return dir();
    },
    async setConflictResolution(value) {
      conflictResolution = value;
      await writeConfig();
    },
    discover: () => vdirsyncer('discover', PAIR),
    sync: () => vdirsyncer('sync', PAIR),
    async files() {
      const names = (await fsp.readdir(dir())).filter((name) => name.endsWith('.ics')).sort();
      const texts = await Promise.all(names.map((name) => fsp.readFile(path.join(dir(), name), 'utf8')));
      return new Map(names.map((name, i) => [name, texts[i] ?? '']));
    },
    async write(name, icsText) {
      // Through a rename: vdirsyncer tells a changed file by mtime and inode, and a rewrite in the same
      // clock tick would keep both.
      const temp = path.join(home, `${name}.tmp`);
      await fsp.writeFile(temp, icsText);
      await fsp.rename(temp, path.join(dir(), name));
    },
    remove: (name) => fsp.rm(path.join(dir(), name)),
    close: () => fsp.rm(home, { recursive: true, force: true }),
  };
}

/** What `khal list <from> <to>` prints for a folder of .ics files: one `<start> <title>` line per occurrence. */
export async function khalList(
  vdirFolder: string,
  range: { from: string; to: string },
  format = '{start} {title}',
): Promise<string> {
  const home = await tempDir('khal');
  try {
    const config = path.join(home, 'config');
    await fsp.writeFile(
      config,
      [
        '[calendars]',
        '[[synced]]',
        `path = ${vdirFolder}`,
        'type = calendar',
        '[locale]',
        'timeformat = %H:%M',
        'dateformat = %Y-%m-%d',
        'longdateformat = %Y-%m-%d',
        'datetimeformat = %Y-%m-%d %H:%M',
        'longdatetimeformat = %Y-%m-%d %H:%M',
        'firstweekday = 0',
        'local_timezone = UTC',
        'default_timezone = UTC',
        '[sqlite]',
        `path = ${path.join(home, 'khal.db')}`,
        '',
      ].join('\n'),
    );
    const listed = await run(
      'khal',
      ['-c', config, 'list', '--format', format, '--day-format', '', range.from, range.to],
      { env: await isolatedEnv(home), timeoutMs: 30_000 },
    );
    if (listed.code !== 0) throw new Error(`khal list failed (${listed.code}): ${listed.stderr}`);
    // The empty day format still prints an empty line per day.
    return listed.stdout
      .split('\n')
      .filter((line) => line.trim() !== '')
      .join('\n');
  } finally {
    await fsp.rm(home, { recursive: true, force: true });
  }
}

/** One request a client sent through the recording proxy, as much as tells what the client relies on. */
export interface DavRequest {
  method: string;
  path: string;
  status: number;
  depth?: string;
  ifMatch?: string;
  ifNoneMatch?: string;
  contentType?: string;
  /** REPORT and PROPFIND: the body's root element and the other elements it names (the props asked for). */
  xml?: { root: string; elements: string[] };
  etag?: string;
  location?: string;
}

export interface RecordingProxy {
  url: string;
  /** The requests since the last call. */
  take(): DavRequest[];
  close(): Promise<void>;
}

const localNames = (xml: string) => [...xml.matchAll(/<(?![?!/])(?:[\w-]+:)?([\w-]+)/g)].map((match) => match[1] ?? '');

/**
 * An HTTP proxy that records what a client sends to `target` (an origin). It passes the client's own
 * Host on, so a server that writes absolute URLs writes the proxy's, and clients stay on the proxy.
 */
export async function startRecordingProxy(target: string): Promise<RecordingProxy> {
  const upstream = new URL(target);
  let log: DavRequest[] = [];
  const header = (value: string | string[] | undefined) => (Array.isArray(value) ? value.join(', ') : value);
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      const entry: DavRequest = {
        method: req.method ?? '',
        path: req.url ?? '',
        status: 0,
        depth: header(req.headers.depth),
        ifMatch: header(req.headers['if-match']),
        ifNoneMatch: header(req.headers['if-none-match']),
        contentType: header(req.headers['content-type']),
      };
      if ((entry.contentType ?? '').includes('xml') || ['REPORT', 'PROPFIND'].includes(entry.method)) {
        const names = localNames(body.toString('utf8'));
        if (names[0])
          entry.xml = { root: names[0], elements: [...new Set(names.slice(1))].filter((n) => n !== 'prop') };
      }
      log.push(entry);
      const forward = http.request(
        { host: upstream.hostname, port: upstream.port, method: req.method, path: req.url, headers: req.headers },
        (answer) => {
          entry.status = answer.statusCode ?? 0;
          entry.etag = header(answer.headers.etag);
          const location = header(answer.headers.location);
          if (location) {
            entry.location = location;
            answer.headers.location = location.replace(upstream.origin, `http://${req.headers.host ?? ''}`);
          }
          res.writeHead(entry.status, answer.headers);
          answer.pipe(res);
        },
      );
      forward.on('error', (error) => {
        entry.status = 502;
        res.writeHead(502).end(error.message);
      });
      forward.end(body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}`,
    take() {
      const taken = log;
      log = [];
      return taken;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => {
          resolve();
        });
      }),
  };
}
