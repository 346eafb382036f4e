// The webhooks part of `npm run bench` (scripts/bench/run.ts): creation with and without a subscription.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import pg from 'pg';
import { scaledCalendar } from './calendar.js';
import { best, type Print } from './figures.js';
import { createPostgres, seed } from './fixtures.js';
import { type Figures, measure, type Server } from './load.js';
import { scenarios } from './scenarios.js';
import { startService } from './service.js';
import { API, CONNECTIONS, ROUNDS, SECONDS } from './settings.js';

/**
 * Webhooks on PostgreSQL (1,000 events): event creation without a subscription and with one that
 * takes every created event (a receiver in this process answers 204), by turns, ROUNDS times; and,
 * during both, one more create every 100 ms, whose acknowledgement time is compared with the time
 * its message arrives in the runs with the subscription.
 */
export async function measureWebhooks(print: Print) {
  const database = await createPostgres('webhooks');
  const received = new Map<number, number>();
  const receiver = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const message = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { data: { id: number } };
      if (!received.has(message.data.id)) received.set(message.data.id, performance.now());
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  const hook = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/`;
  try {
    const fixtures = await seed({ kind: 'postgresql', url: database.url }, scaledCalendar(1_000));
    const creation = scenarios(fixtures)['event creation'];
    const service = await startService(
      { kind: 'postgresql', url: database.url },
      { WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true' },
    );
    const sql = new pg.Client({ connectionString: database.url });
    await sql.connect();
    try {
      const runs = { without: [] as Figures[], with: [] as Figures[] };
      const delays: number[] = [];
      for (let round = 0; round < ROUNDS; round++) {
        await sql.query('DELETE FROM webhook_subscriptions');
        // The paced creates run in both, so that both carry the same load.
        const unpaced = pacedCreates(service, fixtures.bearer, SECONDS + 2);
        runs.without.push(await measure(service, creation, SECONDS, CONNECTIONS));
        await unpaced;
        await sql.query(
          `INSERT INTO webhook_subscriptions (url, event_types, secret) VALUES ($1, '{event.created}', $2)`,
          [hook, `whsec_${Buffer.alloc(32, 7).toString('base64')}`],
        );
        const paced = pacedCreates(service, fixtures.bearer, SECONDS + 2);
        runs.with.push(await measure(service, creation, SECONDS, CONNECTIONS));
        for (const [id, acknowledged] of await paced) {
          for (let i = 0; i < 100 && !received.has(id); i++) await new Promise((resolve) => setTimeout(resolve, 50));
          const arrived = received.get(id);
          if (arrived !== undefined) delays.push(arrived - acknowledged);
        }
      }
      const without = best(runs.without);
      const withHooks = best(runs.with);
      print('PostgreSQL, no subscription', 'event creation', without);
      print(
        'PostgreSQL, 1 subscription',
        'event creation',
        withHooks,
        withHooks.requestsPerSecond / without.requestsPerSecond,
      );
      delays.sort((a, b) => a - b);
      const at = (q: number) => delays[Math.min(delays.length - 1, Math.floor(q * delays.length))]?.toFixed(0) ?? 'n/a';
      console.log(
        `\nWebhooks: from a write's acknowledgement to its message's arrival, under the load above: p50 ${at(0.5)} ms, p99 ${at(0.99)} ms (${delays.length} messages); ` +
          `throughput with a subscription ${((withHooks.requestsPerSecond / without.requestsPerSecond) * 100).toFixed(0)} % of without (90 % or more is the target)`,
      );
    } finally {
      await sql.end();
      await service.stop();
    }
  } finally {
    receiver.close();
    await database.drop();
  }
}

/** Creates an event every 100 ms for `seconds`; answers each created ID with when its creation was acknowledged. */
async function pacedCreates(service: Server, bearer: string, seconds: number): Promise<Map<number, number>> {
  const acknowledged = new Map<number, number>();
  const end = performance.now() + seconds * 1000;
  const pending: Promise<void>[] = [];
  for (let n = 0; performance.now() < end; n++) {
    pending.push(
      fetch(`${service.url}${API}/events`, {
        method: 'POST',
        headers: { authorization: `Bearer ${bearer}`, 'content-type': 'application/json' },
        body: JSON.stringify({ title: `Paced ${n}`, start_date: '2027-04-01 19:00', end_date: '2027-04-01 21:00' }),
      }).then(async (r) => {
        const at = performance.now();
        if (r.status === 201) acknowledged.set(((await r.json()) as { id: number }).id, at);
      }),
    );
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  await Promise.all(pending);
  return acknowledged;
}
