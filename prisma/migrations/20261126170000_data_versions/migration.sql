-- Data versions. An answer to an anonymous read is sent again only while the data it was built from
-- is unchanged (src/http/answer-cache.ts), on every instance. What says so: the sum of
-- `data_versions.version`, which every transaction that writes a table answers are built from raises
-- by one when it commits, in the same commit as its rows. A request that reads the same sum as an
-- answer was kept with sees the same rows (src/db/data-version.ts).
--
-- One row per database backend (connection): a backend runs one transaction at a time, so no two
-- transactions ever raise the same row, and the raise never waits for a lock (it is the last thing
-- a transaction does, after the counts of 20261124190000_counts_at_commit, in whatever order).
-- Housekeeping folds the rows of backends that are gone into the row of backend 0 (src/db/housekeeping.ts),
-- which leaves the sum as it was.
CREATE TABLE "data_versions" (
  "backend" integer PRIMARY KEY,
  "version" bigint NOT NULL
);
INSERT INTO "data_versions" ("backend", "version") VALUES (0, 0);

-- Transactions that changed data and have not raised their version yet. Unlogged, as the pending
-- counts: a crash loses only the rows of transactions that never committed.
CREATE UNLOGGED TABLE "data_changes_due" (
  "xid" xid8 PRIMARY KEY DEFAULT pg_current_xact_id()
);

-- Called once per statement; only a transaction's first call writes (the setting is local to the
-- transaction, and undone with it or with its savepoint).
CREATE FUNCTION "data_changed"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF current_setting('calendar.data_changed', true) IS DISTINCT FROM 'yes' THEN
    PERFORM set_config('calendar.data_changed', 'yes', true);
    INSERT INTO "data_changes_due" DEFAULT VALUES ON CONFLICT DO NOTHING;
  END IF;
  RETURN NULL;
END $$;

CREATE FUNCTION "raise_data_version"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM "data_changes_due" WHERE "xid" = pg_current_xact_id();
  INSERT INTO "data_versions" AS v ("backend", "version") VALUES (pg_backend_pid(), 1)
    ON CONFLICT ("backend") DO UPDATE SET "version" = v."version" + 1;
  RETURN NULL;
END $$;

CREATE CONSTRAINT TRIGGER "data_changes_raise" AFTER INSERT ON "data_changes_due"
  DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION "raise_data_version"();

-- Every table an answer is built from. Not: credentials, throttles, rate limits, quotas,
-- idempotency keys, webhooks (never answered to anonymous callers) and the bookkeeping tables of
-- counts and versions (test/http/kept-answers.test.ts holds this list to the schema).
DO $$
DECLARE
  watched text;
BEGIN
  FOREACH watched IN ARRAY ARRAY['users', 'events', 'venues', 'organizers', 'terms', 'event_venues',
    'event_organizers', 'event_terms', 'listed_events_per_day', 'changes', 'changes_pruned', 'imported_items']
  LOOP
    EXECUTE format('CREATE TRIGGER %I AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON %I FOR EACH STATEMENT EXECUTE FUNCTION "data_changed"()',
      watched || '_data_changed', watched);
  END LOOP;
END $$;
