-- The change feed (docs/decisions.md, "Changes"): every write that changes what a reader of an
-- event, venue, organizer, category or tag sees appends a change in the same transaction, from
-- triggers, so that no write path can forget it and nothing is recorded for a write that rolls back.
--
-- Order. A sequence number alone is not a safe cursor: a transaction may take number 10, another
-- number 11 and commit first, and a reader who has seen 11 would never see 10. Each change also
-- holds the ID of its transaction (`xid`), and the feed (src/queries/changes.ts) gives only changes
-- of transactions older than every transaction still running (the snapshot's xmin): no change can
-- ever appear before one already given. The feed's order is (xid, seq).
--
-- One change per object and transaction: an event created with its venue and terms is one
-- `created`, not a `created` and three `updated`. The stronger action wins (deleted > trashed >
-- created > updated), whatever order the triggers of one statement fire in.
CREATE TABLE "changes" (
  "seq" bigserial PRIMARY KEY,
  "xid" xid8 NOT NULL DEFAULT pg_current_xact_id(),
  "object_type" text NOT NULL CHECK ("object_type" IN ('event', 'venue', 'organizer', 'category', 'tag')),
  "object_id" integer NOT NULL,
  "action" text NOT NULL CHECK ("action" IN ('created', 'updated', 'trashed', 'deleted')),
  -- The object's modification time when the change was recorded: its version.
  "modified_at" timestamptz(3) NOT NULL,
  "recorded_at" timestamptz(3) NOT NULL DEFAULT clock_timestamp()
);
CREATE UNIQUE INDEX "changes_one_per_transaction" ON "changes" ("xid", "object_type", "object_id");
CREATE INDEX "changes_position" ON "changes" ("xid", "seq");
CREATE INDEX "changes_recorded_at" ON "changes" ("recorded_at");

-- Where the retained feed begins: housekeeping deletes changes older than the retention and moves
-- this mark past them; a cursor before it answers 410 (the client must copy everything again).
CREATE TABLE "changes_pruned" (
  "only" boolean PRIMARY KEY DEFAULT true CHECK ("only"),
  "xid" xid8 NOT NULL,
  "seq" bigint NOT NULL
);
INSERT INTO "changes_pruned" ("xid", "seq") VALUES ('0', 0);

CREATE FUNCTION "record_change"(kind text, id integer, act text, modified timestamptz) RETURNS void
LANGUAGE sql AS $$
  INSERT INTO changes (object_type, object_id, action, modified_at) VALUES (kind, id, act, modified)
  ON CONFLICT (xid, object_type, object_id) DO UPDATE SET
    action = CASE
      WHEN array_position(ARRAY['updated', 'created', 'trashed', 'deleted'], EXCLUDED.action)
         > array_position(ARRAY['updated', 'created', 'trashed', 'deleted'], changes.action)
      THEN EXCLUDED.action ELSE changes.action END,
    modified_at = greatest(changes.modified_at, EXCLUDED.modified_at)
$$;

-- Events, venues and organizers: created, updated, trashed (status to `trash`), deleted.
CREATE FUNCTION "post_changed"() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  kind text := TG_ARGV[0];
BEGIN
  IF TG_OP = 'INSERT' THEN
    PERFORM record_change(kind, NEW.id, 'created', NEW.modified_at);
  ELSIF TG_OP = 'DELETE' THEN
    PERFORM record_change(kind, OLD.id, 'deleted', OLD.modified_at);
  ELSE
    PERFORM record_change(kind, NEW.id,
      CASE WHEN NEW.status = 'trash' AND OLD.status <> 'trash' THEN 'trashed' ELSE 'updated' END, NEW.modified_at);
  END IF;
  RETURN NULL;
END $$;

-- An event shows its venues and organizers whole: a change of one is a change of its events.
CREATE FUNCTION "linked_post_changed"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_TABLE_NAME = 'venues' THEN
    PERFORM record_change('event', e.id, 'updated', e.modified_at)
      FROM event_venues l JOIN events e ON e.id = l.event_id WHERE l.venue_id = NEW.id;
  ELSE
    PERFORM record_change('event', e.id, 'updated', e.modified_at)
      FROM event_organizers l JOIN events e ON e.id = l.event_id WHERE l.organizer_id = NEW.id;
  END IF;
  RETURN NULL;
END $$;

CREATE FUNCTION "term_kind"(taxonomy "Taxonomy") RETURNS text LANGUAGE sql IMMUTABLE
  AS $$ SELECT CASE WHEN taxonomy = 'tribe_events_cat' THEN 'category' ELSE 'tag' END $$;

-- Categories and tags: created, updated (their event count included: it is part of what they
-- show), deleted.
CREATE FUNCTION "term_changed"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    PERFORM record_change(term_kind(NEW.taxonomy), NEW.id, 'created', NEW.modified_at);
  ELSIF TG_OP = 'DELETE' THEN
    PERFORM record_change(term_kind(OLD.taxonomy), OLD.id, 'deleted', OLD.modified_at);
  ELSE
    PERFORM record_change(term_kind(NEW.taxonomy), NEW.id, 'updated', NEW.modified_at);
  END IF;
  RETURN NULL;
END $$;

-- An event shows its terms' names, slugs and paths (a category's URL holds its ancestors' slugs),
-- and their counts; the counts are left out here: a count changes with every other event that
-- carries the term, and a change of one event would become a change of thousands. A copy reads
-- counts off the terms' own changes (docs/decisions.md, "Changes"). A new slug or parent also
-- changes the path of every category below, and what their events show.
CREATE FUNCTION "term_below"(root integer, deep boolean) RETURNS SETOF integer LANGUAGE sql STABLE AS $$
  WITH RECURSIVE below(id) AS (
    SELECT root
    UNION SELECT t.id FROM terms t JOIN below b ON t.parent_id = b.id WHERE deep)
  SELECT id FROM below
$$;

CREATE FUNCTION "term_shown_changed"() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  deep boolean := (OLD.slug, OLD.parent_id) IS DISTINCT FROM (NEW.slug, NEW.parent_id);
BEGIN
  PERFORM record_change(term_kind(t.taxonomy), t.id, 'updated', t.modified_at)
    FROM terms t WHERE deep AND t.id IN (SELECT term_below(NEW.id, deep)) AND t.id <> NEW.id;
  PERFORM record_change('event', e.id, 'updated', e.modified_at)
    FROM event_terms l JOIN events e ON e.id = l.event_id WHERE l.term_id IN (SELECT term_below(NEW.id, deep));
  RETURN NULL;
END $$;

-- A link added, removed or reordered changes its event (one removed with its event changes nothing).
CREATE FUNCTION "event_link_changed"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM record_change('event', e.id, 'updated', e.modified_at)
    FROM events e WHERE e.id = CASE WHEN TG_OP = 'DELETE' THEN OLD.event_id ELSE NEW.event_id END;
  RETURN NULL;
END $$;

CREATE TRIGGER "events_changed" AFTER INSERT OR DELETE ON "events" FOR EACH ROW EXECUTE FUNCTION post_changed('event');
CREATE TRIGGER "events_updated" AFTER UPDATE ON "events" FOR EACH ROW WHEN (OLD.* IS DISTINCT FROM NEW.*)
  EXECUTE FUNCTION post_changed('event');
CREATE TRIGGER "venues_changed" AFTER INSERT OR DELETE ON "venues" FOR EACH ROW EXECUTE FUNCTION post_changed('venue');
CREATE TRIGGER "venues_updated" AFTER UPDATE ON "venues" FOR EACH ROW WHEN (OLD.* IS DISTINCT FROM NEW.*)
  EXECUTE FUNCTION post_changed('venue');
CREATE TRIGGER "venues_shown_changed" AFTER UPDATE ON "venues" FOR EACH ROW WHEN (OLD.* IS DISTINCT FROM NEW.*)
  EXECUTE FUNCTION linked_post_changed();
CREATE TRIGGER "organizers_changed" AFTER INSERT OR DELETE ON "organizers" FOR EACH ROW EXECUTE FUNCTION post_changed('organizer');
CREATE TRIGGER "organizers_updated" AFTER UPDATE ON "organizers" FOR EACH ROW WHEN (OLD.* IS DISTINCT FROM NEW.*)
  EXECUTE FUNCTION post_changed('organizer');
CREATE TRIGGER "organizers_shown_changed" AFTER UPDATE ON "organizers" FOR EACH ROW WHEN (OLD.* IS DISTINCT FROM NEW.*)
  EXECUTE FUNCTION linked_post_changed();
CREATE TRIGGER "terms_changed" AFTER INSERT OR DELETE ON "terms" FOR EACH ROW EXECUTE FUNCTION term_changed();
CREATE TRIGGER "terms_updated" AFTER UPDATE ON "terms" FOR EACH ROW WHEN (OLD.* IS DISTINCT FROM NEW.*)
  EXECUTE FUNCTION term_changed();
CREATE TRIGGER "terms_shown_changed" AFTER UPDATE ON "terms" FOR EACH ROW
  WHEN ((OLD.name, OLD.slug, OLD.description, OLD.parent_id) IS DISTINCT FROM (NEW.name, NEW.slug, NEW.description, NEW.parent_id))
  EXECUTE FUNCTION term_shown_changed();
CREATE TRIGGER "event_venues_changed" AFTER INSERT OR DELETE ON "event_venues" FOR EACH ROW EXECUTE FUNCTION event_link_changed();
CREATE TRIGGER "event_venues_reordered" AFTER UPDATE OF "position" ON "event_venues" FOR EACH ROW
  WHEN (OLD.position IS DISTINCT FROM NEW.position) EXECUTE FUNCTION event_link_changed();
CREATE TRIGGER "event_organizers_changed" AFTER INSERT OR DELETE ON "event_organizers" FOR EACH ROW EXECUTE FUNCTION event_link_changed();
CREATE TRIGGER "event_organizers_reordered" AFTER UPDATE OF "position" ON "event_organizers" FOR EACH ROW
  WHEN (OLD.position IS DISTINCT FROM NEW.position) EXECUTE FUNCTION event_link_changed();
CREATE TRIGGER "event_terms_changed" AFTER INSERT OR DELETE ON "event_terms" FOR EACH ROW EXECUTE FUNCTION event_link_changed();

-- Simple polling (`modified_after` on every list) reads off these.
CREATE INDEX "events_modified_at_idx" ON "events" ("modified_at");
CREATE INDEX "venues_modified_at_idx" ON "venues" ("modified_at");
CREATE INDEX "organizers_modified_at_idx" ON "organizers" ("modified_at");
CREATE INDEX "terms_modified_at_idx" ON "terms" ("modified_at");
