// Slugs: lower case, accents removed from Latin letters, letters of every script kept, other runs of characters
// turned into single hyphens; made unique by numbering (`my-venue`, `my-venue-2`, ...).
export const MAX_SLUG_LENGTH = 200;

export function slugify(text: string): string {
  return text
    .normalize('NFKD')
    // Accents come off Latin letters (é -> e); marks of other scripts are part of the letter (ブ).
    .replace(/(\p{Script=Latin})\p{M}+/gu, '$1')
    .normalize('NFC')
    .toLowerCase()
    .replace(/['’‘`]/g, '')
    .replace(/[^\p{L}\p{N}]+/gu, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, MAX_SLUG_LENGTH - 10)
    .replace(/-+$/, '');
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
