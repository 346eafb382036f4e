// The benchmark's cluster part (`npm run bench -- cluster`): the service behind nginx with 1, 2 and
// 3 instances on one PostgreSQL database (scripts/lib/cluster.ts), and a failover run: three
// instances under a steady load of writes and reads, one killed with SIGKILL a third of the way in
// and started again two thirds in. It counts the requests that failed and why, checks that every
// write acknowledged with 201 is in the database, and that a webhook subscriber got a message for
// every event written (at least once; duplicates counted), whichever instance wrote or sent it.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';
import pg from 'pg';
import { type Cluster, startCluster } from '../lib/cluster.js';
import { measure, type Scenario, type Server } from './load.js';
import { createUser, issueAppPassword } from '../../src/auth/accounts.js';
import { openDatabase } from '../../src/db/client.js';
import { nginxBinary, NGINX_HINT } from '../lib/cluster.js';
import { STANDARD } from './calendar.js';
import type { Print } from './figures.js';
import { createPostgres, seed } from './fixtures.js';
import { scenarios } from './scenarios.js';
import { CONNECTIONS, SECONDS } from './settings.js';

export interface ClusterBench {
  databaseUrl: string;
  /** Scenarios to run at each size, by name. */
  scenarios: Scenario[];
  /** A published event to read during the failover run. */
  eventId: number;
  /** An administrator's application password (webhook subscription, writes). */
  adminBearer: string;
  seconds: number;
  connections: number;
  env: Record<string, string>;
  print: Print;
}

const API = '/wp-json/calendar/events/v1';

const asServer = (cluster: Cluster): Server => ({
  url: cluster.url,
  process: cluster.nginx,
  pids: () => cluster.instances.map((i) => i.process?.pid),
  stop: () => cluster.stop(),
});

export async function measureCluster(bench: ClusterBench): Promise<void> {
  for (const size of [1, 2, 3]) {
    const cluster = await startCluster({
      instances: size,
      port: 0,
      databaseUrl: bench.databaseUrl,
      env: bench.env,
      output: 'ignore',
    });
    try {
      for (const scenario of bench.scenarios) {
        const label = `cluster, ${size} instance${size > 1 ? 's' : ''}`;
        bench.print(label, scenario.name, await measure(asServer(cluster), scenario, bench.seconds, bench.connections));
      }
    } finally {
      await cluster.stop();
    }
  }
  await failover(bench);
}

interface Outcome {
  method: 'GET' | 'POST';
  /** The status, or the network error's name. */
  result: string;
  at: number;
}

/** The failover run, with WORKERS clients in a loop of one write and one read each. */
async function failover(bench: ClusterBench) {
  const WORKERS = 16;
  const seconds = Math.max(15, bench.seconds * 2);
  const received = new Map<string, number>();
  const receiver = http.createServer((req, res) => {
    const id = req.headers['webhook-id'];
    if (typeof id === 'string') received.set(id, (received.get(id) ?? 0) + 1);
    req.resume();
    req.on('end', () => res.writeHead(204).end());
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  const cluster = await startCluster({
    instances: 3,
    port: 0,
    databaseUrl: bench.databaseUrl,
    env: { ...bench.env, WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true' },
    output: 'ignore',
  });
  const headers = { authorization: `Bearer ${bench.adminBearer}`, 'content-type': 'application/json' };
  const database = new pg.Client({ connectionString: bench.databaseUrl });
  await database.connect();
  try {
    const subscribed = await fetch(`${cluster.url}${API}/webhooks`, {
      method: 'POST',
      headers,
      body: JSON.stringify({
        url: `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/`,
        events: ['event.created'],
      }),
    });
    if (subscribed.status !== 201) throw new Error(`webhook subscription: ${subscribed.status}`);

    const outcomes: Outcome[] = [];
    const acknowledged = new Map<number, string>(); // id → title
    const started = performance.now();
    const end = started + seconds * 1000;
    const victim = cluster.instances[1];
    const killAt = seconds / 3;
    const restartAt = (2 * seconds) / 3;
    let restarted: Promise<void> | undefined;
    const timeline = [
      setTimeout(() => void victim.kill('SIGKILL'), killAt * 1000),
      setTimeout(() => {
        restarted = victim.start();
      }, restartAt * 1000),
    ];
    const worker = async (w: number) => {
      for (let i = 0; performance.now() < end; i++) {
        const title = `Failover ${w}-${i}`;
        await fetch(`${cluster.url}${API}/events`, {
          method: 'POST',
          headers,
          body: JSON.stringify({
            title,
            start_date: '2027-05-01 19:00',
            end_date: '2027-05-01 21:00',
            status: 'publish',
          }),
        }).then(
          async (r) => {
            const body = (await r.json().catch(() => ({}))) as { id?: number };
            if (r.status === 201 && body.id !== undefined) acknowledged.set(body.id, title);
            outcomes.push({ method: 'POST', result: String(r.status), at: performance.now() - started });
          },
          (err: unknown) => {
            outcomes.push({ method: 'POST', result: (err as Error).name, at: performance.now() - started });
          },
        );
        await fetch(`${cluster.url}${API}/events/${bench.eventId}`).then(
          async (r) => {
            await r.arrayBuffer();
            outcomes.push({ method: 'GET', result: String(r.status), at: performance.now() - started });
          },
          (err: unknown) => {
            outcomes.push({ method: 'GET', result: (err as Error).name, at: performance.now() - started });
          },
        );
      }
    };
    await Promise.all(Array.from({ length: WORKERS }, (_, w) => worker(w)));
    timeline.forEach(clearTimeout);
    await restarted;

    // Every acknowledged write is there, as acknowledged.
    const ids = [...acknowledged.keys()];
    const { rows } = await database.query<{ id: number; title: string }>(
      'SELECT id, title FROM events WHERE id = ANY($1::int[])',
      [ids],
    );
    const lost = ids.filter((id) => rows.find((row) => row.id === id)?.title !== acknowledged.get(id));
    const { rows: written } = await database.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM events WHERE title LIKE 'Failover %'`,
    );
    const unacknowledged = written[0].n - ids.length;

    // Webhooks: one message per event written, from whichever instance; a delivery leased by the
    // killed instance goes out again once its lease has run out.
    const deadline = performance.now() + 60_000;
    while (received.size < written[0].n && performance.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
    const duplicates = [...received.values()].reduce((n, count) => n + count - 1, 0);

    const failed = outcomes.filter((o) => !['200', '201'].includes(o.result));
    const byKind = (method: string) => {
      const kinds = new Map<string, number>();
      for (const o of failed.filter((f) => f.method === method)) kinds.set(o.result, (kinds.get(o.result) ?? 0) + 1);
      return [...kinds].map(([kind, n]) => `${kind} ×${n}`).join(', ') || 'none';
    };
    const around = failed.length
      ? `between ${(Math.min(...failed.map((f) => f.at)) / 1000).toFixed(1)} s and ${(Math.max(...failed.map((f) => f.at)) / 1000).toFixed(1)} s`
      : '';
    console.log(
      [
        `\n  failover: 3 instances behind nginx, ${WORKERS} clients writing and reading for ${seconds} s; instance 2 killed (SIGKILL) at ${killAt.toFixed(0)} s, started again at ${restartAt.toFixed(0)} s`,
        `    requests: ${outcomes.length} (${outcomes.filter((o) => o.method === 'POST').length} writes, ${outcomes.filter((o) => o.method === 'GET').length} reads)`,
        `    failed: ${failed.length} ${around}; writes: ${byKind('POST')}; reads: ${byKind('GET')}`,
        `    acknowledged writes: ${ids.length}; found as acknowledged: ${ids.length - lost.length}; LOST: ${lost.length}`,
        `    written without an acknowledgement (in flight when the instance died): ${unacknowledged}`,
        `    webhook messages: ${received.size} of ${written[0].n} events, ${duplicates} sent twice or more`,
      ].join('\n'),
    );
    if (lost.length || received.size < written[0].n) process.exitCode = 1;
  } finally {
    await database.end();
    await cluster.stop();
    receiver.close();
  }
}

/** 1 to 3 instances behind nginx on the standard calendar, and the failover run (scripts/bench/cluster.ts). */
export async function clusterPart(print: Print) {
  if (!nginxBinary()) {
    console.log(`  (cluster part skipped: ${NGINX_HINT})`);
    return;
  }
  const database = await createPostgres('cluster');
  try {
    const fixtures = await seed({ kind: 'postgresql', url: database.url }, STANDARD);
    const db = await openDatabase({ databaseUrl: database.url, dataDir: '' });
    let adminBearer: string;
    try {
      await createUser(db.prisma, { login: 'bench-admin', password: 'bench-password', role: 'administrator' });
      adminBearer = (await issueAppPassword(db.prisma, 'bench-admin', 'benchmark')).password;
    } finally {
      await db.close();
    }
    const all = scenarios(fixtures);
    await measureCluster({
      databaseUrl: database.url,
      scenarios: [all['single event'], all['default list'], all['event creation']],
      eventId: fixtures.eventIds[0],
      adminBearer,
      seconds: SECONDS,
      connections: CONNECTIONS,
      env: { LOG_LEVEL: 'warn' },
      print,
    });
  } finally {
    await database.drop();
  }
}
