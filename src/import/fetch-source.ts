// Reads from the calendar being imported, over HTTP(S) only, through the guarded fetcher
// (src/lib/guarded-fetch.ts: credentials only to their origin, private addresses only when allowed,
// size and time limits, redirects checked hop by hop). A network error, a timeout, a 429 or a 5xx
// answer is tried again with growing pauses (p-retry), and a 429 or 503 that says Retry-After is
// given the pause it asks for (up to MAX_RETRY_AFTER_MS). Any other answer is final, and so is what
// asking again cannot change: what the fetcher's rules refuse (a body over the limit, a redirect
// loop or too many redirects, a private address). A stop asked for (the run's AbortSignal) ends a
// request, a pause or a wait at once (Stopped).
import { setTimeout as sleep } from 'node:timers/promises';
import pRetry from 'p-retry';
import {
  type Credentials,
  guardedFetch,
  OutboundRefused,
  type Network,
  type OutboundRequest,
  shownUrl,
} from '../lib/guarded-fetch.js';

export class SourceError extends Error {
  constructor(
    message: string,
    /** The HTTP status of a final answer that was not a success, when there was one. */
    readonly status?: number,
    /** The start of that answer's body. */
    readonly body = '',
    options?: ErrorOptions,
  ) {
    super(message, options);
  }
}

export interface FetchOptions {
  /** Sent as Authorization (Basic with a WordPress application password), to their origin only. */
  credentials?: Credentials;
  /** Private, loopback and link-local addresses may be read: of the source's origin alone with `npm run import -- --allow-private` (lib/guarded-fetch.ts). */
  allowPrivate?: OutboundRequest['allowPrivate'];
  accept?: string;
  /** Attempts after the first (tests lower the pauses with `minTimeoutMs`). */
  retries?: number;
  minTimeoutMs?: number;
  timeoutMs?: number;
  /** The largest body taken (default 100 MiB): a larger one is refused, not tried again. */
  maxBytes?: number;
  /** Called before each pause, to tell the user why the import waits. */
  onRetry?: (message: string) => void;
  /** The run's stop: aborted, the request and any pause end at once with Stopped. */
  signal?: AbortSignal;
  /** Tests' resolver and connections (guarded-fetch.ts); the system's by default. */
  network?: Network;
}

/** The run was asked to stop while it was reading. */
export class Stopped extends Error {
  constructor() {
    super('Stopped while reading the source.');
  }
}

const MAX_REDIRECTS = 10;

const MAX_RETRY_AFTER_MS = 120_000;

/** Refuses anything but an absolute http: or https: URL. */
export function sourceUrl(value: string): URL {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new SourceError('This is not a URL.');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new SourceError(`Only http: and https: URLs can be imported from, not ${url.protocol}`);
  }
  // A password in the URL would be shown in every message and log line: --user and --app-password.
  if (url.username || url.password)
    throw new SourceError('Give the credentials with --user and --app-password, not in the URL.');
  return url;
}

/** A final answer: its status, headers and whole body. */
export interface Answer {
  status: number;
  headers: Headers;
  bytes: Uint8Array;
}

/**
 * The answer to a GET once it is final, body and all: a body cut off or stalled is a network error
 * like any other, tried again. Throws SourceError when no final answer came, Stopped when the run's
 * signal stopped it.
 */
export async function fetchSource(url: URL, options: FetchOptions = {}): Promise<Answer> {
  const { signal } = options;
  const attempt = async (): Promise<Answer> => {
    let response: Answer;
    try {
      response = await guardedFetch(url, {
        headers: { accept: options.accept ?? 'application/json' },
        credentials: options.credentials,
        allowPrivate: options.allowPrivate ?? false,
        maxBytes: options.maxBytes ?? MAX_BYTES,
        timeoutMs: options.timeoutMs ?? 30_000,
        maxRedirects: MAX_REDIRECTS,
        signal,
        network: options.network,
      });
    } catch (err) {
      if (signal?.aborted) throw new Stopped();
      if (err instanceof OutboundRefused) {
        const hint = err.reason === 'address' ? ' (--allow-private reads from such addresses)' : '';
        throw new Final(`${err.message}${hint}`, undefined, '', { cause: err });
      }
      throw new SourceError(`${shownUrl(url)}: ${(err as Error).message}`);
    }
    if (response.status === 429 || response.status >= 500) {
      const wait = retryAfterMs(response.headers.get('retry-after'));
      throw new RetryLater(`${shownUrl(url)} answered ${response.status}`, response.status, wait);
    }
    return response;
  };
  try {
    return await pRetry(attempt, {
      retries: options.retries ?? 5,
      minTimeout: options.minTimeoutMs ?? 1000,
      factor: 2,
      randomize: true,
      signal,
      shouldRetry: ({ error }) => error instanceof SourceError && !(error instanceof Final),
      onFailedAttempt: async ({ error, attemptNumber, retriesLeft }) => {
        if (retriesLeft === 0 || !(error instanceof SourceError) || error instanceof Final) return;
        options.onRetry?.(`${error.message}; trying again (attempt ${attemptNumber + 1})`);
        if (error instanceof RetryLater && error.afterMs !== undefined) {
          await sleep(error.afterMs, undefined, { signal });
        }
      },
    });
  } catch (err) {
    if (signal?.aborted || err instanceof Stopped) throw new Stopped();
    if (err instanceof SourceError) throw err;
    throw new SourceError((err as Error).message);
  }
}

/** GETs a JSON answer; anything but a 2xx with a JSON body is a SourceError naming the URL. */
export async function fetchJson(url: URL, options: FetchOptions = {}): Promise<{ body: unknown; headers: Headers }> {
  const answer = await fetchSource(url, options);
  const text = new TextDecoder().decode(answer.bytes);
  if (answer.status < 200 || answer.status > 299) {
    throw new SourceError(`${shownUrl(url)} answered ${answer.status}`, answer.status, text.slice(0, 500));
  }
  try {
    return { body: JSON.parse(text) as unknown, headers: answer.headers };
  } catch {
    throw new SourceError(`${shownUrl(url)} did not answer JSON`);
  }
}

const MAX_BYTES = 100 * 1024 * 1024;

/** What asking again would give again (an answer too large, a redirect loop): not tried again. */
class Final extends SourceError {}

/** A 429 or 5xx answer: tried again, after the pause it asks for when it says. */
class RetryLater extends SourceError {
  constructor(
    message: string,
    status: number,
    readonly afterMs: number | undefined,
  ) {
    super(message, status);
  }
}

/** Retry-After in seconds or as an HTTP date, capped; undefined when absent or unreadable. */
function retryAfterMs(value: string | null): number | undefined {
  if (!value) return undefined;
  const seconds = /^\d+$/.test(value.trim()) ? Number(value.trim()) * 1000 : Date.parse(value) - Date.now();
  return Number.isFinite(seconds) ? Math.min(Math.max(seconds, 0), MAX_RETRY_AFTER_MS) : undefined;
}
