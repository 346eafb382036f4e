-- Counts at commit. `terms.event_count` and `listed_events_per_day` are hot rows: every write to a
-- popular category or a busy day changes them. Changed by the statement that changed a link or an
-- event, their locks were taken in the middle of a transaction, in whatever order its statements
-- ran (a create took its day and then its terms, a trash its terms and then its day), and held to
-- its end: such writers deadlocked, and every writer of a day waited for the others' whole
-- transactions. Now `term_counts_add` and `listed_events_add`, which every trigger calls, only note
-- the change; a deferred trigger applies a transaction's changes when it commits, terms in ID order
-- and then days in date order. Counts are thus the last locks any transaction takes, always in one
-- order, held for an instant (docs/architecture.md, "Locks"). A write's own transaction reads the
-- counts as they were before it; its answer is read after the commit.

-- What a transaction changed and has not applied yet. Unlogged: a crash loses only the notes of
-- transactions that never committed.
CREATE UNLOGGED TABLE "pending_counts" (
  "xid" xid8 NOT NULL DEFAULT pg_current_xact_id(),
  "term_id" integer,
  "day" date,
  "delta" integer NOT NULL,
  CHECK (("term_id" IS NULL) <> ("day" IS NULL))
);
CREATE INDEX "pending_counts_xid_idx" ON "pending_counts" ("xid");

-- One row per transaction with notes, whose deferred trigger applies them once, at commit.
CREATE UNLOGGED TABLE "pending_counts_due" (
  "xid" xid8 PRIMARY KEY DEFAULT pg_current_xact_id()
);

CREATE OR REPLACE FUNCTION "term_counts_add"(term_ids INTEGER[], deltas INTEGER[]) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO "pending_counts" ("term_id", "delta") SELECT * FROM unnest(term_ids, deltas);
  INSERT INTO "pending_counts_due" DEFAULT VALUES ON CONFLICT DO NOTHING;
END $$;

CREATE OR REPLACE FUNCTION "listed_events_add"(days DATE[], deltas INTEGER[]) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO "pending_counts" ("day", "delta") SELECT * FROM unnest(days, deltas);
  INSERT INTO "pending_counts_due" DEFAULT VALUES ON CONFLICT DO NOTHING;
END $$;

CREATE FUNCTION "apply_pending_counts"() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  term_ids INTEGER[];
  term_deltas INTEGER[];
  days DATE[];
  day_deltas INTEGER[];
BEGIN
  DELETE FROM "pending_counts_due" WHERE "xid" = pg_current_xact_id();
  WITH mine AS (DELETE FROM "pending_counts" WHERE "xid" = pg_current_xact_id() RETURNING "term_id", "day", "delta"),
    terms AS (SELECT "term_id", sum("delta")::int AS delta FROM mine WHERE "term_id" IS NOT NULL
              GROUP BY "term_id" HAVING sum("delta") <> 0),
    dates AS (SELECT "day", sum("delta")::int AS delta FROM mine WHERE "day" IS NOT NULL
              GROUP BY "day" HAVING sum("delta") <> 0)
  SELECT (SELECT array_agg("term_id" ORDER BY "term_id") FROM terms), (SELECT array_agg(delta ORDER BY "term_id") FROM terms),
         (SELECT array_agg("day" ORDER BY "day") FROM dates), (SELECT array_agg(delta ORDER BY "day") FROM dates)
    INTO term_ids, term_deltas, days, day_deltas;
  IF term_ids IS NOT NULL THEN
    PERFORM 1 FROM "terms" WHERE "id" = ANY(term_ids) ORDER BY "id" FOR NO KEY UPDATE;
    UPDATE "terms" t SET "event_count" = t."event_count" + d.delta
    FROM unnest(term_ids, term_deltas) AS d(term_id, delta) WHERE t."id" = d.term_id;
  END IF;
  IF days IS NOT NULL THEN
    INSERT INTO "listed_events_per_day" AS c ("day", "events")
      SELECT d.day, d.delta FROM unnest(days, day_deltas) AS d(day, delta) ORDER BY d.day
    ON CONFLICT ("day") DO UPDATE SET "events" = c."events" + excluded."events";
  END IF;
  RETURN NULL;
END $$;

CREATE CONSTRAINT TRIGGER "pending_counts_apply" AFTER INSERT ON "pending_counts_due"
  DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION "apply_pending_counts"();
