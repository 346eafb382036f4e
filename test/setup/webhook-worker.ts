// The webhook worker as the tests run it beside a test server: quick polls and retries, targets on
// loopback allowed, and any failure thrown so that the test sees it.
import { DEFAULT_CURRENCY } from '../../src/lib/cost.js';
import { startWebhooks, type WebhookWorker } from '../../src/webhooks/worker.js';
import type { TestServer } from './server.js';

export function startTestWorker(s: TestServer, retryBaseMs = 20, allowPrivateTargets = true): WebhookWorker {
  return startWebhooks(
    s.db,
    {
      payload: {
        urls: { site: s.origin, root: `${s.origin}/wp-json`, base: s.base },
        siteZone: 'UTC',
        currency: DEFAULT_CURRENCY,
      },
      delivery: { allowPrivateTargets, timeoutSeconds: 2, retryBaseMs },
      pollMs: 50,
    },
    (err) => {
      throw err;
    },
  );
}
