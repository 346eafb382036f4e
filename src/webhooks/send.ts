// One delivery attempt: a POST of the signed message through the guarded fetcher
// (src/lib/guarded-fetch.ts), within a time limit, redirects not followed, and only a short excerpt
// of the answer kept.
import { guardedFetch } from '../lib/guarded-fetch.js';

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

export async function send(
  url: string,
  headers: Record<string, string>,
  body: string,
  options: { timeoutMs: number; allowPrivate: boolean },
): Promise<Attempt> {
  const started = performance.now();
  const latencyMs = () => Math.round(performance.now() - started);
  try {
    const answer = await guardedFetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'user-agent': 'calendar-events-service-webhooks', ...headers },
      body,
      allowPrivate: options.allowPrivate,
      // Nothing beyond the excerpt is read: a receiver that streams forever does not hold us.
      maxBytes: EXCERPT_BYTES,
      overflow: 'cut',
      timeoutMs: options.timeoutMs,
      maxRedirects: 0,
    });
    const excerpt = storable(Buffer.from(answer.bytes).toString('utf8'));
    return { statusCode: answer.status, excerpt, latencyMs: latencyMs() };
  } catch (err) {
    return { error: storable((err as Error).message), excerpt: '', latencyMs: latencyMs() };
  }
}
