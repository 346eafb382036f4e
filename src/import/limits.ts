// How much one import takes from a source, whatever the source claims: a site announcing a billion
// pages, or a page of new items for ever, ends at these bounds (docs/decisions.md, "Import"); each
// end is reported. `npm run import -- ... --max-pages N --max-items N --max-links N` sets them.
export interface ImportLimits {
  /** Pages read of each of a site's lists. */
  maxPages: number;
  /** Items taken of each kind (a site's list, a file's VEVENTs). */
  maxItems: number;
  /** Items one item may name of each kind (an event's categories, tags, organizers). */
  maxLinks: number;
}

/**
 * Far above a real calendar (a site's 50 items per page make 100,000 of each kind), far below what
 * would fill the memory: what a run holds grows only with the IDs it has seen, a few dozen bytes each.
 */
export const DEFAULT_LIMITS: ImportLimits = { maxPages: 2000, maxItems: 100_000, maxLinks: 20 };
