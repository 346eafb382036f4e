// Secrets sent to people without an account: the one-use code of an RSVP's confirmation link and
// its owner's token (docs/decisions.md, "RSVP"), a submission's token ("Public submissions"). Each
// is 32 random bytes; only its SHA-256 is stored, so that the database alone opens nothing, and a
// secret sent is compared with the stored hash in constant time.
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
