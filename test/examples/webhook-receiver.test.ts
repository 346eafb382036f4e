// The webhook receiver example takes the service's messages: it verifies their signatures, so a
// change to how messages are signed or shaped fails here.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Message, startReceiver } from '../../examples/webhook-receiver.js';
import type { WebhookWorker } from '../../src/webhooks/worker.js';
import { startServer, type TestServer } from '../setup/server.js';
import { startTestWorker } from '../setup/webhook-worker.js';

describe('the webhook receiver example', () => {
  let s: TestServer;
  let worker: WebhookWorker;
  beforeAll(async () => {
    s = await startServer('pglite', { WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true' });
    worker = startTestWorker(s);
  });
  afterAll(async () => {
    await worker.stop();
    await s.close();
  });

  it('verifies and takes each message once; a wrong secret takes none', async () => {
    const messages: Message[] = [];
    const wrong: Message[] = [];
    const good = await startReceiver('whsec_' + Buffer.alloc(32, 1).toString('base64'), 0, (m) => messages.push(m));
    const bad = await startReceiver('whsec_' + Buffer.alloc(32, 2).toString('base64'), 0, (m) => wrong.push(m));
    try {
      const subscribe = async (url: string) => (await s.post('/webhooks', { url, events: ['venue.created'] })).body;
      const sub = await subscribe(good.url);
      await subscribe(bad.url);
      // The receiver was started with another secret than the one the service made: start it again with the real one.
      await good.close();
      const real = await startReceiver(sub.secret, Number(new URL(good.url).port), (m) => messages.push(m));
      try {
        const venue = (await s.post('/venues', { venue: 'Example Hall' })).body;
        for (let i = 0; i < 200 && !messages.length; i++) await new Promise((resolve) => setTimeout(resolve, 25));
        expect(messages.map((m) => [m.type, m.data.id])).toEqual([['venue.created', venue.id]]);
        expect(wrong).toEqual([]);
      } finally {
        await real.close();
      }
    } finally {
      await bad.close();
    }
  });
});
