// The code an RSVP shows at the door (docs/decisions.md, "RSVP"): 8 characters of Crockford's
// base32 alphabet, which leaves out I, L, O and U so that a code read aloud or typed from paper is
// not misread. 40 random bits: guessing one of an event's codes takes about a million tries per
// thousand RSVPs, and only organisers may try (services/rsvps/check-in.ts).
import { randomBytes } from 'node:crypto';

export const CODE_ALPHABET = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
export const CODE_LENGTH = 8;

/** A new code: each byte modulo 32 (256 is a multiple of 32, so no character is likelier). */
export function newCheckInCode(): string {
  return Array.from(randomBytes(CODE_LENGTH), (byte) => CODE_ALPHABET[byte % 32]).join('');
}

/**
 * A code as typed or scanned, in the form stored: upper case, without spaces or dashes, and with the
 * letters Crockford's base32 reads as digits (O as 0, I and L as 1). Anything else is kept, and then
 * matches no code.
 */
export function normaliseCheckInCode(typed: string): string {
  return typed
    .toUpperCase()
    .replace(/[\s-]+/g, '')
    .replace(/O/g, '0')
    .replace(/[IL]/g, '1');
}
