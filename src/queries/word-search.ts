// Search by words (docs/decisions.md, "Search"): every word of the search must occur in an item's
// searchable text, in any order, compared after `search_text` (migration word_search) folds case and
// accents. The text expressions here are the ones the migration indexes with trigrams, character
// for character, so that the planner can use those indexes.
import { Prisma as PrismaNS } from '../../generated/prisma/client.js';
import { likeEscaped } from '../lib/like.js';

const sql = PrismaNS.sql;

/** Words beyond these add cost and little precision. */
export const MAX_SEARCH_WORDS = 8;

/** The distinct words of a search, in order, at most MAX_SEARCH_WORDS. */
export function searchWords(search: string): string[] {
  const words = search.split(/\s+/).filter(Boolean);
  return [...new Set(words)].slice(0, MAX_SEARCH_WORDS);
}

/** The event's searchable text, folded and stored (events.search_document), as events_search_trgm_idx indexes it. */
export const EVENT_TEXT = sql`e.search_document`;

/** A venue's (alias p) searchable text, as venues_search_trgm_idx indexes it. */
export const VENUE_TEXT = sql`search_text(p.name || ' ' || p.description || ' ' || p.excerpt || ' ' || p.address || ' ' || p.city || ' ' ||
  p.country || ' ' || p.province || ' ' || p.state || ' ' || p.stateprovince || ' ' || p.zip || ' ' ||
  p.phone)`;

/** An organizer's (alias p) searchable text, as organizers_search_trgm_idx indexes it. */
export const ORGANIZER_TEXT = sql`search_text(p.name || ' ' || p.description || ' ' || p.excerpt || ' ' || p.phone || ' ' || p.email || ' ' ||
  p.website)`;

/** Every word occurs in `text` (a folded text expression). */
export function holdsEveryWord(text: PrismaNS.Sql, words: string[]): PrismaNS.Sql {
  return PrismaNS.join(
    words.map((word) => sql`${text} LIKE ('%' || search_text(${likeEscaped(word)}::text) || '%')`),
    ' AND ',
  );
}
