// A webhook receiver: checks each message's signature with the subscription's secret (the
// `standardwebhooks` library, as any Standard Webhooks receiver would), ignores a message it has
// already taken (the service sends a message again until it gets a 2xx), and answers 204 at once.
// Run it, then subscribe it (POST /webhooks with its URL) and put the secret you get in WEBHOOK_SECRET:
//
//   WEBHOOK_SECRET='whsec_...' PORT=9000 npx tsx examples/webhook-receiver.ts
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';

export interface Message {
  type: string;
  timestamp: string;
  data: { type?: string; id?: number; action?: string; object?: unknown };
}

export async function startReceiver(secret: string, port: number, onMessage: (message: Message) => void) {
  const webhook = new Webhook(secret);
  const seen = new Set<string>();
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const headers = {
        'webhook-id': String(req.headers['webhook-id']),
        'webhook-timestamp': String(req.headers['webhook-timestamp']),
        'webhook-signature': String(req.headers['webhook-signature']),
      };
      let message: Message;
      try {
        // Throws unless the signature is the secret's, and the timestamp within five minutes.
        message = webhook.verify(body, headers) as Message;
      } catch {
        res.writeHead(401).end();
        return;
      }
      if (!seen.has(headers['webhook-id'])) {
        seen.add(headers['webhook-id']);
        onMessage(message);
      }
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => {
          resolve();
        });
      }),
  };
}

// Run as a script: print each message.
if (import.meta.url === `file://${process.argv[1]}`) {
  const receiver = await startReceiver(process.env.WEBHOOK_SECRET ?? '', Number(process.env.PORT ?? 9000), (m) => {
    console.log(`${m.timestamp} ${m.type} ${m.data.type ?? ''} ${m.data.id ?? ''}`);
  });
  console.log(`listening at ${receiver.url}`);
}
