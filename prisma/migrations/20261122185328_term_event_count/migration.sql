-- A term's count is the number of published events that carry it. Counting them on every read
-- joined every link of every term; the column keeps the number instead, as WordPress keeps
-- term_taxonomy.count, and these triggers keep it right on every change of a link or of an event's
-- status. Increments (never recounts) stay right when two transactions change one term at once;
-- the rows are locked in ID order first so that such transactions cannot deadlock.

-- AlterTable
ALTER TABLE "terms" ADD COLUMN     "event_count" INTEGER NOT NULL DEFAULT 0;

CREATE FUNCTION "term_counts_add"(term_ids INTEGER[], deltas INTEGER[]) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  PERFORM 1 FROM "terms" WHERE "id" = ANY(term_ids) ORDER BY "id" FOR NO KEY UPDATE;
  UPDATE "terms" t SET "event_count" = t."event_count" + d.delta
  FROM unnest(term_ids, deltas) AS d(term_id, delta) WHERE t."id" = d.term_id;
END $$;

-- Links added or removed, one statement at a time; only links of published events count.
CREATE FUNCTION "term_counts_links_changed"() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  ids INTEGER[];
  deltas INTEGER[];
BEGIN
  IF TG_OP = 'INSERT' THEN
    SELECT array_agg(l."term_id"), array_agg(l.n) INTO ids, deltas FROM (
      SELECT a."term_id", count(*)::int AS n FROM added a JOIN "events" e ON e."id" = a."event_id"
      WHERE e."status" = 'publish' GROUP BY a."term_id") l;
  ELSE
    -- When an event is deleted, its links go by cascade after it: its own trigger took them off.
    SELECT array_agg(l."term_id"), array_agg(-l.n) INTO ids, deltas FROM (
      SELECT r."term_id", count(*)::int AS n FROM removed r JOIN "events" e ON e."id" = r."event_id"
      WHERE e."status" = 'publish' GROUP BY r."term_id") l;
  END IF;
  IF ids IS NOT NULL THEN
    PERFORM "term_counts_add"(ids, deltas);
  END IF;
  RETURN NULL;
END $$;

CREATE TRIGGER "event_terms_added" AFTER INSERT ON "event_terms"
  REFERENCING NEW TABLE AS added FOR EACH STATEMENT EXECUTE FUNCTION "term_counts_links_changed"();
CREATE TRIGGER "event_terms_removed" AFTER DELETE ON "event_terms"
  REFERENCING OLD TABLE AS removed FOR EACH STATEMENT EXECUTE FUNCTION "term_counts_links_changed"();

-- An event published, unpublished or deleted adds or takes one from each of its terms.
CREATE FUNCTION "term_counts_event_changed"() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  was BOOLEAN := TG_OP <> 'INSERT' AND OLD."status" = 'publish';
  now_published BOOLEAN := TG_OP = 'UPDATE' AND NEW."status" = 'publish';
  ids INTEGER[];
BEGIN
  IF was <> now_published THEN
    SELECT array_agg("term_id") INTO ids FROM "event_terms" WHERE "event_id" = OLD."id";
    IF ids IS NOT NULL THEN
      PERFORM "term_counts_add"(ids, array_fill(CASE WHEN now_published THEN 1 ELSE -1 END, ARRAY[cardinality(ids)]));
    END IF;
  END IF;
  RETURN CASE WHEN TG_OP = 'DELETE' THEN OLD ELSE NEW END;
END $$;

CREATE TRIGGER "events_status_changed" AFTER UPDATE OF "status" ON "events"
  FOR EACH ROW EXECUTE FUNCTION "term_counts_event_changed"();
CREATE TRIGGER "events_deleted" BEFORE DELETE ON "events"
  FOR EACH ROW EXECUTE FUNCTION "term_counts_event_changed"();

-- The counts of the links that exist already.
UPDATE "terms" t SET "event_count" = c.n FROM (
  SELECT et."term_id", count(*)::int AS n FROM "event_terms" et JOIN "events" e ON e."id" = et."event_id"
  WHERE e."status" = 'publish' GROUP BY et."term_id") c
WHERE t."id" = c."term_id";
