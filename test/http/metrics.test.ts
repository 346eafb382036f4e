// /metrics (src/metrics/): where it is served and to whom, and that each metric docs/operations.md
// lists under "Metrics" is there, with values that follow what happened.
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { DEFAULT_CURRENCY } from '../../src/lib/cost.js';
import { startMetricsServer } from '../../src/metrics/http.js';
import { startWebhooks, type WebhookWorker } from '../../src/webhooks/worker.js';
import { describeEachDatabase } from '../setup/each-database.js';

const TOKEN = 'metrics-token-for-the-tests';

/** The value of one sample line (`name{labels} value`), or undefined when it is absent. */
function sample(text: string, name: string, labels: Record<string, string> = {}): number | undefined {
  for (const line of text.split('\n')) {
    if (!line.startsWith(name)) continue;
    const rest = line.slice(name.length);
    const labelText = rest.startsWith('{') ? rest.slice(1, rest.indexOf('}')) : '';
    if (rest.startsWith('{') || rest.startsWith(' ')) {
      if (Object.entries(labels).every(([k, v]) => labelText.split(',').includes(`${k}="${v}"`)))
        return Number(rest.slice(rest.lastIndexOf(' ') + 1));
    }
  }
  return undefined;
}

describeEachDatabase(
  'metrics',
  (s, kind) => {
    const scrape = async () => {
      const r = await fetch(`${s.origin}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } });
      expect(r.status).toBe(200);
      expect(r.headers.get('content-type')).toContain('text/plain');
      return r.text();
    };

    let worker: WebhookWorker | undefined;
    beforeAll(() => {
      worker = startWebhooks(
        s.db,
        {
          payload: {
            urls: { site: s.origin, root: `${s.origin}/wp-json`, base: s.base },
            siteZone: 'UTC',
            currency: DEFAULT_CURRENCY,
          },
          delivery: { allowPrivateTargets: true, timeoutSeconds: 1, retryBaseMs: 600_000 },
          pollMs: 50,
        },
        () => undefined,
      );
    });
    afterAll(async () => {
      await worker?.stop();
    });

    it('is refused on the public port without the token, and served with it', async () => {
      expect((await fetch(`${s.origin}/metrics`)).status).toBe(401);
      const wrong = await fetch(`${s.origin}/metrics`, { headers: { authorization: 'Bearer not-the-token-at-all' } });
      expect(wrong.status).toBe(401);
      expect(await scrape()).toContain('# TYPE http_request_duration_seconds histogram');
    });

    it('times requests by operationId and status, and counts those in flight', async () => {
      expect((await s.get('/events', { as: null })).status).toBe(200);
      expect((await s.get('/events/999999', { as: null })).status).toBe(404);
      const text = await scrape();
      const listed = { operation: 'listEvents', method: 'GET', status: '200' };
      expect(sample(text, 'http_request_duration_seconds_count', listed)).toBeGreaterThanOrEqual(1);
      expect(sample(text, 'http_request_duration_seconds_bucket', { ...listed, le: '+Inf' })).toBeGreaterThanOrEqual(1);
      const missing = { operation: 'getEvent', method: 'GET', status: '404' };
      expect(sample(text, 'http_request_duration_seconds_count', missing)).toBeGreaterThanOrEqual(1);
      // The scrape itself is the request in flight.
      expect(sample(text, 'http_requests_in_flight')).toBeGreaterThanOrEqual(1);
    });

    it('reports the database pool and counts failed statements by SQLSTATE', async () => {
      const before = sample(await scrape(), 'db_statement_errors_total', { code: '22012' }) ?? 0;
      await expect(s.db.prisma.$queryRawUnsafe('SELECT 1 / 0')).rejects.toThrow();
      const text = await scrape();
      expect(sample(text, 'db_statement_errors_total', { code: '22012' })).toBe(before + 1);
      expect(text).toContain('# TYPE db_pool_wait_seconds histogram');
      expect(sample(text, 'db_pool_waiting_requests')).toBeGreaterThanOrEqual(0);
      if (kind === 'postgresql') {
        expect(sample(text, 'db_pool_connections', { state: 'idle' })).toBeGreaterThanOrEqual(1);
        expect(sample(text, 'db_pool_wait_seconds_count')).toBeGreaterThanOrEqual(1);
      }
    });

    it('counts sign-in failures and throttles, and rate limit refusals by class', async () => {
      const text0 = await scrape();
      const failures = sample(text0, 'auth_sign_in_failures_total') ?? 0;
      const basic = `Basic ${Buffer.from('editor:wrong-password').toString('base64')}`;
      expect((await s.get('/venues', { as: null, headers: { authorization: basic } })).status).toBe(401);
      const text = await scrape();
      expect(sample(text, 'auth_sign_in_failures_total')).toBe(failures + 1);
      expect(text).toContain('# TYPE auth_sign_in_throttled_total counter');
      expect(text).toContain('# TYPE rate_limit_rejections_total counter');
    });

    it('reports the webhook queue and counts delivery outcomes', async () => {
      const retries = sample(await scrape(), 'webhook_delivery_attempts_total', { outcome: 'retry' }) ?? 0;
      // A receiver that refuses connections: the message stays queued for a retry.
      expect((await s.post('/webhooks', { url: 'http://127.0.0.1:9/', events: ['tag.*'] })).status).toBe(201);
      expect((await s.post('/tags', { name: `Queued ${kind}` })).status).toBe(201);
      let text = await scrape();
      for (
        let i = 0;
        i < 100 && (sample(text, 'webhook_delivery_attempts_total', { outcome: 'retry' }) ?? 0) <= retries;
        i++
      ) {
        await new Promise((resolve) => setTimeout(resolve, 50));
        text = await scrape();
      }
      expect(sample(text, 'webhook_delivery_attempts_total', { outcome: 'retry' })).toBe(retries + 1);
      expect(sample(text, 'webhook_queue_depth')).toBe(1);
      // Process metrics come with prom-client's defaults.
      expect(sample(text, 'process_resident_memory_bytes')).toBeGreaterThan(0);
    });
  },
  { env: { METRICS_TOKEN: TOKEN, WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true' } },
);

describeEachDatabase(
  'metrics not configured',
  (s) => {
    it('are not served on the public port', async () => {
      expect((await fetch(`${s.origin}/metrics`)).status).toBe(404);
    });

    it('are served on a port of their own when METRICS_PORT says so', async () => {
      const server = await startMetricsServer({ port: 0, host: '127.0.0.1' });
      try {
        const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
        const r = await fetch(`${origin}/metrics`);
        expect(r.status).toBe(200);
        expect(await r.text()).toContain('# TYPE http_requests_in_flight gauge');
        expect((await fetch(`${origin}/`)).status).toBe(404);
      } finally {
        await new Promise((resolve) => server.close(resolve));
      }
    });
  },
  { kinds: ['pglite'] },
);
