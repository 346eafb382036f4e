// Configuration, read from the environment once at start. A bad value fails fast with a message
// that names the variable (a ConfigError, src/config/read.ts); each group of settings is read in
// its file of src/config/.
import type { CurrencySettings } from './lib/cost.js';
import type { MediaLimits } from './media/images.js';
import {
  type CaldavLimits,
  caldavLimits,
  type CaldavWriteLimits,
  caldavWriteLimits,
  mediaLimits,
  type Quotas,
  quotas,
  type RecurrenceLimits,
  recurrenceLimits,
} from './config/limits.js';
import {
  corsOrigins,
  type HttpTimeouts,
  httpTimeouts,
  listenPort,
  metrics,
  type MetricsSettings,
  publicUrl,
  type RateLimitSettings,
  rateLimits,
  restPrefixPath,
  type TrustProxy,
  trustProxy,
} from './config/network.js';
import { federationSettings, type FederationSettings } from './config/federation.js';
import { mailSettings, type MailSettings } from './config/mail.js';
import { submissionSettings, type SubmissionSettings } from './config/submissions.js';
import { flag, nonNegativeInteger, nonNegativeNumber, positiveInteger, positiveSeconds } from './config/read.js';
import {
  type AdminAccount,
  adminAccount,
  costCurrency,
  databaseTimeouts,
  postgresUrl,
  siteZone,
} from './config/site.js';

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
  admin?: AdminAccount;
  /** Failed sign-ins allowed per client address and login within `authWindowSeconds` before it gets 429. */
  authMaxFailures: number;
  /** ... and per client address over every login (auth/throttle.ts). */
  authMaxAddressFailures: number;
  authWindowSeconds: number;
  /** How long the change feed keeps changes; an older cursor answers 410. */
  changesRetentionDays: number;
  recurrence: RecurrenceLimits;
  quotas: Quotas;
  /** Messages over SMTP (src/mail/), and RSVP confirmation by e-mail. */
  mail: MailSettings;
  /** Events suggested by people who are not editors (src/services/submissions/). */
  submissions: SubmissionSettings;
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
  /** Room for CalDAV resources' texts, kept by their ETag (caldav/kept-texts.ts); 0 writes every text at each read. */
  caldavTextCacheMegabytes: number;
  /** ActivityPub federation (config/federation.ts); undefined when off (no PUBLIC_URL). */
  federation?: FederationSettings;
}

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
    recurrence: recurrenceLimits(env),
    quotas: quotas(env),
    mail: mailSettings(env, env.PUBLIC_URL ? publicUrl(env.PUBLIC_URL) : undefined),
    submissions: submissionSettings(env),
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
    http: httpTimeouts(env),
    costCurrency: costCurrency(env),
    rateLimits: rateLimits(env),
    metrics: metrics(env),
    responseCacheMegabytes: nonNegativeInteger(env, 'RESPONSE_CACHE_MB', 32),
    answerMaxBytes: positiveInteger(env, 'RESPONSE_MAX_MB', 32) * 1024 * 1024,
    media: mediaLimits(env),
    caldav: caldavLimits(env),
    caldavWrites: caldavWriteLimits(env),
    caldavTextCacheMegabytes: nonNegativeInteger(env, 'CALDAV_TEXT_CACHE_MB', 32),
    federation: federationSettings(env, publicUrl(env.PUBLIC_URL)),
  };
}
