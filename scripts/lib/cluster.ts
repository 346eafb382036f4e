// Several instances of the service on one PostgreSQL database behind nginx, on loopback: what
// `npm run cluster` starts and what the benchmark's cluster part measures. Each instance is
// `npm start`'s command on a port of its own; nginx (Debian's package) spreads requests over
// them, keeps connections to them open, and passes a request that failed on one instance to the
// next only when that is safe: reads (GET, HEAD, OPTIONS) on a
// connection error, a timeout, a 502 or a 503; a POST or PATCH only when its connection failed
// (nginx's own rule: once sent, it may have been written already); a PUT or DELETE never.
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import os from 'node:os';
import path from 'node:path';

export const NGINX_HINT =
  'nginx is needed: on Debian or Ubuntu, `apt-get install nginx-light` (or set NGINX to the nginx binary)';

export interface ClusterOptions {
  instances: number;
  /** Where nginx listens (127.0.0.1); 0 for any free port. */
  port: number;
  databaseUrl: string;
  /** Further environment for every instance. */
  env?: Record<string, string>;
  /** Where the instances' output goes: this process's, or nowhere. */
  output?: 'inherit' | 'ignore';
}

export interface Instance {
  readonly port: number;
  readonly url: string;
  /** The running process; undefined while it is down. */
  readonly process: ChildProcess | undefined;
  /** Starts it again on its port, once it has stopped, and waits until it is ready. */
  start(): Promise<void>;
  /** Sends `signal` and waits for the process to end. */
  kill(signal: NodeJS.Signals): Promise<void>;
}

export interface Cluster {
  /** nginx's address, e.g. http://127.0.0.1:8080. */
  url: string;
  instances: Instance[];
  nginx: ChildProcess;
  stop(): Promise<void>;
}

/** The node arguments of `npm start`'s last command (flags and dist/src/server.js). */
export function startArgs(): string[] {
  const start = (JSON.parse(readFileSync('package.json', 'utf8')) as { scripts: { start: string } }).scripts.start;
  return start.replace(/^.*&&/s, '').trim().split(/\s+/).slice(1);
}

export function nginxBinary(): string | undefined {
  const candidates = [process.env.NGINX, '/usr/sbin/nginx', '/usr/local/sbin/nginx', '/usr/bin/nginx'];
  return candidates.find((candidate): candidate is string => Boolean(candidate && existsSync(candidate)));
}

export const freePort = () =>
  new Promise<number>((resolve, reject) => {
    const probe = createServer().listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => {
        resolve(port);
      });
    });
    probe.once('error', reject);
  });

const exited = (child: ChildProcess) =>
  new Promise<void>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) resolve();
    else
      child.once('exit', () => {
        resolve();
      });
  });

/** Waits until `url`/readyz answers 2xx, for a minute at most, failing at once if `child` exits. */
async function untilReady(url: string, child: ChildProcess, what: string) {
  for (let i = 0; i < 600; i++) {
    if (child.exitCode !== null) throw new Error(`${what}: exited with ${child.exitCode}`);
    const ready = await fetch(`${url}/readyz`).then(
      (r) => r.ok,
      () => false,
    );
    if (ready) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`${what}: not ready after a minute`);
}

function instance(port: number, options: ClusterOptions): Instance {
  let child: ChildProcess | undefined;
  const url = `http://127.0.0.1:${port}`;
  return {
    port,
    url,
    get process() {
      return child;
    },
    async start() {
      if (child?.exitCode === null && child.signalCode === null) throw new Error(`${url} is running`);
      const started = spawn(process.execPath, startArgs(), {
        env: {
          ...process.env,
          ...options.env,
          DATABASE_URL: options.databaseUrl,
          HOST: '127.0.0.1',
          PORT: String(port),
          // Client addresses (rate limits, the sign-in throttle) come from nginx's X-Forwarded-For,
          // which nginx sets to the address it saw: one proxy in front, trusted for one hop only.
          TRUST_PROXY: '1',
        },
        stdio: ['ignore', options.output ?? 'inherit', 'inherit'],
      });
      child = started;
      await untilReady(url, started, `instance on port ${port}`);
    },
    async kill(signal) {
      if (!child) return;
      const ended = exited(child);
      child.kill(signal);
      await ended;
    },
  };
}

function nginxConfig(dir: string, port: number, instances: Instance[]): string {
  const servers = instances.map((i) => `    server 127.0.0.1:${i.port} max_fails=1 fail_timeout=2s;`).join('\n');
  return `# Written by scripts/lib/cluster.ts for this run.
worker_processes 1;
pid ${dir}/nginx.pid;
error_log ${dir}/error.log warn;
events { worker_connections 4096; }
http {
  access_log off;
  client_body_temp_path ${dir}/body;
  proxy_temp_path ${dir}/proxy;
  fastcgi_temp_path ${dir}/fastcgi;
  uwsgi_temp_path ${dir}/uwsgi;
  scgi_temp_path ${dir}/scgi;
  # The service refuses bodies over 1 MiB itself, with its own error.
  client_max_body_size 2m;
  upstream calendar {
    least_conn;
${servers}
    keepalive 64;
    # Below the instances' idle timeout (HTTP_KEEP_ALIVE_TIMEOUT_SECONDS, 5 s): nginx must never send
    # a request on a connection the instance is closing.
    keepalive_timeout 4s;
  }
  server {
    listen 127.0.0.1:${port};
    proxy_http_version 1.1;
    proxy_set_header Connection "";
    proxy_set_header Host $http_host;
    # The client's address as nginx saw it, replacing whatever the client sent (TRUST_PROXY=1).
    proxy_set_header X-Forwarded-For $remote_addr;
    proxy_set_header X-Forwarded-Proto $scheme;
    proxy_connect_timeout 1s;
    proxy_read_timeout 60s;
    location / {
      error_page 418 = @once;
      error_page 419 = @never;
      if ($request_method ~ ^(POST|PATCH)$) { return 418; }
      if ($request_method ~ ^(PUT|DELETE)$) { return 419; }
      # Reads go to the next instance on a broken connection, a timeout, a 502 or a 503.
      proxy_pass http://calendar;
      proxy_next_upstream error timeout http_502 http_503;
      proxy_next_upstream_tries 3;
    }
    location @once {
      # nginx itself never passes a POST or PATCH on once it was sent: only when the connection failed.
      proxy_pass http://calendar;
      proxy_next_upstream error timeout;
      proxy_next_upstream_tries 3;
    }
    location @never {
      # nginx deems PUT and DELETE idempotent, but here a PUT may split a series and a repeated DELETE
      # answers 410: never sent twice.
      proxy_pass http://calendar;
      proxy_next_upstream off;
    }
  }
}
`;
}

/** Starts the instances (all at once: the migrations take turns on their advisory lock), then nginx. */
export async function startCluster(options: ClusterOptions): Promise<Cluster> {
  const binary = nginxBinary();
  if (!binary) throw new Error(NGINX_HINT);
  const ports = [];
  for (let i = 0; i < options.instances; i++) ports.push(await freePort());
  const instances = ports.map((port) => instance(port, options));
  const dir = mkdtempSync(path.join(os.tmpdir(), 'calendar-cluster-'));
  const stopInstances = () => Promise.all(instances.map((i) => i.kill('SIGTERM')));
  try {
    await Promise.all(instances.map((i) => i.start()));
  } catch (err) {
    await stopInstances();
    rmSync(dir, { recursive: true, force: true });
    throw err;
  }
  let nginx: ChildProcess | undefined;
  const cleanUp = async () => {
    if (nginx) {
      const ended = exited(nginx);
      nginx.kill('SIGQUIT'); // nginx's graceful stop
      await ended;
    }
    await stopInstances();
    rmSync(dir, { recursive: true, force: true });
  };
  let url: string;
  try {
    const port = options.port || (await freePort());
    for (const temp of ['body', 'proxy', 'fastcgi', 'uwsgi', 'scgi']) mkdirSync(path.join(dir, temp));
    const config = path.join(dir, 'nginx.conf');
    writeFileSync(config, nginxConfig(dir, port, instances));
    const errorLog = path.join(dir, 'error.log');
    execFileSync(binary, ['-t', '-q', '-p', dir, '-e', errorLog, '-c', config], { stdio: 'inherit' });
    const started = spawn(binary, ['-p', dir, '-e', errorLog, '-c', config, '-g', 'daemon off;'], {
      stdio: ['ignore', 'inherit', 'inherit'],
    });
    nginx = started;
    url = `http://127.0.0.1:${port}`;
    await untilReady(url, started, 'nginx');
  } catch (err) {
    await cleanUp();
    throw err;
  }
  const running = nginx;
  return { url, instances, nginx: running, stop: cleanUp };
}
