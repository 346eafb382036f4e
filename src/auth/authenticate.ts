// Turns an Authorization header into the caller: HTTP Basic with a login and its password or one
// of its application passwords, or Bearer with an application password. No header means an
// anonymous caller; a header that does not check out is a 401 on every route, as in WordPress.
import { createHmac, createSecretKey, randomBytes } from 'node:crypto';
import { Prisma } from '../../generated/prisma/client.js';
import type { PrismaClient } from '../db/client.js';
import { selectRows } from '../db/driver.js';
import { InvalidCredentials } from '../domain/errors.js';
import type { Caller, Principal } from './roles.js';
import { appPasswordLookup, verifySecret } from './secrets.js';
import {
  recordFailure,
  refuseIfRetry,
  refuseIfThrottled,
  releaseFailure,
  rememberSignIn,
  reserveFailure,
  signedInBefore,
  type ThrottleLimits,
  throttledRetry,
  throttleKeys,
} from './throttle.js';

export interface Credentials {
  scheme: 'basic' | 'bearer';
  login?: string;
  secret: string;
}

/** The credentials in an Authorization header, or undefined for none or another scheme. */
export function parseAuthorization(header: string | undefined): Credentials | undefined {
  const match = /^(basic|bearer)\s+(\S.*)$/i.exec(header?.trim() ?? '');
  if (!match) return undefined;
  if (match[1].toLowerCase() === 'bearer') return { scheme: 'bearer', secret: match[2].trim() };
  const decoded = Buffer.from(match[2].trim(), 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  // A Basic header without a colon still counts as (wrong) credentials.
  return colon < 0
    ? { scheme: 'basic', login: decoded, secret: '' }
    : { scheme: 'basic', login: decoded.slice(0, colon), secret: decoded.slice(colon + 1) };
}

// Verified against when the login is unknown, so that an unknown login takes as long as a known one.
const UNKNOWN_USER_HASH = 'scrypt$16384$8$1$AAAAAAAAAAAAAAAAAAAAAA==$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=';

/**
 * The caller the credentials name; null without credentials. `beforeHash` runs before a check that
 * costs a password hash (credentials not proven right lately, and not being checked already), and
 * may refuse it by throwing: the service counts those as sign-ins (http/security.ts).
 */
export async function authenticate(
  prisma: PrismaClient,
  credentials: Credentials | undefined,
  client: string,
  limits: ThrottleLimits,
  beforeHash: () => Promise<void> = () => Promise.resolve(),
): Promise<Caller> {
  if (!credentials) return null;
  const key = fingerprint(credentials);
  const name = namedBy(credentials);
  const keys = throttleKeys(client, 'login' in name ? `login:${name.login}` : `token:${name.lookup}`);
  if (knownGood.has(key)) {
    // Right a moment ago, so not a guess: checked as usual, and held to the throttle of its own
    // account from this address only, not to the address's, so that someone else guessing from the
    // same address does not lock its owner out. (Not held to its account's either, a right guess
    // after the throttle had stopped the wrong ones would be told apart from them.)
    const principal = await knownPrincipal(prisma, credentials, { key: keys.pair, limits });
    if (principal) return principal;
    knownGood.delete(key);
    await recordFailure(prisma, keys, limits);
    throw new InvalidCredentials();
  }
  // The same new credentials in parallel (an app's first burst of requests) wait for the first
  // check instead of each reserving a failure, which could throttle a client that did nothing
  // wrong, and each costing a sign-in (beforeHash). Should the first prove them wrong, each is
  // checked as a guess of its own.
  const first = checking.get(key);
  if (first && (await first.catch(() => undefined)))
    return authenticate(prisma, credentials, client, limits, beforeHash);
  const attempt = (async () => {
    await beforeHash();
    const trusted = possibleName(name) && (await signedInBefore(prisma, client, name));
    await reserveFailure(prisma, keys, limits, trusted);
    const principal = await verify(prisma, credentials);
    if (principal) {
      await releaseFailure(prisma, keys, trusted);
      await rememberSignIn(prisma, client, principal.id);
      remember(key);
    }
    return principal;
  })();
  if (!checking.has(key)) {
    checking.set(key, attempt);
    void attempt.catch(() => undefined).finally(() => checking.delete(key));
  }
  const principal = await attempt;
  if (!principal) throw new InvalidCredentials();
  return principal;
}

/**
 * Credentials known good, checked again. An application password is read with its throttle, in
 * one statement, its account's login compared when Basic names one (as CalDAV clients send it); a
 * login's own password after the throttle's check.
 */
async function knownPrincipal(
  prisma: PrismaClient,
  credentials: Credentials,
  throttle: { key: string; limits: ThrottleLimits },
): Promise<Principal | undefined> {
  if (credentials.scheme === 'bearer' || appPasswordLookup(credentials.secret)) {
    const login = credentials.scheme === 'basic' ? { login: credentials.login ?? '' } : undefined;
    const principal = await byAppPassword(prisma, credentials.secret, login, throttle);
    return principal ?? (credentials.scheme === 'basic' ? verify(prisma, credentials) : undefined);
  }
  await refuseIfThrottled(prisma, throttle.key, throttle.limits);
  return verify(prisma, credentials);
}

/** A name an account can have: no NUL, which PostgreSQL text cannot hold, and not longer than a login. */
const possibleName = (name: { login: string } | { lookup: string }) => {
  const text = 'login' in name ? name.login : name.lookup;
  return text.length > 0 && text.length <= 60 && !text.includes('\0');
};

/** What credentials name, for the throttle: a login, or an application password's public part. */
function namedBy(credentials: Credentials): { login: string } | { lookup: string } {
  if (credentials.scheme === 'basic') return { login: credentials.login ?? '' };
  return { lookup: appPasswordLookup(credentials.secret)?.lookup ?? '' };
}

const verify = (prisma: PrismaClient, credentials: Credentials) =>
  credentials.scheme === 'bearer' ? byAppPassword(prisma, credentials.secret) : byLogin(prisma, credentials);

// Credentials that proved right lately, by an HMAC under a key that lives only in this process (so
// the set reveals nothing). Only the throttle reads it: such credentials are still verified in
// full on every request, so a revoked password stops working at once. A cache, nothing more: an
// instance without it only reserves a failure more often.
const FINGERPRINT_KEY = createSecretKey(randomBytes(32)); // made once, as auth/secrets.ts's cacheKey
const KNOWN_GOOD_MAX = 10_000;
const knownGood = new Set<string>();
const checking = new Map<string, Promise<Principal | undefined>>();

const fingerprint = (c: Credentials) =>
  createHmac('sha256', FINGERPRINT_KEY)
    .update(`${c.scheme}\0${c.login ?? ''}\0${c.secret}`)
    .digest('base64url');

function remember(key: string) {
  if (knownGood.size >= KNOWN_GOOD_MAX) {
    const oldest = knownGood.values().next();
    if (!oldest.done) knownGood.delete(oldest.value);
  }
  knownGood.add(key);
}

async function byLogin(prisma: PrismaClient, { login, secret }: Credentials): Promise<Principal | undefined> {
  // A login that no account can have (NUL, which PostgreSQL text cannot hold, or longer than the
  // column) is an unknown login, not a question for the database.
  const possible = login && login.length <= 60 && !login.includes('\0');
  const user = possible ? await prisma.user.findUnique({ where: { login } }) : null;
  if (!user) {
    await verifySecret(secret, UNKNOWN_USER_HASH);
    return undefined;
  }
  if (appPasswordLookup(secret)) {
    const principal = await byAppPassword(prisma, secret, { userId: user.id });
    if (principal) return principal;
  }
  return (await verifySecret(secret, user.passwordHash))
    ? { id: user.id, login: user.login, role: user.role, rateLimitExempt: user.rateLimitExempt }
    : undefined;
}

/**
 * The account of an application password, if it checks out. With `throttle`, the counter under its
 * key is read in the same statement, and a spent one is a 429 before anything is checked (as
 * refuseIfThrottled ahead of this would be, one round trip less: credentials known to be good
 * come with every request of a client).
 */
async function byAppPassword(
  prisma: PrismaClient,
  secret: string,
  owner?: { userId: number } | { login: string },
  throttle?: { key: string; limits: ThrottleLimits },
): Promise<Principal | undefined> {
  const parsed = appPasswordLookup(secret);
  if (!throttle && !parsed) return undefined;
  const row = await readAppPassword(prisma, parsed?.lookup ?? '', throttle);
  if (
    !parsed ||
    !row?.id ||
    (owner && ('userId' in owner ? row.user_id !== owner.userId : row.login !== owner.login)) ||
    !(await verifySecret(parsed.password, row.secret_hash))
  )
    return undefined;
  // Recorded at most once a minute, so that busy clients do not write on every request.
  const aMinuteAgo = Date.now() - 60_000;
  if (row.last_used_ms === null || row.last_used_ms < aMinuteAgo) {
    await prisma.appPassword.updateMany({
      where: { id: row.id, OR: [{ lastUsedAt: null }, { lastUsedAt: { lt: new Date(aMinuteAgo) } }] },
      data: { lastUsedAt: new Date() },
    });
  }
  return { id: row.user_id, login: row.login, role: row.role, rateLimitExempt: row.rate_limit_exempt };
}

/**
 * The password under `lookup` with its account (no row, or a row of nulls, when there is none),
 * and with `throttle` the counter's retry (429 when it is spent). One statement past Prisma
 * (db/driver.ts selectRows says why), prepared on each connection: planning it cost more than
 * running it.
 */
async function readAppPassword(
  prisma: PrismaClient,
  lookup: string,
  throttle: { key: string; limits: ThrottleLimits } | undefined,
): Promise<AppPasswordRow | undefined> {
  const password = Prisma.sql`SELECT ap.id, ap.user_id, ap.secret_hash, (extract(epoch FROM ap.last_used_at) * 1000)::float8 AS last_used_ms,
                        u.login, u.role::text AS role, u.rate_limit_exempt
                 FROM app_passwords ap JOIN users u ON u.id = ap.user_id WHERE ap.lookup = ${lookup}`;
  if (!throttle) return (await selectRows<AppPasswordRow>(prisma, password, { prepare: true })).at(0);
  const rows = await selectRows<AppPasswordRow & { retry: number | null }>(
    prisma,
    Prisma.sql`SELECT t.retry, p.* FROM (SELECT) AS one
               LEFT JOIN (${throttledRetry(throttle.key, throttle.limits)}) AS t ON true
               LEFT JOIN (${password}) AS p ON true`,
    { prepare: true },
  );
  const row = rows.at(0);
  refuseIfRetry(row?.retry);
  return row;
}

interface AppPasswordRow {
  id: number;
  user_id: number;
  secret_hash: string;
  last_used_ms: number | null;
  login: string;
  role: Principal['role'];
  rate_limit_exempt: boolean;
}
