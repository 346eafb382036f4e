-- Each link to a venue, organizer or term carries its event's start while the event is listed
-- (published, not hidden), indexed after the venue, organizer or term: a filtered public list then
-- goes from the link straight to the events of its window, instead of through every event in the
-- window or every event of the venue. Triggers keep the copy equal to the event.

-- DropIndex
DROP INDEX "event_venues_venue_id_idx";

-- DropIndex
DROP INDEX "event_organizers_organizer_id_idx";

-- DropIndex
DROP INDEX "event_terms_term_id_idx";

-- AlterTable
ALTER TABLE "event_venues" ADD COLUMN     "listed_start_utc" TIMESTAMPTZ(0);

-- AlterTable
ALTER TABLE "event_organizers" ADD COLUMN     "listed_start_utc" TIMESTAMPTZ(0);

-- AlterTable
ALTER TABLE "event_terms" ADD COLUMN     "listed_start_utc" TIMESTAMPTZ(0);

-- CreateIndex
CREATE INDEX "event_venues_venue_id_listed_start_utc_event_id_idx" ON "event_venues"("venue_id", "listed_start_utc", "event_id");

-- CreateIndex
CREATE INDEX "event_organizers_organizer_id_listed_start_utc_event_id_idx" ON "event_organizers"("organizer_id", "listed_start_utc", "event_id");

-- CreateIndex
CREATE INDEX "event_terms_term_id_listed_start_utc_event_id_idx" ON "event_terms"("term_id", "listed_start_utc", "event_id");


CREATE FUNCTION "listed_start"(status "PostStatus", hidden BOOLEAN, start_utc TIMESTAMPTZ) RETURNS TIMESTAMPTZ
  LANGUAGE sql IMMUTABLE AS $$ SELECT CASE WHEN status = 'publish' AND NOT hidden THEN start_utc END $$;

-- A new link takes its event's listed start...
CREATE FUNCTION "link_takes_listed_start"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  SELECT "listed_start"(e."status", e."hide_from_listings", e."start_utc") INTO NEW."listed_start_utc"
  FROM "events" e WHERE e."id" = NEW."event_id";
  RETURN NEW;
END $$;

CREATE TRIGGER "event_venues_listed_start" BEFORE INSERT ON "event_venues" FOR EACH ROW EXECUTE FUNCTION "link_takes_listed_start"();
CREATE TRIGGER "event_organizers_listed_start" BEFORE INSERT ON "event_organizers" FOR EACH ROW EXECUTE FUNCTION "link_takes_listed_start"();
CREATE TRIGGER "event_terms_listed_start" BEFORE INSERT ON "event_terms" FOR EACH ROW EXECUTE FUNCTION "link_takes_listed_start"();

-- ...and follows it when the event moves, is published or unpublished, hidden or shown again.
CREATE FUNCTION "links_follow_listed_start"() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  ids INTEGER[];
  starts TIMESTAMPTZ[];
BEGIN
  SELECT array_agg(a."id"), array_agg("listed_start"(a."status", a."hide_from_listings", a."start_utc")) INTO ids, starts
  FROM added a JOIN removed r ON r."id" = a."id"
  WHERE "listed_start"(a."status", a."hide_from_listings", a."start_utc") IS DISTINCT FROM "listed_start"(r."status", r."hide_from_listings", r."start_utc");
  IF ids IS NOT NULL THEN
    UPDATE "event_venues" l SET "listed_start_utc" = c.listed FROM unnest(ids, starts) AS c(id, listed) WHERE l."event_id" = c.id;
    UPDATE "event_organizers" l SET "listed_start_utc" = c.listed FROM unnest(ids, starts) AS c(id, listed) WHERE l."event_id" = c.id;
    UPDATE "event_terms" l SET "listed_start_utc" = c.listed FROM unnest(ids, starts) AS c(id, listed) WHERE l."event_id" = c.id;
  END IF;
  RETURN NULL;
END $$;

CREATE TRIGGER "events_links_follow_listed_start" AFTER UPDATE ON "events"
  REFERENCING OLD TABLE AS removed NEW TABLE AS added FOR EACH STATEMENT EXECUTE FUNCTION "links_follow_listed_start"();

-- The links that exist already.
UPDATE "event_venues" l SET "listed_start_utc" = "listed_start"(e."status", e."hide_from_listings", e."start_utc") FROM "events" e WHERE e."id" = l."event_id";
UPDATE "event_organizers" l SET "listed_start_utc" = "listed_start"(e."status", e."hide_from_listings", e."start_utc") FROM "events" e WHERE e."id" = l."event_id";
UPDATE "event_terms" l SET "listed_start_utc" = "listed_start"(e."status", e."hide_from_listings", e."start_utc") FROM "events" e WHERE e."id" = l."event_id";
