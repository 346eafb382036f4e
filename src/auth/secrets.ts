// Passwords and application passwords are stored only as salted scrypt hashes, in the form
// `scrypt$N$r$p$<salt>$<hash>` (base64), so that the cost can rise later without invalidating old
// hashes. Verification runs scrypt off the main thread and compares in constant time.
import {
  createHmac,
  createSecretKey,
  randomBytes,
  randomInt,
  scrypt as scryptCallback,
  timingSafeEqual,
} from 'node:crypto';

const COST = { N: 16384, r: 8, p: 1 };
const KEY_LENGTH = 32;
const MAX_MEMORY = 64 * 1024 * 1024;

function scrypt(secret: string, salt: Buffer, N: number, r: number, p: number, length: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    scryptCallback(secret, salt, length, { N, r, p, maxmem: MAX_MEMORY }, (err, key) => {
      if (err) reject(err);
      else resolve(key);
    });
  });
}

export async function hashSecret(secret: string): Promise<string> {
  const salt = randomBytes(16);
  const key = await scrypt(secret, salt, COST.N, COST.r, COST.p, KEY_LENGTH);
  return ['scrypt', COST.N, COST.r, COST.p, salt.toString('base64'), key.toString('base64')].join('$');
}

// Successful verifications, remembered for a few minutes so that a client sending the same
// credentials on every request does not pay for scrypt each time. The key is an HMAC under a
// per-process random key of the secret and the stored hash: a changed or revoked secret has a
// different stored hash (or no row at all), so it never matches.
const VERIFIED_TTL_MS = 5 * 60_000;
const VERIFIED_MAX = 10_000;
// A key object, made once: createHmac turns raw key bytes into one on every call, 13 µs against 2
// (docs/performance.md, "Built answers: the levers").
const cacheKey = createSecretKey(randomBytes(32));
const verified = new Map<string, number>();

export async function verifySecret(secret: string, stored: string): Promise<boolean> {
  const memo = createHmac('sha256', cacheKey).update(stored).update('\0').update(secret).digest('base64');
  const until = verified.get(memo);
  if (until !== undefined && until > Date.now()) return true;

  const [scheme, n, r, p, salt, hash] = stored.split('$');
  if (scheme !== 'scrypt' || !salt || !hash) return false;
  const expected = Buffer.from(hash, 'base64');
  const actual = await scrypt(secret, Buffer.from(salt, 'base64'), Number(n), Number(r), Number(p), expected.length);
  const ok = actual.length === expected.length && timingSafeEqual(actual, expected);
  if (ok) {
    if (verified.size >= VERIFIED_MAX) {
      const oldest = verified.keys().next();
      if (!oldest.done) verified.delete(oldest.value);
    }
    verified.set(memo, Date.now() + VERIFIED_TTL_MS);
  }
  return ok;
}

// An application password is 32 characters from an alphabet without look-alikes: the first 8 find
// its row (stored in clear as `lookup`), all 32 are checked against the hash. It is shown once,
// in groups of four; spaces are ignored when it comes back.
const ALPHABET = 'ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz23456789';
const LOOKUP_LENGTH = 8;
const APP_PASSWORD_LENGTH = 32;

export interface NewAppPassword {
  lookup: string;
  /** The whole password, to be shown to its owner once. */
  password: string;
}

export function newAppPassword(): NewAppPassword {
  let password = '';
  for (let i = 0; i < APP_PASSWORD_LENGTH; i++) password += ALPHABET[randomInt(ALPHABET.length)];
  return { lookup: password.slice(0, LOOKUP_LENGTH), password };
}

/** Groups of four, as shown to people: `AbCd EfGh ...`. */
export const displayAppPassword = (password: string) => password.replace(/(.{4})(?=.)/g, '$1 ');

/** The lookup part of something that has the shape of an application password, else undefined. */
export function appPasswordLookup(candidate: string): { lookup: string; password: string } | undefined {
  const password = candidate.replace(/ /g, '');
  if (password.length !== APP_PASSWORD_LENGTH) return undefined;
  for (const c of password) if (!ALPHABET.includes(c)) return undefined;
  return { lookup: password.slice(0, LOOKUP_LENGTH), password };
}
