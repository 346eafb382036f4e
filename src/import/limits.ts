// How much one import takes from a source, whatever the source claims: a site announcing a billion
// pages, or a page of new items for ever, ends at these bounds (docs/decisions.md, "Import"); each
// end is reported. `npm run import -- ... --max-pages N --max-items N --max-links N` sets them.
//
// A file's VEVENTs and what each names are bounded by the iCalendar reader's limits, which the
// other doors that read iCalendar (CalDAV) set too; a site's lists take the same two, and pages.
import type { ReadLimits } from '../ical/read-calendar.js';

export interface ImportLimits extends ReadLimits {
  /** Pages read of each of a site's lists. */
  maxPages: number;
}

/**
 * Far above a real calendar (a site's 50 items per page make 100,000 of each kind), far below what
 * would fill the memory: what a run holds grows only with the IDs it has seen, a few dozen bytes each.
 */
export const DEFAULT_LIMITS: ImportLimits = { maxPages: 2000, maxItems: 100_000, maxLinks: 20 };
