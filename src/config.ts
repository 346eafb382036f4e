// Configuration, read from the environment once at start. A bad value fails fast with a message
// that names the variable.
import { isIP } from 'node:net';
import { IANAZone } from 'luxon';
import { type CurrencySettings, DEFAULT_CURRENCY } from './lib/cost.js';
import { trimEndChar } from './lib/text.js';
import type { MediaLimits } from './media/images.js';

export interface Config {
  host: string;
  port: number;
  /**
   * The site's public address (`https://events.example.org`, a path allowed, no trailing `/`): what
   * identities (`global_id`, iCalendar UIDs) and permalinks are built from, so that they do not change
   * with the Host a client used. Unset: the address the service listens on (http/urls.ts).
   */
  publicUrl?: string;
  /** REST prefix before the namespace, e.g. `/wp-json`. Always starts with `/`, never ends with one. */
  restPrefix: string;
  /** Directory of the embedded PGlite database, used when `databaseUrl` is not set. */
  dataDir: string;
  /** PostgreSQL connection string; when set, the embedded database is not used. */
  databaseUrl?: string;
  /** IANA zone of the site: default event zone and zone of post dates. */
  siteTimezone: string;
  /**
   * Which peers are trusted proxies, in Express's own forms: `false` (none), a number of hops, or
   * addresses, CIDR ranges and the names `loopback`, `linklocal`, `uniquelocal`. Never "everyone":
   * the client address keys the sign-in throttle, and trusting every X-Forwarded-For entry would let
   * a client pick its own.
   */
  trustProxy: TrustProxy;
  logLevel: string;
  /** Administrator created at start when its login does not exist yet. */
  admin?: { login: string; password: string };
  /** Failed sign-ins allowed per client address and login within `authWindowSeconds` before it gets 429. */
  authMaxFailures: number;
  /** ... and per client address over every login (auth/throttle.ts). */
  authMaxAddressFailures: number;
  authWindowSeconds: number;
  /** How long the change feed keeps changes; an older cursor answers 410. */
  changesRetentionDays: number;
  recurrence: RecurrenceLimits;
  quotas: Quotas;
  webhooks: {
    /** Whether targets on private, loopback and link-local addresses are allowed (tests, closed networks). */
    allowPrivateTargets: boolean;
    /** Encrypts the subscriptions' secrets at rest (src/lib/secret-box.ts); same on every instance. */
    secretKey?: string;
    /** How long one delivery attempt may take, connection included. */
    timeoutSeconds: number;
    /** The first retry's delay; later ones grow from it to about a day in all (src/webhooks/deliver.ts). */
    retryBaseMs: number;
  };
  /** Origins whose browser scripts may call the API: `*` (any), or a list of exact origins. */
  corsOrigins: '*' | string[];
  /** On SIGTERM, how long to keep serving (with /readyz failing) before closing, for balancers to notice. */
  shutdownGraceSeconds: number;
  /** How long to wait for a database connection (a new one, or a free one from the pool). */
  databaseConnectTimeoutSeconds: number;
  /** How long one SQL statement may run, on the server and as seen from here (a silent server). */
  databaseStatementTimeoutSeconds: number;
  /** How long one transaction may run in all, its statements and its waits for locks included. */
  databaseTransactionTimeoutSeconds: number;
  /** The HTTP server's limits on slow clients (see http/http-server.ts). */
  http: HttpTimeouts;
  /** How amounts of a cost without a currency symbol of its own are shown (lib/cost.ts). */
  costCurrency: CurrencySettings;
  rateLimits: RateLimitSettings;
  metrics: MetricsSettings;
  /**
   * Room for answers to anonymous reads, sent again while the data and the second they were built
   * from stay the same (http/answer-cache.ts); 0 builds every answer.
   */
  responseCacheMegabytes: number;
  /** The most one JSON answer (or one batch's answers together) may hold (http/json-within.ts). */
  answerMaxBytes: number;
  /** What the media library takes (media/images.ts). */
  media: MediaLimits;
  /** What one CalDAV answer may hold, and how many big ones a caller may be sent at once (caldav/answer.ts). */
  caldav: CaldavLimits;
  /** What one CalDAV resource may hold (caldav/write.ts). */
  caldavWrites: CaldavWriteLimits;
}

/**
 * Bounds on what one CalDAV read makes the service produce, whoever asks: hrefs a multiget may
 * name, responses and bytes one answer may hold, and answers past `bigBytes` (streamed) that one
 * caller (an account, else an address) may be sent at once by one instance.
 */
export interface CaldavLimits {
  maxHrefs: number;
  maxResponses: number;
  maxBytes: number;
  bigBytes: number;
  bigPerCaller: number;
}

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

/**
 * How far ahead a series' occurrences exist as rows, how far back (before now, or before the last
 * start of a series that ended), and how many one write or housekeeping round adds; an unpublished
 * series (draft, pending) gets only a glimpse of its dates, and housekeeping leaves it be until it is
 * published (services/series/window.ts).
 */
export interface RecurrenceLimits {
  horizonDays: number;
  pastDays: number;
  maxOccurrences: number;
  draftHorizonDays: number;
  draftMaxOccurrences: number;
  /**
   * What one CalDAV request may expand (caldav/query.ts ExpansionBudget): occurrences written,
   * steps of the rules' walks (each date ical.js checks against a rule), milliseconds of walking.
   */
  expandInstances: number;
  expandSteps: number;
  expandMs: number;
}

export const DEFAULT_RECURRENCE: RecurrenceLimits = {
  horizonDays: 730,
  pastDays: 365,
  maxOccurrences: 1000,
  draftHorizonDays: 31,
  draftMaxOccurrences: 50,
  // 200,000 steps are about two seconds of one core (ical.js checks a date in 7 to 13 microseconds);
  // an hourly series from 2004 takes as many to reach 2027.
  expandInstances: 5000,
  expandSteps: 200_000,
  expandMs: 3000,
};

/**
 * What one account below editor may hold or make (services/quotas.ts): creates per hour, series,
 * and occurrences of its series in all. 0 lifts a quota.
 */
export interface Quotas {
  createsPerHour: number;
  series: number;
  occurrences: number;
}

export const DEFAULT_QUOTAS: Quotas = { createsPerHour: 100, series: 20, occurrences: 5000 };

/**
 * What one calendar object resource a CalDAV client PUTs may hold, refused up front past it: its
 * changed occurrences (each is an event written in the PUT's transaction), and the lines kept as
 * written (alarms, attendees, X- properties; dav_objects.extra), in number and in bytes.
 */
export interface CaldavWriteLimits {
  maxOverrides: number;
  maxKeptLines: number;
  maxKeptBytes: number;
  /** Distinct venues, organizers and categories its VEVENTs name, each a row the PUT may create. */
  maxNames: number;
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

export class ConfigError extends Error {}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  // Read in this order, so that of several bad settings the same one is named first.
  const port = listenPort(env.PORT);
  const restPrefix = restPrefixPath(env.REST_PREFIX);
  const { statementTimeout, transactionTimeout } = databaseTimeouts(env);
  const siteTimezone = siteZone(env.SITE_TIMEZONE);
  const databaseUrl = postgresUrl(env.DATABASE_URL);
  const admin = adminAccount(env);
  return {
    host: env.HOST || '127.0.0.1',
    port,
    publicUrl: publicUrl(env.PUBLIC_URL),
    restPrefix,
    dataDir: env.DATA_DIR || './data',
    databaseUrl,
    siteTimezone,
    trustProxy: trustProxy(env.TRUST_PROXY),
    logLevel: env.LOG_LEVEL || 'info',
    admin,
    authMaxFailures: positiveInteger(env, 'AUTH_MAX_FAILURES', 10),
    authMaxAddressFailures: positiveInteger(env, 'AUTH_MAX_FAILURES_PER_ADDRESS', 100),
    authWindowSeconds: positiveInteger(env, 'AUTH_WINDOW_SECONDS', 900),
    changesRetentionDays: positiveInteger(env, 'CHANGES_RETENTION_DAYS', 30),
    recurrence: {
      horizonDays: positiveInteger(env, 'RECURRENCE_HORIZON_DAYS', DEFAULT_RECURRENCE.horizonDays),
      pastDays: nonNegativeInteger(env, 'RECURRENCE_PAST_DAYS', DEFAULT_RECURRENCE.pastDays),
      maxOccurrences: positiveInteger(env, 'RECURRENCE_MAX_OCCURRENCES', DEFAULT_RECURRENCE.maxOccurrences),
      draftHorizonDays: positiveInteger(env, 'RECURRENCE_DRAFT_HORIZON_DAYS', DEFAULT_RECURRENCE.draftHorizonDays),
      draftMaxOccurrences: positiveInteger(
        env,
        'RECURRENCE_DRAFT_MAX_OCCURRENCES',
        DEFAULT_RECURRENCE.draftMaxOccurrences,
      ),
      expandInstances: positiveInteger(env, 'RECURRENCE_EXPAND_MAX_INSTANCES', DEFAULT_RECURRENCE.expandInstances),
      expandSteps: positiveInteger(env, 'RECURRENCE_EXPAND_MAX_STEPS', DEFAULT_RECURRENCE.expandSteps),
      expandMs: positiveInteger(env, 'RECURRENCE_EXPAND_MAX_MS', DEFAULT_RECURRENCE.expandMs),
    },
    quotas: {
      createsPerHour: nonNegativeInteger(env, 'QUOTA_CREATES_PER_HOUR', DEFAULT_QUOTAS.createsPerHour),
      series: nonNegativeInteger(env, 'QUOTA_SERIES', DEFAULT_QUOTAS.series),
      occurrences: nonNegativeInteger(env, 'QUOTA_OCCURRENCES', DEFAULT_QUOTAS.occurrences),
    },
    webhooks: {
      allowPrivateTargets: flag(env, 'WEBHOOK_ALLOW_PRIVATE_TARGETS'),
      secretKey: env.WEBHOOK_SECRET_KEY || undefined,
      timeoutSeconds: positiveSeconds(env, 'WEBHOOK_TIMEOUT_SECONDS', 5),
      retryBaseMs: positiveInteger(env, 'WEBHOOK_RETRY_BASE_MS', 5000),
    },
    corsOrigins: corsOrigins(env.CORS_ORIGINS),
    shutdownGraceSeconds: nonNegativeNumber(env, 'SHUTDOWN_GRACE_SECONDS', 0),
    databaseConnectTimeoutSeconds: positiveSeconds(env, 'DATABASE_CONNECT_TIMEOUT_SECONDS', 5),
    databaseStatementTimeoutSeconds: statementTimeout,
    databaseTransactionTimeoutSeconds: transactionTimeout,
    http: {
      headersTimeoutSeconds: positiveSeconds(env, 'HTTP_HEADERS_TIMEOUT_SECONDS', 10),
      requestTimeoutSeconds: positiveSeconds(env, 'HTTP_REQUEST_TIMEOUT_SECONDS', 30),
      keepAliveTimeoutSeconds: positiveSeconds(env, 'HTTP_KEEP_ALIVE_TIMEOUT_SECONDS', 5),
    },
    costCurrency: costCurrency(env),
    rateLimits: {
      reads: nonNegativeInteger(env, 'RATE_LIMIT_READS', 0),
      writes: nonNegativeInteger(env, 'RATE_LIMIT_WRITES', 0),
      exemptAddresses: addressesAndRanges(env, 'RATE_LIMIT_EXEMPT_ADDRESSES'),
      signIns: nonNegativeInteger(env, 'RATE_LIMIT_SIGN_INS', 30),
      windowSeconds: positiveInteger(env, 'RATE_LIMIT_WINDOW_SECONDS', 60),
      redisUrl: redisUrl(env.REDIS_URL),
      store: oneOf(env, 'RATE_LIMIT_STORE', ['shared', 'memory'] as const, 'shared'),
    },
    metrics: metrics(env),
    responseCacheMegabytes: nonNegativeInteger(env, 'RESPONSE_CACHE_MB', 32),
    answerMaxBytes: positiveInteger(env, 'RESPONSE_MAX_MB', 32) * 1024 * 1024,
    media: {
      maxBytes: positiveInteger(env, 'MEDIA_MAX_MB', 25) * 1024 * 1024,
      // A 50-megapixel photo, or 200 frames of 500 by 500: about 200 MB decoded at most.
      maxPixels: positiveInteger(env, 'MEDIA_MAX_PIXELS', 50_000_000),
      // WordPress's threshold for scaling down a big upload (its "-scaled" file).
      maxSide: nonNegativeInteger(env, 'MEDIA_MAX_SIDE', 2560),
    },
    caldav: {
      maxHrefs: positiveInteger(env, 'CALDAV_MAX_HREFS', 1000),
      maxResponses: positiveInteger(env, 'CALDAV_MAX_RESPONSES', 50_000),
      maxBytes: positiveInteger(env, 'CALDAV_MAX_ANSWER_KB', 32 * 1024) * 1024,
      bigBytes: positiveInteger(env, 'CALDAV_BIG_ANSWER_KB', 256) * 1024,
      bigPerCaller: positiveInteger(env, 'CALDAV_BIG_ANSWERS_PER_CALLER', 2),
    },
    caldavWrites: {
      maxOverrides: positiveInteger(env, 'CALDAV_MAX_OVERRIDES', 100),
      maxKeptLines: positiveInteger(env, 'CALDAV_MAX_KEPT_LINES', 2000),
      maxKeptBytes: positiveInteger(env, 'CALDAV_MAX_KEPT_KB', 256) * 1024,
      maxNames: positiveInteger(env, 'CALDAV_MAX_NAMES', 300),
    },
  };
}

function listenPort(value: string | undefined): number {
  const port = Number(value ?? 8080);
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    throw new ConfigError(`PORT must be an integer from 0 to 65535, got "${value}"`);
  }
  return port;
}

/** REST_PREFIX: a URL path, kept with a leading `/` and without a trailing one (or empty). */
function restPrefixPath(value: string | undefined): string {
  let prefix = trimEndChar((value ?? '/wp-json').trim(), '/');
  if (prefix && !prefix.startsWith('/')) prefix = `/${prefix}`;
  if (!/^(\/[A-Za-z0-9._~-]+)*$/.test(prefix)) {
    throw new ConfigError(`REST_PREFIX must be a URL path such as /wp-json, got "${value}"`);
  }
  return prefix;
}

/** A transaction runs statements, so it may not time out before one of them would. */
function databaseTimeouts(env: NodeJS.ProcessEnv): { statementTimeout: number; transactionTimeout: number } {
  const statementTimeout = positiveSeconds(env, 'DATABASE_STATEMENT_TIMEOUT_SECONDS', 10);
  const transactionTimeout = positiveSeconds(env, 'DATABASE_TRANSACTION_TIMEOUT_SECONDS', 3 * statementTimeout);
  if (transactionTimeout < statementTimeout) {
    throw new ConfigError(
      `DATABASE_TRANSACTION_TIMEOUT_SECONDS (${transactionTimeout}) must not be below DATABASE_STATEMENT_TIMEOUT_SECONDS (${statementTimeout})`,
    );
  }
  return { statementTimeout, transactionTimeout };
}

function siteZone(value: string | undefined): string {
  const zone = value || 'UTC';
  if (!IANAZone.isValidZone(zone)) {
    throw new ConfigError(`SITE_TIMEZONE must be an IANA time zone such as Europe/Paris, got "${zone}"`);
  }
  return zone;
}

function postgresUrl(value: string | undefined): string | undefined {
  const url = value || undefined;
  if (url && !/^postgres(ql)?:\/\//.test(url)) {
    throw new ConfigError('DATABASE_URL must be a postgresql:// connection string');
  }
  return url;
}

/** ADMIN_USER and ADMIN_PASSWORD: both set or neither. */
function adminAccount(env: NodeJS.ProcessEnv): Config['admin'] {
  if (Boolean(env.ADMIN_USER) !== Boolean(env.ADMIN_PASSWORD)) {
    throw new ConfigError('ADMIN_USER and ADMIN_PASSWORD must be set together');
  }
  if (env.ADMIN_PASSWORD && env.ADMIN_PASSWORD.length < 8) {
    throw new ConfigError('ADMIN_PASSWORD must have at least 8 characters');
  }
  return env.ADMIN_USER && env.ADMIN_PASSWORD ? { login: env.ADMIN_USER, password: env.ADMIN_PASSWORD } : undefined;
}

function redisUrl(value: string | undefined): string | undefined {
  const text = (value ?? '').trim();
  if (!text) return undefined;
  if (!/^rediss?:\/\//.test(text)) throw new ConfigError('REDIS_URL must be a redis:// or rediss:// URL');
  return text;
}

/** METRICS_PORT (and METRICS_HOST, default HOST) or METRICS_TOKEN, at least 16 characters, or neither. */
function metrics(env: NodeJS.ProcessEnv): MetricsSettings {
  const port = env.METRICS_PORT ? Number(env.METRICS_PORT) : undefined;
  if (port !== undefined && (!Number.isInteger(port) || port < 0 || port > 65535)) {
    throw new ConfigError(`METRICS_PORT must be an integer from 0 to 65535, got "${env.METRICS_PORT}"`);
  }
  const token = env.METRICS_TOKEN || undefined;
  if (token !== undefined && token.length < 16) throw new ConfigError('METRICS_TOKEN must have at least 16 characters');
  return { port, host: env.METRICS_HOST || env.HOST || '127.0.0.1', token };
}

/** PUBLIC_URL: an http(s) URL without credentials, query or fragment; kept without its trailing `/`. */
function publicUrl(value: string | undefined): string | undefined {
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

/**
 * COST_CURRENCY_SYMBOL and COST_CURRENCY_POSITION: the plugin's defaults are `$` before the amount. A symbol
 * is a few characters without digits, commas or periods, which would read as part of the amount.
 */
function costCurrency(env: NodeJS.ProcessEnv): CurrencySettings {
  const symbol = env.COST_CURRENCY_SYMBOL?.trim() || DEFAULT_CURRENCY.symbol;
  if (symbol.length > 8 || /[\d.,\p{Cc}]/u.test(symbol)) {
    throw new ConfigError(
      `COST_CURRENCY_SYMBOL must be at most 8 characters without digits, commas or periods, got "${env.COST_CURRENCY_SYMBOL}"`,
    );
  }
  const position = env.COST_CURRENCY_POSITION?.trim().toLowerCase() || DEFAULT_CURRENCY.position;
  if (position !== 'prefix' && position !== 'suffix') {
    throw new ConfigError(`COST_CURRENCY_POSITION must be prefix or suffix, got "${env.COST_CURRENCY_POSITION}"`);
  }
  return { symbol, position };
}

const PROXY_NAMES = new Set(['loopback', 'linklocal', 'uniquelocal']);

/**
 * TRUST_PROXY: off by default; a hop count (`true`/`yes`/`on` are read as the one proxy in front);
 * or a comma-separated list of proxy addresses and CIDR ranges.
 */
function trustProxy(value: string | undefined): TrustProxy {
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
function corsOrigins(value: string | undefined): '*' | string[] {
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

function nonNegativeNumber(env: NodeJS.ProcessEnv, name: string, fallback: number): number {
  const value = Number(env[name] ?? fallback);
  if (!Number.isFinite(value) || value < 0 || value > 600)
    throw new ConfigError(`${name} must be a number of seconds from 0 to 600, got "${env[name]}"`);
  return value;
}

function positiveSeconds(env: NodeJS.ProcessEnv, name: string, fallback: number): number {
  const value = Number(env[name] ?? fallback);
  if (!Number.isFinite(value) || value <= 0 || value > 3600)
    throw new ConfigError(`${name} must be a number of seconds above 0, at most 3600, got "${env[name]}"`);
  return value;
}

function oneOf<T extends string>(env: NodeJS.ProcessEnv, name: string, values: readonly T[], fallback: T): T {
  const value = (env[name] ?? '').trim() || fallback;
  if (!values.includes(value as T))
    throw new ConfigError(`${name} must be one of ${values.join(', ')}, got "${value}"`);
  return value as T;
}

function nonNegativeInteger(env: NodeJS.ProcessEnv, name: string, fallback: number): number {
  const value = Number(env[name] ?? fallback);
  if (!Number.isInteger(value) || value < 0)
    throw new ConfigError(`${name} must be an integer, 0 or more, got "${env[name]}"`);
  return value;
}

function positiveInteger(env: NodeJS.ProcessEnv, name: string, fallback: number): number {
  const value = Number(env[name] ?? fallback);
  if (!Number.isInteger(value) || value < 1)
    throw new ConfigError(`${name} must be a positive integer, got "${env[name]}"`);
  return value;
}

/** A yes/no setting: `true`/`1`/`yes` or `false`/`0`/`no` (unset: no). */
function flag(env: NodeJS.ProcessEnv, name: string): boolean {
  const value = (env[name] ?? '').trim().toLowerCase();
  if (['', 'false', '0', 'no'].includes(value)) return false;
  if (['true', '1', 'yes'].includes(value)) return true;
  throw new ConfigError(`${name} must be true or false, got "${env[name]}"`);
}
