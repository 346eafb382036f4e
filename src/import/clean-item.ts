// Text from a source loses its control characters before it is written: PostgreSQL stores no NUL
// in text (an item's UID, name or title holding one would fail every run at that item), and RFC
// 5545 (3.1) allows none but the tab in a value. Line breaks and tabs, which descriptions hold, stay.
import type { ImportItem } from '../domain/external-items.js';

const CONTROL = /\p{Cc}/gu;

/** Kept: tab, line feed, carriage return, and DEL and the C1 range, which PostgreSQL stores. */
const kept = (c: string) => c === '\t' || c === '\n' || c === '\r' || c.charCodeAt(0) >= 0x7f;

/** The item with every string of it (IDs, body, references, carried items) cleaned, and how many went. */
export function withoutControlCharacters(item: ImportItem): { item: ImportItem; removed: number } {
  let removed = 0;
  const clean = (value: unknown): unknown => {
    if (typeof value === 'string') {
      return value.replace(CONTROL, (c) => {
        if (kept(c)) return c;
        removed++;
        return '';
      });
    }
    if (Array.isArray(value)) return value.map(clean);
    if (value && typeof value === 'object' && Object.getPrototypeOf(value) === Object.prototype) {
      return Object.fromEntries(Object.entries(value).map(([key, inner]) => [key, clean(inner)]));
    }
    return value; // numbers, booleans, Dates
  };
  const cleaned = clean(item) as ImportItem;
  return { item: cleaned, removed };
}
