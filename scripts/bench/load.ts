// Driving a server process with autocannon over loopback, and watching its resident memory while
// it works.
import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import autocannon from 'autocannon';

export interface Figures {
  requestsPerSecond: number;
  p50: number;
  p99: number;
  /** Highest resident set size of the server process seen during the run, in MB. */
  peakRssMb: number | undefined;
  /** Answers that were not the expected status, and connection errors or timeouts. */
  failures: number;
  /** What the failures were: unexpected statuses, errors and timeouts, with their counts. */
  failureKinds: Record<string, number>;
  requests: number;
}

export interface Scenario {
  name: string;
  method?: 'GET' | 'POST';
  /** The path and query of the next request; called once per request. */
  path: () => string;
  body?: () => string | Buffer;
  headers?: Record<string, string>;
  /** The status every answer must have. */
  expect: number;
}

export interface Server {
  url: string;
  process: ChildProcess;
  /** The processes whose memory counts (the instances behind a balancer); by default `process`. */
  pids?: () => (number | undefined)[];
  stop(): Promise<void>;
}

export const freePort = () =>
  new Promise<number>((resolve) => {
    const probe = createServer().listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => {
        resolve(port);
      });
    });
  });

/** Starts `node <args>` with `env` and waits until `readyPath` answers 2xx. */
export async function startServer(args: string[], env: Record<string, string>, readyPath: string): Promise<Server> {
  const script = args.join(' ');
  const port = await freePort();
  const child = spawn(process.execPath, args, {
    env: { ...process.env, ...env, PORT: String(port) },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const url = `http://127.0.0.1:${port}`;
  const stop = () =>
    new Promise<void>((resolve) => {
      if (child.exitCode !== null) {
        resolve();
        return;
      }
      child.once('exit', () => {
        resolve();
      });
      child.kill('SIGTERM');
    });
  for (let i = 0; i < 300; i++) {
    if (child.exitCode !== null) throw new Error(`${script} exited with ${child.exitCode} before it was ready`);
    if (
      await fetch(`${url}${readyPath}`).then(
        (r) => r.ok,
        () => false,
      )
    )
      return { url, process: child, stop };
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  await stop();
  throw new Error(`${script} did not become ready`);
}

/** Resident memory of a process in MB, from /proc (Linux); undefined elsewhere. */
export function rssMb(pid: number): number | undefined {
  try {
    const kb = /VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
    return kb ? Number(kb) / 1024 : undefined;
  } catch {
    return undefined;
  }
}

/**
 * CPU time a process has used so far, user and system, in seconds, from /proc (Linux); 0 elsewhere
 * or once it has ended. /proc counts in ticks of USER_HZ, 100 on Linux whatever the kernel's own rate.
 */
export function cpuSeconds(pid: number): number {
  const { user, system } = cpuTimes(pid);
  return user + system;
}

/** The same, apart: in the process's own code (user) and in the kernel on its behalf (system). */
export function cpuTimes(pid: number): { user: number; system: number } {
  try {
    // The fields after the command's name, which is in brackets and may hold spaces: utime and stime
    // are the 14th and 15th of the line, the 12th and 13th after the name.
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8')
      .replace(/^.*\) /s, '')
      .split(' ');
    return { user: Number(fields[11]) / 100, system: Number(fields[12]) / 100 };
  } catch {
    return { user: 0, system: 0 };
  }
}

/**
 * A short warm-up (JIT, connection pools, plan caches), then the measured run. `warm`: the server
 * has just run this scenario (a later round), so the warm-up is left out.
 */
export async function measure(
  server: Server,
  scenario: Scenario,
  seconds: number,
  connections: number,
  warm = false,
): Promise<Figures> {
  if (!warm) await drive(server, scenario, Math.min(2, seconds), connections);
  let peak: number | undefined;
  const sample = () => {
    // The largest process; a pid is undefined if its process never started: nothing to sample.
    for (const pid of server.pids?.() ?? [server.process.pid]) {
      const now = pid === undefined ? undefined : rssMb(pid);
      if (now !== undefined) peak = Math.max(peak ?? 0, now);
    }
  };
  const sampler = setInterval(sample, 20);
  try {
    const result = await drive(server, scenario, seconds, connections);
    sample();
    return { ...result, peakRssMb: peak };
  } finally {
    clearInterval(sampler);
  }
}

/** One autocannon run, no warm-up, no memory watched. */
export async function drive(
  server: Server,
  scenario: Scenario,
  seconds: number,
  connections: number,
): Promise<Omit<Figures, 'peakRssMb'>> {
  const unexpected: Record<number, number> = {}; // by status
  const result = await autocannon({
    url: server.url,
    connections,
    duration: seconds,
    requests: [
      {
        method: scenario.method ?? 'GET',
        headers: { ...(scenario.body ? { 'content-type': 'application/json' } : {}), ...scenario.headers },
        setupRequest: (request) => ({
          ...request,
          path: scenario.path(),
          ...(scenario.body ? { body: scenario.body() } : {}),
        }),
        onResponse: (status) => {
          if (status !== scenario.expect) unexpected[status] = (unexpected[status] ?? 0) + 1;
        },
      },
    ],
  });
  return {
    requestsPerSecond: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    // autocannon counts timeouts among the errors.
    failures: Object.values(unexpected).reduce((a, b) => a + b, 0) + result.errors,
    failureKinds: {
      ...unexpected,
      ...(result.errors > result.timeouts ? { 'connection errors': result.errors - result.timeouts } : {}),
      ...(result.timeouts ? { timeouts: result.timeouts } : {}),
    },
    requests: result.requests.total,
  };
}
