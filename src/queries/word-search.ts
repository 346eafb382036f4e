// Search by words (docs/decisions.md, "Search"): every word of the search must begin a word of an
// item's searchable text, in any order, compared after `search_vector` (migration
// word_prefix_search) folds case and accents and splits the text into words. The vectors here are
// the ones that migration indexes, character for character, so that the planner uses those indexes.
import { Prisma } from '../../generated/prisma/client.js';
import { likeEscaped } from '../lib/like.js';

const sql = Prisma.sql;

/** Words beyond these add cost and little precision. */
export const MAX_SEARCH_WORDS = 8;

/** The distinct words of a search, in order, at most MAX_SEARCH_WORDS. */
export function searchWords(search: string): string[] {
  const words = search.split(/\s+/).filter(Boolean);
  return [...new Set(words)].slice(0, MAX_SEARCH_WORDS);
}

/** A searchable text: its words as indexed, and the text itself (unfolded). */
export interface SearchedText {
  vector: Prisma.Sql;
  text: Prisma.Sql;
}

const searched = (text: Prisma.Sql, vector = sql`search_vector(${text})`): SearchedText => ({ vector, text });

/** An event's (alias e) title and description; its words stored in events.search_vector, as events_search_idx indexes them. */
export const EVENT_TEXT = searched(sql`(e.title || ' ' || coalesce(e.description, ''))`, sql`e.search_vector`);

/** The same text of a series (alias s). */
const SERIES_TEXT = searched(sql`(s.title || ' ' || coalesce(s.description, ''))`, sql`s.search_vector`);

/**
 * An event (alias e) holds every word: in its own text, or, for an occurrence that shows its series'
 * description (migration series_own_their_occurrences), in the series' text. The series are found
 * first, on the index, so that both halves can be read off indexes (events_search_idx, and the one
 * on parent_id).
 */
export function eventHoldsEveryWord(words: string[]): Prisma.Sql {
  return sql`(${holdsEveryWord(EVENT_TEXT, words)} OR (e.description IS NULL AND e.parent_id = ANY(ARRAY(
    SELECT s.id FROM events s WHERE s.recurrence <> '{}' AND ${holdsEveryWord(SERIES_TEXT, words)}))))`;
}

/** An event's (alias e) title alone. */
export const EVENT_TITLE = searched(sql`e.title`);

/** A venue's (alias p) searchable text, as venues_search_idx indexes it. */
export const VENUE_TEXT =
  searched(sql`p.name || ' ' || p.description || ' ' || p.excerpt || ' ' || p.address || ' ' || p.city || ' ' ||
  p.country || ' ' || p.province || ' ' || p.state || ' ' || p.stateprovince || ' ' || p.zip || ' ' ||
  p.phone`);

/** An organizer's (alias p) searchable text, as organizers_search_idx indexes it. */
export const ORGANIZER_TEXT =
  searched(sql`p.name || ' ' || p.description || ' ' || p.excerpt || ' ' || p.phone || ' ' || p.email || ' ' ||
  p.website`);

/** Whether a word has a letter or digit, that is, words of its own for search_vector. */
const hasWords = (word: string) => /[\p{L}\p{N}]/u.test(word);

/** Whether a word has anything besides letters and digits (punctuation, symbols). */
const hasPunctuation = (word: string) => /[^\p{L}\p{M}\p{N}]/u.test(word);

/**
 * Every word begins a word of the text. A word with punctuation ("100%", "late-night", "_p%") must
 * also occur in the folded text as typed, tested row by row after the index has narrowed the rows:
 * the index splits words at punctuation, and "_p%" is not any word beginning with "p". A word of
 * punctuation alone ("%") begins no word: a search of nothing else matches nothing, without the
 * reading of every text that testing it would take (docs/decisions.md, "Event list filters").
 */
export function holdsEveryWord(target: SearchedText, words: string[]): Prisma.Sql {
  const indexed = words.filter(hasWords);
  if (!indexed.length) return sql`false`;
  const conditions = [sql`${target.vector} @@ search_query(${indexed.join(' ')}::text)`];
  for (const word of indexed.filter(hasPunctuation)) {
    conditions.push(sql`search_text(${target.text}) LIKE ('%' || search_text(${likeEscaped(word)}::text) || '%')`);
  }
  return Prisma.join(conditions, ' AND ');
}
