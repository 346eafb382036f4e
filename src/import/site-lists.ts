// How the lists of a site of the modelled service (tec-source.ts) and of its WordPress
// (wordpress-posts.ts) are read: page after page, each ID once, within the run's bounds.
import type { FetchOptions } from './fetch-source.js';
import type { ImportLimits } from './limits.js';

export type Raw = Record<string, unknown>;

/** A string as it is, a number as text, anything else as ''. */
export function text(value: unknown): string {
  if (typeof value === 'string') return value;
  if (typeof value === 'number') return String(value);
  return '';
}

export interface TecSite {
  base: URL;
  fetch: FetchOptions;
  /** Signed in (with --user): drafts, private events and WordPress's edit context are readable. */
  signedIn: boolean;
  /** WordPress's own records of events (wordpress-posts.ts): why they cannot be read, once known. */
  posts: { unavailable?: string };
}

/**
 * How the reading of a list went: what it announced, the IDs it gave, and why it ended early. A list
 * ends at its last page, at an empty page or a 404 past its end, at a page that holds only items it
 * gave before (a site that answers every page number with the same page), or at a bound (limits.ts):
 * whatever it claims, it costs at most `maxPages` requests and `maxItems` IDs in memory.
 */
export interface ListReading {
  /** What it says it holds (its first page's total), once read. */
  announced?: number;
  /** The IDs it gave, each once. */
  ids: Set<string>;
  /** Items taken from it (those without an ID too). */
  taken: number;
  /** Why it was not read to its end, when a bound or a repeated page ended it: it may hold more. */
  cutShort?: string;
}

export const newReading = (): ListReading => ({ ids: new Set(), taken: 0 });

/** One page's values and what the list says about itself; undefined past its end. */
export type PageOf = (page: number) => Promise<{ values: unknown[]; pages: number; total?: number } | undefined>;

/** The values of a list, page after page, each ID once, within the bounds (see ListReading). */
export async function* paged(
  name: string,
  fetchPage: PageOf,
  limits: ImportLimits,
  list: ListReading,
  onPage: (page: number, pages: number) => void,
): AsyncGenerator<unknown[]> {
  for (let page = 1, pages = 1; page <= pages; page++) {
    if (page > limits.maxPages) {
      list.cutShort = `the ${name} announces ${pages} pages: the first ${limits.maxPages} were read (--max-pages).`;
      return;
    }
    const answer = await fetchPage(page);
    if (!answer) return;
    pages = answer.pages;
    if (page === 1) list.announced = answer.total;
    const { fresh, repeated } = takeFresh(name, answer.values, limits, list);
    onPage(page, pages);
    if (fresh.length) yield fresh;
    if (list.cutShort || !answer.values.length) return;
    if (repeated === answer.values.length) {
      list.cutShort = `page ${page} of the ${name} holds only items of earlier pages: it was read no further.`;
      return;
    }
  }
}

/**
 * The values of one page not given before, taken into the list up to its bound (`maxItems`), and
 * how many it had given before.
 */
function takeFresh(
  name: string,
  values: unknown[],
  limits: ImportLimits,
  list: ListReading,
): { fresh: unknown[]; repeated: number } {
  const fresh: unknown[] = [];
  let repeated = 0;
  for (const value of values) {
    const id = text((value as Raw | null)?.id) || undefined;
    // An item created there while we page moves the later ones down a page: seen twice.
    if (id !== undefined && list.ids.has(id)) {
      repeated++;
      continue;
    }
    if (list.taken >= limits.maxItems) {
      list.cutShort = `the ${name} holds more than ${limits.maxItems} items: the first ${limits.maxItems} were taken (--max-items).`;
      break;
    }
    if (id !== undefined) list.ids.add(id);
    list.taken++;
    fresh.push(value);
  }
  return { fresh, repeated };
}
