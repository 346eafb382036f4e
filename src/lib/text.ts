// Small text helpers written as loops, where the obvious regular expression (`/-+$/`, `/[ \t]+\n/`)
// would backtrack over long runs of the same character: each runs in one pass (test/unit/regex-safety).

/** `text` without `char` repeated at its start and end. */
export function trimChar(text: string, char: string): string {
  let start = 0;
  let end = text.length;
  while (start < end && text[start] === char) start++;
  while (end > start && text[end - 1] === char) end--;
  return text.slice(start, end);
}

/** `text` without `char` repeated at its end. */
export function trimEndChar(text: string, char: string): string {
  let end = text.length;
  while (end > 0 && text[end - 1] === char) end--;
  return text.slice(0, end);
}

/**
 * The first `count` characters of `text`, counted and cut as the database and the document count
 * them (code points): a cut by UTF-16 units may halve a character outside the Basic Multilingual
 * Plane, and a lone surrogate is no text PostgreSQL takes (`jsonb` refuses it; `text` stores U+FFFD).
 */
export function firstCharacters(text: string, count: number): string {
  let end = 0;
  for (let taken = 0; taken < count && end < text.length; taken++) {
    const code = text.charCodeAt(end);
    const pair = code >= 0xd800 && code <= 0xdbff && end + 1 < text.length;
    end += pair ? 2 : 1;
  }
  return text.slice(0, end);
}

/**
 * A column or an input as text: '' for null and undefined, else what String() makes of it. For values
 * typed `unknown` (the loosely typed columns of a record, fields of a request body), which hold text,
 * numbers or nothing.
 */
export function textOf(value: unknown): string {
  // eslint-disable-next-line @typescript-eslint/no-base-to-string -- deliberately any value: a number keeps its digits
  return value === null || value === undefined ? '' : String(value);
}
