// The RSVP part (`npm run bench -- rsvps`): RSVPs to one event at capacity pressure through two
// instances on one PostgreSQL database, then a check, on the rows themselves, that nobody was
// over-booked (issue 53, "Done when"; docs/decisions.md, "RSVP").
//
// Who answers: the event's organiser (an editor) adding RSVPs for distinct people by name and
// e-mail, as a box office taking them by phone, and cancelling some. An organiser's RSVPs take the
// same path as an attendee's (the instance's queue, the event's row lock, the seat count, promotion:
// services/rsvps/write.ts) and count at once. A rush of attendees answering as themselves would need
// an account each, whose first request on each instance verifies its application password with
// scrypt (auth/secrets.ts, about 27 ms of CPU here): thousands of them would measure the hashing of
// first sign-ins, not the seats.
//
// The mix, over BENCH_CONNECTIONS connections to each instance (64 in all by default): of every 20
// writes, one cancels an RSVP that was seated (its seats go to the waiting list in the same
// transaction), one sends the connection's last RSVP again (a double submission: 409
// rest_rsvp_exists) and the rest are new RSVPs, a quarter of them with one or two guests.
import os from 'node:os';
import { performance } from 'node:perf_hooks';
import pg from 'pg';
import { createUser, issueAppPassword } from '../../src/auth/accounts.js';
import { openDatabase } from '../../src/db/client.js';
import type { Print } from './figures.js';
import { createPostgres } from './fixtures.js';
import { cpuSeconds, rssMb, type Server } from './load.js';
import { startService } from './service.js';
import { API, CONNECTIONS, NOW, SECONDS } from './settings.js';

const CAPACITY = 200;
const GUESTS_MAX = 2;

type Kind = 'new' | 'again' | 'cancel';

/** What each kind of write may be answered without failing: 503 rest_rsvp_busy is the queue's back-pressure. */
const EXPECTED: Record<Kind, string[]> = {
  new: ['201', '503 rest_rsvp_busy'],
  // The same address again is refused, or taken up again if a cancellation came first.
  again: ['409 rest_rsvp_exists', '201', '503 rest_rsvp_busy'],
  cancel: ['200', '503 rest_rsvp_busy'],
};

interface Outcome {
  kind: Kind;
  /** The status, with the error's code when there is one, or the network error's name. */
  result: string;
  ms: number;
  /** When it was answered, in seconds from the start of the run. */
  at: number;
}

interface Run {
  outcomes: Outcome[];
  seconds: number;
  /** IDs of the RSVPs acknowledged with 201. */
  acknowledged: Set<number>;
  /** Highest resident memory of each instance during the run, in MB. */
  peakRssMb: (number | undefined)[];
}

/** Writes RSVPs to `eventId` through every instance for `seconds`, CONNECTIONS at a time on each. */
async function drive(instances: Server[], eventId: number, bearer: string, seconds: number, label: string) {
  const outcomes: Outcome[] = [];
  const acknowledged = new Set<number>();
  const seated: number[] = []; // answered going and not cancelled by the run (yet)
  const headers = { authorization: `Bearer ${bearer}`, 'content-type': 'application/json' };
  let sent = 0;
  const peaks = instances.map((): number | undefined => undefined);
  const sample = () => {
    instances.forEach((instance, i) => {
      const now = instance.process.pid === undefined ? undefined : rssMb(instance.process.pid);
      if (now !== undefined) peaks[i] = Math.max(peaks[i] ?? 0, now);
    });
  };
  const sampler = setInterval(sample, 20);

  const begun = performance.now();
  const end = begun + seconds * 1000;
  const write = async (kind: Kind, url: string, init: RequestInit) => {
    const started = performance.now();
    const result = await fetch(url, { ...init, headers, signal: AbortSignal.timeout(30_000) }).then(
      async (r) => {
        const body = (await r.json().catch(() => ({}))) as { id?: number; status?: string; code?: string };
        if (r.status === 201 && body.id !== undefined) {
          acknowledged.add(body.id);
          if (body.status === 'going') seated.push(body.id);
        }
        return body.code ? `${r.status} ${body.code}` : String(r.status);
      },
      (err: unknown) => (err as Error).name,
    );
    outcomes.push({ kind, result, ms: performance.now() - started, at: (performance.now() - begun) / 1000 });
  };

  const worker = async (events: string) => {
    let last: string | undefined;
    while (performance.now() < end) {
      const n = sent++;
      if (n % 20 === 19 && seated.length) {
        // A seated RSVP picked at random, taken off the list so that no two workers cancel it.
        const at = Math.floor(Math.random() * seated.length);
        const [id] = seated.splice(at, 1);
        await write('cancel', `${events}/rsvps/${id}`, { method: 'DELETE' });
      } else if (n % 20 === 9 && last) {
        await write('again', `${events}/rsvps`, { method: 'POST', body: last });
      } else {
        last = JSON.stringify({
          name: `Person ${label} ${n}`,
          email: `person-${label}-${n}@example.org`,
          guests: n % 4 === 3 ? 1 + ((n >> 2) % GUESTS_MAX) : 0,
        });
        await write('new', `${events}/rsvps`, { method: 'POST', body: last });
      }
    }
  };
  try {
    await Promise.all(
      instances.flatMap((instance) =>
        Array.from({ length: CONNECTIONS }, () => worker(`${instance.url}${API}/events/${eventId}`)),
      ),
    );
    sample();
  } finally {
    clearInterval(sampler);
  }
  return { outcomes, seconds: (performance.now() - begun) / 1000, acknowledged, peakRssMb: peaks } satisfies Run;
}

/** An event a month ahead, open to RSVP with CAPACITY seats, created through the API as its organiser. */
async function createEvent(service: Server, bearer: string, title: string): Promise<number> {
  const day = new Date(NOW.getTime() + 30 * 86_400_000).toISOString().slice(0, 10);
  const r = await fetch(`${service.url}${API}/events`, {
    method: 'POST',
    headers: { authorization: `Bearer ${bearer}`, 'content-type': 'application/json' },
    body: JSON.stringify({
      title,
      start_date: `${day} 19:30`,
      end_date: `${day} 22:30`,
      status: 'publish',
      rsvp: { open: true, capacity: CAPACITY, guests_max: GUESTS_MAX },
    }),
  });
  const body = (await r.json()) as { id: number };
  if (r.status !== 201) throw new Error(`event creation: ${r.status} ${JSON.stringify(body)}`);
  return body.id;
}

const percentile = (sorted: number[], q: number) =>
  sorted.length ? Math.round(sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]) : 0;

const latencies = (outcomes: Outcome[]) => {
  const sorted = outcomes.map((o) => o.ms).sort((a, b) => a - b);
  return { p50: percentile(sorted, 0.5), p99: percentile(sorted, 0.99) };
};

const counted = (outcomes: Outcome[]) => {
  const counts = new Map<string, number>();
  for (const o of outcomes) counts.set(o.result, (counts.get(o.result) ?? 0) + 1);
  return [...counts].map(([result, n]) => `${result} ×${n}`).join(', ') || 'none';
};

const thirds = (run: Run) =>
  [0, 1, 2]
    .map((third) => {
      const [from, to] = [third, third + 1].map((t) => (t * run.seconds) / 3);
      return (run.outcomes.filter((o) => o.at >= from && o.at < to).length / (to - from)).toFixed(0);
    })
    .join(', ');

/** The event's seats as its rows have them, read straight from PostgreSQL. */
async function seatsOfEvent(database: pg.Client, eventId: number, acknowledged: Set<number>) {
  const { rows } = await database.query<{
    capacity: number;
    seats: number;
    waiting: number;
    waiting_seats: number;
    smallest_waiting: number | null;
    cancelled: number;
    total: number;
    found: number;
  }>(
    `SELECT e.rsvp_capacity AS capacity,
      coalesce(sum(1 + r.guests) FILTER (WHERE r.status IN ('going', 'checked_in')), 0)::int AS seats,
      count(r.id) FILTER (WHERE r.status = 'waiting')::int AS waiting,
      coalesce(sum(1 + r.guests) FILTER (WHERE r.status = 'waiting'), 0)::int AS waiting_seats,
      min(1 + r.guests) FILTER (WHERE r.status = 'waiting') AS smallest_waiting,
      count(r.id) FILTER (WHERE r.status = 'cancelled')::int AS cancelled,
      count(r.id)::int AS total,
      count(r.id) FILTER (WHERE r.id = ANY($2::int[]))::int AS found
    FROM events e LEFT JOIN rsvps r ON r.event_id = e.id
    WHERE e.id = $1::int GROUP BY e.rsvp_capacity`,
    [eventId, [...acknowledged]],
  );
  return rows[0];
}

interface Cpu {
  instances: number;
  /** By process ID: PostgreSQL's backends serving the benchmark's database. */
  backends: Map<number, number>;
  generator: number;
}

/**
 * CPU seconds used so far by the instances, by the database's backends (when PostgreSQL runs on
 * this machine: the IDs are its processes) and by this load generator: where the two cores went.
 */
async function cpuNow(instances: Server[], database: pg.Client, local: boolean): Promise<Cpu> {
  const { rows } = await database.query<{ pid: number }>(
    'SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()',
  );
  const { user, system } = process.cpuUsage();
  return {
    instances: instances.reduce((sum, i) => sum + (i.process.pid === undefined ? 0 : cpuSeconds(i.process.pid)), 0),
    backends: new Map(local ? rows.map((row) => [row.pid, cpuSeconds(row.pid)]) : []),
    generator: (user + system) / 1e6,
  };
}

/** CPU milliseconds per write between two readings; a backend opened meanwhile counts from its start. */
function cpuPerWrite(before: Cpu, after: Cpu, writes: number) {
  let backends = 0;
  for (const [pid, seconds] of after.backends) backends += seconds - (before.backends.get(pid) ?? 0);
  const ms = (seconds: number) => (seconds * 1000) / writes;
  return {
    instances: ms(after.instances - before.instances),
    postgres: after.backends.size ? ms(backends) : undefined,
    generator: ms(after.generator - before.generator),
  };
}

/** The event's public counts as each instance serves them. */
async function servedCounts(instances: Server[], eventId: number) {
  return Promise.all(
    instances.map(async (instance) => {
      const r = await fetch(`${instance.url}${API}/events/${eventId}`);
      return ((await r.json()) as { rsvp: { going: number; waiting: number } }).rsvp;
    }),
  );
}

/** Two instances on a fresh database, a warm-up on one event, the measured run on another, the check. */
export async function measureRsvps(print: Print) {
  const database = await createPostgres('rsvps');
  try {
    const db = await openDatabase({ databaseUrl: database.url, dataDir: '' });
    let bearer: string;
    try {
      await createUser(db.prisma, { login: 'bench-organiser', password: 'bench-password', role: 'editor' });
      bearer = (await issueAppPassword(db.prisma, 'bench-organiser', 'benchmark')).password;
    } finally {
      await db.close();
    }
    const storage = { kind: 'postgresql', url: database.url } as const;
    const local = ['127.0.0.1', 'localhost', '[::1]'].includes(new URL(database.url).hostname);
    const instances: Server[] = [];
    const client = new pg.Client({ connectionString: database.url });
    await client.connect();
    try {
      for (let i = 0; i < 2; i++) instances.push(await startService(storage));
      const warmUp = await createEvent(instances[0], bearer, 'Warm-up evening');
      const eventId = await createEvent(instances[0], bearer, 'Sold-out evening');
      // JIT, pools and the credentials' verification on each instance, on an event of its own.
      await drive(instances, warmUp, bearer, Math.min(2, SECONDS), 'warm-up');
      const before = await cpuNow(instances, client, local);
      const run = await drive(instances, eventId, bearer, SECONDS, 'run');
      const cpu = cpuPerWrite(before, await cpuNow(instances, client, local), run.outcomes.length);
      const seats = await seatsOfEvent(client, eventId, run.acknowledged);
      const served = await servedCounts(instances, eventId);
      report(print, run, { seats, served, cpu });
    } finally {
      await client.end();
      await Promise.all(instances.map((instance) => instance.stop()));
    }
  } finally {
    await database.drop();
  }
}

/** The share of the machine's cores the run's processes kept busy: near 100, the CPU is what limits. */
const busy = (cpu: Check['cpu'], run: Run) =>
  (
    ((cpu.instances + (cpu.postgres ?? 0) + cpu.generator) * run.outcomes.length) /
    (run.seconds * 10 * os.cpus().length)
  ).toFixed(0);

interface Check {
  seats: Awaited<ReturnType<typeof seatsOfEvent>>;
  served: { going: number; waiting: number }[];
  cpu: ReturnType<typeof cpuPerWrite>;
}

function report(print: Print, run: Run, { seats, served, cpu }: Check) {
  const failed = run.outcomes.filter((o) => !EXPECTED[o.kind].includes(o.result));
  const failureKinds: Record<string, number> = {};
  for (const o of failed) failureKinds[`${o.kind} ${o.result}`] = (failureKinds[`${o.kind} ${o.result}`] ?? 0) + 1;
  const peaks = run.peakRssMb.filter((mb): mb is number => mb !== undefined);
  print(`RSVP, 2 instances, ${CAPACITY} seats`, 'RSVP writes', {
    requestsPerSecond: run.outcomes.length / run.seconds,
    ...latencies(run.outcomes),
    peakRssMb: peaks.length ? Math.max(...peaks) : undefined,
    failures: failed.length,
    failureKinds,
    requests: run.outcomes.length,
  });

  const of = (kind: Kind) => run.outcomes.filter((o) => o.kind === kind);
  const line = (kind: Kind, what: string) => {
    const { p50, p99 } = latencies(of(kind));
    return `    ${what}: ${of(kind).length} (${(of(kind).length / run.seconds).toFixed(0)}/s), p50 ${p50} ms, p99 ${p99} ms; ${counted(of(kind))}`;
  };
  const overBooked = seats.seats > seats.capacity;
  // After every write no waiting RSVP fits (services/rsvps/seats.ts promote): one that does was passed over.
  const passedOver = seats.smallest_waiting !== null && seats.smallest_waiting <= seats.capacity - seats.seats;
  const stale = served.some((s) => s.going !== seats.seats || s.waiting !== seats.waiting_seats);
  const lost = run.acknowledged.size - seats.found;
  console.log(
    [
      `\n  RSVP: one event of ${CAPACITY} seats (up to ${GUESTS_MAX} guests per RSVP), the organiser writing through 2 instances, ${CONNECTIONS} connections each, for ${run.seconds.toFixed(1)} s`,
      line('new', 'new RSVPs'),
      line('again', 'sent again'),
      line('cancel', 'cancellations of seated RSVPs'),
      `    refused as busy (503 rest_rsvp_busy, the queue's back-pressure): ${run.outcomes.filter((o) => o.result === '503 rest_rsvp_busy').length}; unexpected answers: ${failed.length}`,
      `    writes per second in each third of the run, as the waiting list grows: ${thirds(run)}`,
      `    CPU per write: ${cpu.instances.toFixed(1)} ms in the instances, ${cpu.postgres?.toFixed(1) ?? 'n/a'} ms in PostgreSQL's backends, ${cpu.generator.toFixed(1)} ms in this load generator: ${busy(cpu, run)} % of the machine's ${os.cpus().length} cores`,
      `    peak RSS per instance: ${run.peakRssMb.map((mb) => mb?.toFixed(0) ?? 'n/a').join(' and ')} MB`,
      `    rows: ${seats.total} RSVPs, ${seats.cancelled} cancelled, ${seats.waiting} waiting (${seats.waiting_seats} seats asked for); acknowledged with 201: ${run.acknowledged.size}, LOST: ${lost}`,
      `    seats taken ${seats.seats} of ${seats.capacity}${overBooked ? ': OVER-BOOKED' : ''}; smallest party waiting ${seats.smallest_waiting ?? 'none'}${passedOver ? ': FITS, PASSED OVER' : ''}`,
      `    counts served by each instance (going/waiting): ${served.map((s) => `${s.going}/${s.waiting}`).join(' and ')}${stale ? ': STALE' : ''}`,
    ].join('\n'),
  );
  if (overBooked || passedOver || stale || lost) {
    console.error('  RSVP check FAILED: the seats above are wrong.');
    process.exitCode = 1;
  }
}
