// One delivery attempt: a POST of the signed message, within a time limit, redirects not followed,
// and only a short excerpt of the answer kept.
import http from 'node:http';
import https from 'node:https';
import { guardedLookup } from '../lib/webhook-targets.js';

export interface Attempt {
  /** The receiver's status, when it answered. */
  statusCode?: number;
  /** Why there was no answer (timeout, refused connection, private address). */
  error?: string;
  latencyMs: number;
  /** The start of the answer's body. */
  excerpt: string;
}

/** How much of a receiver's answer is kept (docs/decisions.md, "Webhooks"). */
const EXCERPT_BYTES = 1024;

/** Text PostgreSQL can store: a receiver's answer may hold NUL, which a text column refuses. */
const storable = (text: string) => text.replaceAll('\u0000', '\uFFFD');

export function send(
  url: string,
  headers: Record<string, string>,
  body: string,
  options: { timeoutMs: number; allowPrivate: boolean },
): Promise<Attempt> {
  const started = performance.now();
  const latencyMs = () => Math.round(performance.now() - started);
  return new Promise((resolve) => {
    let settled = false;
    const finish = (attempt: Omit<Attempt, 'latencyMs'>) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve({ ...attempt, latencyMs: latencyMs() });
    };
    // The scheme as the URL parser reads it (`HTTPS://` is https too).
    const target = new URL(url);
    const client = target.protocol === 'https:' ? https : http;
    let request: http.ClientRequest;
    try {
      request = client.request(
        target,
        {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'user-agent': 'calendar-events-service-webhooks', ...headers },
          lookup: guardedLookup(options.allowPrivate),
        },
        (response) => {
          const chunks: Buffer[] = [];
          let kept = 0;
          response.on('data', (chunk: Buffer) => {
            if (kept < EXCERPT_BYTES) chunks.push(chunk.subarray(0, EXCERPT_BYTES - kept));
            kept += chunk.length;
            // Nothing beyond the excerpt is read: a receiver that streams forever does not hold us.
            if (kept >= EXCERPT_BYTES) response.destroy();
          });
          const done = () => {
            finish({ statusCode: response.statusCode, excerpt: storable(Buffer.concat(chunks).toString('utf8')) });
          };
          response.on('end', done);
          response.on('close', done);
        },
      );
    } catch (err) {
      // A URL Node's client refuses (it throws at once instead of emitting an error).
      resolve({ error: storable((err as Error).message), excerpt: '', latencyMs: latencyMs() });
      return;
    }
    const timer = setTimeout(() => {
      request.destroy(new Error(`no answer within ${options.timeoutMs} ms`));
    }, options.timeoutMs);
    request.on('error', (err) => {
      finish({ error: storable(err.message), excerpt: '' });
    });
    request.end(body);
  });
}
