// What the service tells Prometheus about itself (`/metrics`, metrics/http.ts), in one registry of
// prom-client's. The metrics are module-level, as prom-client intends: one process, one set of
// counters, whatever parts (HTTP, database, sign-in, webhooks) count into them. Gauges that describe
// a resource (pool connections, the webhook queue) are read when scraped, from the sources that
// register themselves here.
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';

export const registry = new Registry();
// Process CPU, memory, event loop delay, garbage collection: what explains a slow instance.
collectDefaultMetrics({ register: registry });

const registers = [registry];

export const requestDuration = new Histogram({
  name: 'http_request_duration_seconds',
  help: 'Time from a request arriving to its answer being sent, by operationId (or the kind of page outside the API) and status.',
  labelNames: ['operation', 'method', 'status'] as const,
  buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
  registers,
});

export const requestsInFlight = new Gauge({
  name: 'http_requests_in_flight',
  help: 'Requests received and not answered yet.',
  registers,
});

/** A pool of database connections, as the metrics read it when scraped. */
export interface PoolSource {
  total: number;
  idle: number;
  waiting: number;
}

const pools = new Set<PoolSource>();

/** Counts `pool` in the pool gauges until the returned function is called (the database closed). */
export function trackPool(pool: PoolSource): () => void {
  pools.add(pool);
  return () => {
    pools.delete(pool);
  };
}

const sum = (read: (pool: PoolSource) => number) => [...pools].reduce((n, pool) => n + read(pool), 0);

new Gauge({
  name: 'db_pool_connections',
  help: 'Connections of the PostgreSQL pool, by state: in use by a query or transaction, or idle.',
  labelNames: ['state'] as const,
  registers,
  collect() {
    this.set(
      { state: 'in_use' },
      sum((p) => p.total - p.idle),
    );
    this.set(
      { state: 'idle' },
      sum((p) => p.idle),
    );
  },
});

new Gauge({
  name: 'db_pool_waiting_requests',
  help: 'Queries and transactions waiting for a free connection of the PostgreSQL pool.',
  registers,
  collect() {
    this.set(sum((p) => p.waiting));
  },
});

export const poolWait = new Histogram({
  name: 'db_pool_wait_seconds',
  help: 'Time spent waiting for a connection of the PostgreSQL pool (a free one, or a new one).',
  buckets: [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
  registers,
});

export const statementErrors = new Counter({
  name: 'db_statement_errors_total',
  help: 'SQL statements that failed, by SQLSTATE (40P01 deadlock, 40001 serialization failure, 23505 unique violation, 57014 timeout, ...; "none" for a broken connection).',
  labelNames: ['code'] as const,
  registers,
});

/** Counts a failed statement by its SQLSTATE. */
export function countStatementError(err: unknown): void {
  const code = (err as { code?: unknown } | null)?.code;
  statementErrors.inc({ code: typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code) ? code : 'none' });
}

export const expansionSteps = new Counter({
  name: 'caldav_expansion_steps_total',
  help: "Steps of recurrence rules walked to expand CalDAV calendar-data: each date ical.js's iterator checks, and each start it gives (caldav/query.ts ExpansionBudget).",
  registers,
});

export const signInFailures = new Counter({
  name: 'auth_sign_in_failures_total',
  help: 'Requests refused because their credentials were wrong.',
  registers,
});

export const signInThrottled = new Counter({
  name: 'auth_sign_in_throttled_total',
  help: 'Requests refused because their client had failed to sign in too often (429 rest_too_many_failed_logins).',
  registers,
});

export const rateLimited = new Counter({
  name: 'rate_limit_rejections_total',
  help: 'Requests refused with 429 by a rate limit, by class of operation (reads, writes, sign-in).',
  labelNames: ['class'] as const,
  registers,
});

export const answerLookups = new Counter({
  name: 'http_kept_answer_lookups_total',
  help: 'Anonymous reads by whether they were sent an answer kept since the data last changed (hit) or had theirs built (miss); RESPONSE_CACHE_MB.',
  labelNames: ['result'] as const,
  registers,
});

export const webhookAttempts = new Counter({
  name: 'webhook_delivery_attempts_total',
  help: 'Attempts to deliver a webhook message, by outcome: delivered, retry (to be tried again) or failed (retries spent).',
  labelNames: ['outcome'] as const,
  registers,
});

export const federationDeliveries = new Counter({
  name: 'federation_delivery_attempts_total',
  help: 'Attempts to deliver an ActivityPub activity to a remote inbox, by outcome: delivered, retry (to be tried again) or failed (retries spent, or the inbox is gone).',
  labelNames: ['outcome'] as const,
  registers,
});

export const mailMessages = new Counter({
  name: 'mail_messages_total',
  help: 'Messages of the mail queue, by outcome: sent, retry (to be tried again), failed (retries spent) or dropped (no SMTP_URL, or the event is gone).',
  labelNames: ['outcome'] as const,
  registers,
});

/**
 * A gauge of a queue kept in the database, read at each scrape from what every running worker of
 * this instance registers (`track`, until the function it answers is called).
 */
function queueDepth(name: string, help: string): (pending: () => Promise<number>) => () => void {
  const queues = new Set<() => Promise<number>>();
  new Gauge({
    name,
    help,
    registers,
    async collect() {
      // A queue that cannot be read within a second is unknown (NaN), not empty; the rest of the
      // scrape does not wait for a database in trouble.
      const depths = await Promise.all(
        [...queues].map((pending) =>
          Promise.race([pending(), new Promise<number>((resolve) => setTimeout(resolve, 1000, NaN).unref())]).catch(
            () => NaN,
          ),
        ),
      );
      this.set(depths.reduce((a, b) => a + b, 0));
    },
  });
  return (pending) => {
    queues.add(pending);
    return () => {
      queues.delete(pending);
    };
  };
}

export const trackWebhookQueue = queueDepth(
  'webhook_queue_depth',
  'Webhook messages waiting to be delivered (first attempts and retries), on every instance of this database.',
);

export const trackFederationQueue = queueDepth(
  'federation_queue_depth',
  'ActivityPub activities waiting to be delivered to remote inboxes (first attempts and retries), on every instance of this database.',
);

export const trackMailQueue = queueDepth(
  'mail_queue_depth',
  'Messages waiting to be sent (first attempts and retries), on every instance of this database.',
);

/**
 * The media library as housekeeping last found it (db/housekeeping.ts): uploads no event, venue or
 * organizer shows (`GET .../media?unreferenced=1` lists them), and the bytes of all its files.
 */
export const unreferencedImages = new Gauge({
  name: 'media_unreferenced_images',
  help: 'Uploaded images that no event, venue or organizer shows (trashed ones included), as housekeeping last counted them.',
  registers,
});
export const mediaLibraryBytes = new Gauge({
  name: 'media_library_bytes',
  help: "Bytes of the media library's files (every size of every image), as housekeeping last counted them.",
  registers,
});

/** The change feed's lag as a source reads it (queries/changes.ts FeedLag). */
export interface FeedLagSource {
  heldBack: number;
  lagSeconds: number;
}

const feedLags = new Set<() => Promise<FeedLagSource>>();

/** Reports what `read` says in the feed lag gauges until the returned function is called. */
export function trackFeedLag(read: () => Promise<FeedLagSource>): () => void {
  feedLags.add(read);
  return () => {
    feedLags.delete(read);
  };
}

/** The feed's lag, read once per scrape for both gauges; unknown (NaN) when it cannot be read within a second. */
async function readFeedLag(): Promise<FeedLagSource> {
  const unknown = { heldBack: NaN, lagSeconds: NaN };
  const read = [...feedLags].at(0);
  if (!read) return unknown;
  return Promise.race([
    read(),
    new Promise<FeedLagSource>((resolve) => setTimeout(resolve, 1000, unknown).unref()),
  ]).catch(() => unknown);
}

new Gauge({
  name: 'change_feed_lag_seconds',
  help: 'How long the oldest committed change has waited behind a transaction still running on the database: the change feed and webhooks are that far behind.',
  registers,
  async collect() {
    this.set((await readFeedLag()).lagSeconds);
  },
});

new Gauge({
  name: 'change_feed_held_back_changes',
  help: 'Committed changes the change feed (and so the webhooks) cannot give yet, behind a transaction still running on the database.',
  registers,
  async collect() {
    this.set((await readFeedLag()).heldBack);
  },
});
