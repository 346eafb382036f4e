-- The public event list (published, not hidden from listings) in start order, for the default
-- list's page and for counting the events of one day; partial, so it holds only what that list shows.
-- Totals of that list sum whole days from listed_events_per_day, which these triggers keep.

-- CreateTable
CREATE TABLE "listed_events_per_day" (
    "day" DATE NOT NULL,
    "events" INTEGER NOT NULL,

    CONSTRAINT "listed_events_per_day_pkey" PRIMARY KEY ("day")
);

CREATE INDEX "events_listed_start_utc_id_idx" ON "events" ("start_utc", "id")
  WHERE "status" = 'publish' AND NOT "hide_from_listings";

-- Adds `delta` events on each day of `days` (which may repeat), locking the days in date order so
-- that concurrent writers cannot deadlock; increments stay right when they run at once.
CREATE FUNCTION "listed_events_add"(days DATE[], deltas INTEGER[]) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO "listed_events_per_day" AS c ("day", "events")
    SELECT d.day, sum(d.delta)::int FROM unnest(days, deltas) AS d(day, delta)
    GROUP BY d.day HAVING sum(d.delta) <> 0 ORDER BY d.day
  ON CONFLICT ("day") DO UPDATE SET "events" = c."events" + excluded."events";
END $$;

CREATE FUNCTION "listed_events_changed"() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  days DATE[] := '{}';
  deltas INTEGER[] := '{}';
  more_days DATE[];
  more_deltas INTEGER[];
BEGIN
  IF TG_OP IN ('UPDATE', 'DELETE') THEN
    SELECT coalesce(array_agg(("start_utc" AT TIME ZONE 'UTC')::date), '{}'), coalesce(array_agg(-1), '{}') INTO days, deltas
    FROM removed WHERE "status" = 'publish' AND NOT "hide_from_listings";
  END IF;
  IF TG_OP IN ('UPDATE', 'INSERT') THEN
    SELECT coalesce(array_agg(("start_utc" AT TIME ZONE 'UTC')::date), '{}'), coalesce(array_agg(1), '{}') INTO more_days, more_deltas
    FROM added WHERE "status" = 'publish' AND NOT "hide_from_listings";
    days := days || more_days;
    deltas := deltas || more_deltas;
  END IF;
  IF cardinality(days) > 0 THEN
    PERFORM "listed_events_add"(days, deltas);
  END IF;
  RETURN NULL;
END $$;

CREATE TRIGGER "events_listed_added" AFTER INSERT ON "events"
  REFERENCING NEW TABLE AS added FOR EACH STATEMENT EXECUTE FUNCTION "listed_events_changed"();
CREATE TRIGGER "events_listed_changed" AFTER UPDATE ON "events"
  REFERENCING OLD TABLE AS removed NEW TABLE AS added FOR EACH STATEMENT EXECUTE FUNCTION "listed_events_changed"();
CREATE TRIGGER "events_listed_removed" AFTER DELETE ON "events"
  REFERENCING OLD TABLE AS removed FOR EACH STATEMENT EXECUTE FUNCTION "listed_events_changed"();

-- The events that exist already.
INSERT INTO "listed_events_per_day" ("day", "events")
  SELECT ("start_utc" AT TIME ZONE 'UTC')::date, count(*)::int FROM "events"
  WHERE "status" = 'publish' AND NOT "hide_from_listings" GROUP BY 1;
