// Prisma turns `contains`, `startsWith` and case-insensitive `equals` into LIKE/ILIKE patterns
// without escaping the pattern characters, so a search for "%" would match everything and a venue
// named "_" would "equal" every one-letter name. These build the conditions with the text escaped.
const escape = (text: string) => text.replace(/[\\%_]/g, (c) => `\\${c}`);

/** The text with LIKE's pattern characters escaped, for patterns built in SQL. */
export const likeEscaped = escape;

/** Holds the text anywhere, in any case. */
export const containing = (text: string) => ({ contains: escape(text), mode: 'insensitive' as const });

/** Equals the text in any case. */
export const sameText = (text: string) => ({ equals: escape(text), mode: 'insensitive' as const });

/** Starts with the text, case kept (slugs). */
export const startingWith = (text: string) => ({ startsWith: escape(text) });
