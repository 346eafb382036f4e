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
    const client = url.startsWith('https:') ? https : http;
    const request = client.request(
      url,
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
          finish({ statusCode: response.statusCode, excerpt: Buffer.concat(chunks).toString('utf8') });
        };
        response.on('end', done);
        response.on('close', done);
      },
    );
    const timer = setTimeout(() => {
      request.destroy(new Error(`no answer within ${options.timeoutMs} ms`));
    }, options.timeoutMs);
    request.on('error', (err) => {
      finish({ error: err.message, excerpt: '' });
    });
    request.end(body);
  });
}
