// Slugs: lower case, accents removed from Latin letters, letters of every script kept, other runs of characters
// turned into single hyphens; made unique by numbering (`my-venue`, `my-venue-2`, ...).
import { firstCharacters, trimChar, trimEndChar } from './text.js';

export const MAX_SLUG_LENGTH = 200;

export function slugify(text: string): string {
  // Accents come off Latin letters (é -> e); marks of other scripts are part of the letter (ブ).
  const decomposed = withoutLatinAccents(text.normalize('NFKD'));
  const hyphenated = decomposed
    .normalize('NFC')
    .toLowerCase()
    .replace(/['’‘`]/g, '')
    .replace(/[^\p{L}\p{N}]+/gu, '-');
  return trimEndChar(firstCharacters(trimChar(hyphenated, '-'), MAX_SLUG_LENGTH - 10), '-');
}

const LATIN = /^\p{Script=Latin}$/u;
const MARK = /^\p{M}$/u;

/** Drops the combining marks that follow a Latin letter (one pass over the code points). */
function withoutLatinAccents(text: string): string {
  let out = '';
  let afterLatin = false;
  for (const char of text) {
    if (MARK.test(char)) {
      if (!afterLatin) out += char;
      continue;
    }
    afterLatin = LATIN.test(char);
    out += char;
  }
  return out;
}

/** The first of `base`, `base-2`, `base-3`, ... that is not in `taken`. */
export function firstFreeSlug(base: string, taken: Iterable<string>): string {
  const used = new Set(taken);
  if (!used.has(base)) return base;
  for (let n = 2; ; n++) {
    const candidate = `${base}-${n}`;
    if (!used.has(candidate)) return candidate;
  }
}
