-- Search by words, in any order, case- and accent-insensitive ("night jazz" finds "Jazz Night",
-- "unicode" finds "ünïcødé"): each word must occur somewhere in an item's searchable text, compared
-- after `search_text` folds case and accents. Trigram indexes on that text serve such substring
-- tests (`LIKE '%word%'`, words of three characters or more) at any size of calendar. Events keep
-- their folded text in a stored column: a search that matches a tenth of 100,000 events rechecks
-- each match, and folding the text again for each took 12 times as long (173 ms against 14 ms).
-- Event reads leave the column out (src/queries/event-rows.ts); Prisma does not know it.
-- Both extensions are trusted: a database's owner may create them (PGlite loads them at start,
-- src/db/client.ts).
CREATE EXTENSION IF NOT EXISTS unaccent;
CREATE EXTENSION IF NOT EXISTS pg_trgm;

-- unaccent() is only STABLE (its dictionary could change); naming the dictionary makes the result
-- depend on the text alone, which an index needs.
CREATE FUNCTION "search_text"(text) RETURNS text LANGUAGE sql IMMUTABLE PARALLEL SAFE STRICT
  AS $$ SELECT lower(public.unaccent('public.unaccent'::regdictionary, $1)) $$;

ALTER TABLE "events" ADD COLUMN "search_document" text
  GENERATED ALWAYS AS ("search_text"("title" || ' ' || "description")) STORED;
CREATE INDEX "events_search_trgm_idx" ON "events" USING gin ("search_document" gin_trgm_ops);

CREATE INDEX "venues_search_trgm_idx" ON "venues" USING gin ("search_text"(
  "name" || ' ' || "description" || ' ' || "excerpt" || ' ' || "address" || ' ' || "city" || ' ' ||
  "country" || ' ' || "province" || ' ' || "state" || ' ' || "stateprovince" || ' ' || "zip" || ' ' ||
  "phone") gin_trgm_ops);

CREATE INDEX "organizers_search_trgm_idx" ON "organizers" USING gin ("search_text"(
  "name" || ' ' || "description" || ' ' || "excerpt" || ' ' || "phone" || ' ' || "email" || ' ' ||
  "website") gin_trgm_ops);
