// Where the service listens and whom it trusts: its port and public address, the REST prefix,
// proxies, browser origins, the rate limits and their store, the HTTP server's timeouts, /metrics.
import { isIP } from 'node:net';
import { trimEndChar } from '../lib/text.js';
import { ConfigError, nonNegativeInteger, oneOf, positiveInteger, positiveSeconds } from './read.js';

/**
 * Requests allowed per window to each signed-in user, or else to each client address, by class of
 * operation (http/rate-limits.ts). 0 turns a class off: reads and writes are off by default, as in
 * the content systems deployed beside the service, whose own pages and integrations call it from
 * one address; sign-ins, each a password hash, are on.
 */
export interface RateLimitSettings {
  reads: number;
  writes: number;
  /** Client addresses and CIDR ranges that reads and writes never count (a site's own renderer, an office). */
  exemptAddresses: string[];
  /** Checks of credentials not proven right lately (each costs a password hash), per client address. */
  signIns: number;
  windowSeconds: number;
  /** Counters shared by every instance on Redis; else on PostgreSQL, or in memory on the embedded database. */
  redisUrl?: string;
  /**
   * Where the counts live (RATE_LIMIT_STORE): `shared` (the default: Redis when REDIS_URL is set,
   * else PostgreSQL, else memory on the embedded database) or `memory`, each instance counting on
   * its own (a limit per instance, and no round trip per request).
   */
  store: 'shared' | 'memory';
}

/**
 * Where `/metrics` is served: on a port of its own (`port`), or on the public port to callers that
 * send `token` as a bearer token; neither set, nowhere.
 */
export interface MetricsSettings {
  port?: number;
  host: string;
  token?: string;
}

export interface HttpTimeouts {
  /** Until the request's headers have all arrived. */
  headersTimeoutSeconds: number;
  /** Until the whole request, body included, has arrived. */
  requestTimeoutSeconds: number;
  /** How long an idle kept-alive connection stays open. */
  keepAliveTimeoutSeconds: number;
}

export type TrustProxy = false | number | string[];

export function httpTimeouts(env: NodeJS.ProcessEnv): HttpTimeouts {
  return {
    headersTimeoutSeconds: positiveSeconds(env, 'HTTP_HEADERS_TIMEOUT_SECONDS', 10),
    requestTimeoutSeconds: positiveSeconds(env, 'HTTP_REQUEST_TIMEOUT_SECONDS', 30),
    keepAliveTimeoutSeconds: positiveSeconds(env, 'HTTP_KEEP_ALIVE_TIMEOUT_SECONDS', 5),
  };
}

export function rateLimits(env: NodeJS.ProcessEnv): RateLimitSettings {
  return {
    reads: nonNegativeInteger(env, 'RATE_LIMIT_READS', 0),
    writes: nonNegativeInteger(env, 'RATE_LIMIT_WRITES', 0),
    exemptAddresses: addressesAndRanges(env, 'RATE_LIMIT_EXEMPT_ADDRESSES'),
    signIns: nonNegativeInteger(env, 'RATE_LIMIT_SIGN_INS', 30),
    windowSeconds: positiveInteger(env, 'RATE_LIMIT_WINDOW_SECONDS', 60),
    redisUrl: redisUrl(env.REDIS_URL),
    store: oneOf(env, 'RATE_LIMIT_STORE', ['shared', 'memory'] as const, 'shared'),
  };
}

export function listenPort(value: string | undefined): number {
  const port = Number(value ?? 8080);
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    throw new ConfigError(`PORT must be an integer from 0 to 65535, got "${value}"`);
  }
  return port;
}

/** REST_PREFIX: a URL path, kept with a leading `/` and without a trailing one (or empty). */
export function restPrefixPath(value: string | undefined): string {
  let prefix = trimEndChar((value ?? '/wp-json').trim(), '/');
  if (prefix && !prefix.startsWith('/')) prefix = `/${prefix}`;
  if (!/^(\/[A-Za-z0-9._~-]+)*$/.test(prefix)) {
    throw new ConfigError(`REST_PREFIX must be a URL path such as /wp-json, got "${value}"`);
  }
  return prefix;
}

export function redisUrl(value: string | undefined): string | undefined {
  const text = (value ?? '').trim();
  if (!text) return undefined;
  if (!/^rediss?:\/\//.test(text)) throw new ConfigError('REDIS_URL must be a redis:// or rediss:// URL');
  return text;
}

/** METRICS_PORT (and METRICS_HOST, default HOST) or METRICS_TOKEN, at least 16 characters, or neither. */
export function metrics(env: NodeJS.ProcessEnv): MetricsSettings {
  const port = env.METRICS_PORT ? Number(env.METRICS_PORT) : undefined;
  if (port !== undefined && (!Number.isInteger(port) || port < 0 || port > 65535)) {
    throw new ConfigError(`METRICS_PORT must be an integer from 0 to 65535, got "${env.METRICS_PORT}"`);
  }
  const token = env.METRICS_TOKEN || undefined;
  if (token !== undefined && token.length < 16) throw new ConfigError('METRICS_TOKEN must have at least 16 characters');
  return { port, host: env.METRICS_HOST || env.HOST || '127.0.0.1', token };
}

/** PUBLIC_URL: an http(s) URL without credentials, query or fragment; kept without its trailing `/`. */
export function publicUrl(value: string | undefined): string | undefined {
  const text = (value ?? '').trim();
  if (!text) return undefined;
  const parsed = URL.canParse(text) ? new URL(text) : undefined;
  if (
    !parsed ||
    (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') ||
    parsed.username ||
    parsed.password ||
    parsed.search ||
    parsed.hash
  ) {
    throw new ConfigError(`PUBLIC_URL must be an http or https URL such as https://events.example.org, got "${value}"`);
  }
  return `${parsed.origin}${trimEndChar(parsed.pathname, '/')}`;
}

const PROXY_NAMES = new Set(['loopback', 'linklocal', 'uniquelocal']);

/**
 * TRUST_PROXY: off by default; a hop count (`true`/`yes`/`on` are read as the one proxy in front);
 * or a comma-separated list of proxy addresses and CIDR ranges.
 */
export function trustProxy(value: string | undefined): TrustProxy {
  const text = (value ?? '').trim().toLowerCase();
  if (text === '' || /^(0|false|no|off)$/.test(text)) return false;
  if (/^(true|yes|on)$/.test(text)) return 1;
  if (/^\d{1,2}$/.test(text)) return Number(text);
  const entries = text.split(',').map((e) => e.trim());
  for (const entry of entries) {
    if (!PROXY_NAMES.has(entry) && !isAddressOrRange(entry)) {
      throw new ConfigError(
        `TRUST_PROXY must be off, a number of proxies in front (1 to 99), or proxy addresses and CIDR ranges such as 10.0.0.0/8,loopback; got "${entry}"`,
      );
    }
  }
  return entries;
}

/** A comma-separated list of addresses and CIDR ranges; empty when unset. */
function addressesAndRanges(env: NodeJS.ProcessEnv, name: string): string[] {
  const entries = (env[name] ?? '')
    .split(',')
    .map((e) => e.trim())
    .filter(Boolean);
  const wrong = entries.find((entry) => !isAddressOrRange(entry));
  if (wrong !== undefined)
    throw new ConfigError(
      `${name} must list addresses and CIDR ranges such as 10.0.0.0/8,2001:db8::/32; got "${wrong}"`,
    );
  return entries;
}

function isAddressOrRange(entry: string): boolean {
  const parts = entry.split('/');
  const family = isIP(parts[0]);
  if (!family || parts.length > 2) return false;
  const bits = parts.at(1); // no `/bits`: a single address
  if (bits === undefined) return true;
  const max = family === 4 ? 32 : 128;
  return /^\d{1,3}$/.test(bits) && Number(bits) <= max;
}

/** `*` by default: the API is public to read, and credentials travel in headers, never in cookies. */
export function corsOrigins(value: string | undefined): '*' | string[] {
  const text = (value ?? '*').trim();
  if (text === '*') return '*';
  const origins = text
    .split(',')
    .map((o) => o.trim())
    .filter(Boolean);
  for (const origin of origins) {
    let parsed: URL | undefined;
    try {
      parsed = new URL(origin);
    } catch {
      parsed = undefined;
    }
    if (parsed?.origin !== origin)
      throw new ConfigError(`CORS_ORIGINS must be * or origins such as https://app.example.org, got "${origin}"`);
  }
  return origins;
}
