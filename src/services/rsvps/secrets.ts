// The secrets of an RSVP without an account (docs/decisions.md, "RSVP"): the one-use code of its
// confirmation link and its owner's token. Each is 32 random bytes; only its SHA-256 is stored
// (migration rsvp_mail), so that the database alone opens no RSVP, and a secret sent is compared with
// the stored hash in constant time.
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

/** A new secret, as sent (base64url, 43 characters) and as stored. */
export function newSecret(): { text: string; hash: Buffer } {
  const text = randomBytes(32).toString('base64url');
  return { text, hash: hashOf(text) };
}

const hashOf = (text: string) => createHash('sha256').update(text, 'utf8').digest();

/**
 * Whether `sent` is the secret whose hash is `stored` (its bytes, or as hex), in time that does not
 * depend on how much of it is right.
 */
export function matches(sent: string | undefined, stored: Uint8Array | string | null | undefined): boolean {
  if (!sent || !stored) return false;
  const hash = typeof stored === 'string' ? Buffer.from(stored, 'hex') : Buffer.from(stored);
  return hash.length === 32 && timingSafeEqual(hashOf(sent), hash);
}
