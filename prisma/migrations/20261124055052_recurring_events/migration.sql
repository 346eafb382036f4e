-- Recurring events (docs/decisions.md, "Recurring events"): a series is an event row holding its
-- RFC 5545 lines in "recurrence"; each occurrence is an event row whose parent is the series, named
-- in it by its original start (unique, so that two writers expanding one series cannot both add an
-- occurrence). The series row stands for the rule, not for a date: lists show its occurrences
-- instead, so it is not listed, not counted per day and not counted in its terms' counts.

-- DropForeignKey
ALTER TABLE "events" DROP CONSTRAINT "events_parent_id_fkey";

-- DropIndex
DROP INDEX "events_parent_id_idx";

-- AlterTable
ALTER TABLE "events" ADD COLUMN     "expanded_until_local" TIMESTAMP(0),
ADD COLUMN     "is_exception" BOOLEAN NOT NULL DEFAULT false,
ADD COLUMN     "original_start_local" TIMESTAMP(0),
ADD COLUMN     "recurrence" TEXT[] NOT NULL DEFAULT ARRAY[]::TEXT[];

-- CreateIndex
CREATE UNIQUE INDEX "events_parent_id_original_start_local_key" ON "events"("parent_id", "original_start_local");

-- AddForeignKey
ALTER TABLE "events" ADD CONSTRAINT "events_parent_id_fkey" FOREIGN KEY ("parent_id") REFERENCES "events"("id") ON DELETE CASCADE ON UPDATE CASCADE;


-- What the public list shows: published, not hidden, not a series (whose occurrences are listed).
DROP INDEX "events_listed_start_utc_id_idx";
CREATE INDEX "events_listed_start_utc_id_idx" ON "events" ("start_utc", "id")
  WHERE "status" = 'publish' AND NOT "hide_from_listings" AND "recurrence" = '{}';

CREATE OR REPLACE FUNCTION "listed_events_changed"() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  days DATE[] := '{}';
  deltas INTEGER[] := '{}';
  more_days DATE[];
  more_deltas INTEGER[];
BEGIN
  IF TG_OP IN ('UPDATE', 'DELETE') THEN
    SELECT coalesce(array_agg(("start_utc" AT TIME ZONE 'UTC')::date), '{}'), coalesce(array_agg(-1), '{}') INTO days, deltas
    FROM removed WHERE "status" = 'publish' AND NOT "hide_from_listings" AND "recurrence" = '{}';
  END IF;
  IF TG_OP IN ('UPDATE', 'INSERT') THEN
    SELECT coalesce(array_agg(("start_utc" AT TIME ZONE 'UTC')::date), '{}'), coalesce(array_agg(1), '{}') INTO more_days, more_deltas
    FROM added WHERE "status" = 'publish' AND NOT "hide_from_listings" AND "recurrence" = '{}';
    days := days || more_days;
    deltas := deltas || more_deltas;
  END IF;
  IF cardinality(days) > 0 THEN
    PERFORM "listed_events_add"(days, deltas);
  END IF;
  RETURN NULL;
END $$;

-- Links carry the listed start of their event: a series is "hidden" for them.
CREATE OR REPLACE FUNCTION "link_takes_listed_start"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  SELECT "listed_start"(e."status", e."hide_from_listings" OR e."recurrence" <> '{}', e."start_utc") INTO NEW."listed_start_utc"
  FROM "events" e WHERE e."id" = NEW."event_id";
  RETURN NEW;
END $$;

CREATE OR REPLACE FUNCTION "links_follow_listed_start"() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  ids INTEGER[];
  starts TIMESTAMPTZ[];
BEGIN
  SELECT array_agg(a."id"), array_agg("listed_start"(a."status", a."hide_from_listings" OR a."recurrence" <> '{}', a."start_utc")) INTO ids, starts
  FROM added a JOIN removed r ON r."id" = a."id"
  WHERE "listed_start"(a."status", a."hide_from_listings" OR a."recurrence" <> '{}', a."start_utc")
    IS DISTINCT FROM "listed_start"(r."status", r."hide_from_listings" OR r."recurrence" <> '{}', r."start_utc");
  IF ids IS NOT NULL THEN
    UPDATE "event_venues" l SET "listed_start_utc" = c.listed FROM unnest(ids, starts) AS c(id, listed) WHERE l."event_id" = c.id;
    UPDATE "event_organizers" l SET "listed_start_utc" = c.listed FROM unnest(ids, starts) AS c(id, listed) WHERE l."event_id" = c.id;
    UPDATE "event_terms" l SET "listed_start_utc" = c.listed FROM unnest(ids, starts) AS c(id, listed) WHERE l."event_id" = c.id;
  END IF;
  RETURN NULL;
END $$;

-- A term counts the published events that carry it; a series counts through its occurrences.
CREATE OR REPLACE FUNCTION "term_counts_links_changed"() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  ids INTEGER[];
  deltas INTEGER[];
BEGIN
  IF TG_OP = 'INSERT' THEN
    SELECT array_agg(l."term_id"), array_agg(l.n) INTO ids, deltas FROM (
      SELECT a."term_id", count(*)::int AS n FROM added a JOIN "events" e ON e."id" = a."event_id"
      WHERE e."status" = 'publish' AND e."recurrence" = '{}' GROUP BY a."term_id") l;
  ELSE
    -- When an event is deleted, its links go by cascade after it: its own trigger took them off.
    SELECT array_agg(l."term_id"), array_agg(-l.n) INTO ids, deltas FROM (
      SELECT r."term_id", count(*)::int AS n FROM removed r JOIN "events" e ON e."id" = r."event_id"
      WHERE e."status" = 'publish' AND e."recurrence" = '{}' GROUP BY r."term_id") l;
  END IF;
  IF ids IS NOT NULL THEN
    PERFORM "term_counts_add"(ids, deltas);
  END IF;
  RETURN NULL;
END $$;

CREATE OR REPLACE FUNCTION "term_counts_event_changed"() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  was BOOLEAN := TG_OP <> 'INSERT' AND OLD."status" = 'publish' AND OLD."recurrence" = '{}';
  now_published BOOLEAN := TG_OP = 'UPDATE' AND NEW."status" = 'publish' AND NEW."recurrence" = '{}';
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

DROP TRIGGER "events_status_changed" ON "events";
CREATE TRIGGER "events_status_changed" AFTER UPDATE OF "status", "recurrence" ON "events"
  FOR EACH ROW EXECUTE FUNCTION "term_counts_event_changed"();

-- Series whose horizon housekeeping extends.
CREATE INDEX "events_series_expanded_until_local_idx" ON "events" ("expanded_until_local") WHERE "recurrence" <> '{}';
