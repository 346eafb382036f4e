-- A series owns its occurrences (docs/decisions.md, "Recurring events"). An occurrence that is no
-- exception is the series at another date: it no longer copies the series' description and excerpt
-- (reads take them from the series, queries/event-rows.ts), so a long text is stored once, not once
-- per occurrence, and no search vector is computed for each copy. And what happens to such an
-- occurrence (created by an expansion, moved, changed with the series, deleted) is recorded in the
-- change feed as a change of its series: one write of a series is one change, not one per
-- occurrence, and so one webhook message per subscription. An exception is an event of its own.

-- NULL: the occurrence shows its series' text. An exception keeps NULL until it is given a text of its
-- own, so that a later change of the series' text still shows in it.
ALTER TABLE "events" ALTER COLUMN "description" DROP NOT NULL, ALTER COLUMN "excerpt" DROP NOT NULL;
ALTER TABLE "events" DROP COLUMN "search_vector";
UPDATE "events" o SET "description" = NULL, "excerpt" = NULL
FROM "events" s
WHERE s."id" = o."parent_id" AND NOT o."is_exception" AND o."description" = s."description" AND o."excerpt" = s."excerpt";
-- An occurrence's own words; what it shows of its series is searched through the series
-- (queries/word-search.ts).
ALTER TABLE "events" ADD COLUMN "search_vector" tsvector
  GENERATED ALWAYS AS ("search_vector"("title" || ' ' || coalesce("description", ''))) STORED;
CREATE INDEX "events_search_idx" ON "events" USING gin ("search_vector");

-- One change per object and transaction; a later call changes it only when it says more (a stronger
-- action, a later version), so that a thousand occurrences recorded as their series update its
-- change once, not a thousand times.
CREATE OR REPLACE FUNCTION "record_change"(kind text, id integer, act text, modified timestamptz) RETURNS void
LANGUAGE sql AS $$
  INSERT INTO changes (object_type, object_id, action, modified_at) VALUES (kind, id, act, modified)
  ON CONFLICT (xid, object_type, object_id) DO UPDATE SET
    action = CASE
      WHEN array_position(ARRAY['updated', 'created', 'trashed', 'deleted'], EXCLUDED.action)
         > array_position(ARRAY['updated', 'created', 'trashed', 'deleted'], changes.action)
      THEN EXCLUDED.action ELSE changes.action END,
    modified_at = greatest(changes.modified_at, EXCLUDED.modified_at)
  WHERE array_position(ARRAY['updated', 'created', 'trashed', 'deleted'], EXCLUDED.action)
          > array_position(ARRAY['updated', 'created', 'trashed', 'deleted'], changes.action)
     OR EXCLUDED.modified_at > changes.modified_at
$$;

-- A change of an event: of the event itself, or, for an occurrence that is no exception, of its
-- series (none when the series is gone: its own deletion is the change).
CREATE FUNCTION "record_event_change"(id integer, parent integer, exception boolean, act text, modified timestamptz)
RETURNS void LANGUAGE plpgsql AS $$
DECLARE
  series_modified timestamptz;
BEGIN
  IF parent IS NULL OR exception THEN
    PERFORM record_change('event', id, act, modified);
    RETURN;
  END IF;
  SELECT e.modified_at INTO series_modified FROM events e WHERE e.id = parent;
  IF FOUND THEN
    PERFORM record_change('event', parent, 'updated', series_modified);
  END IF;
END $$;

CREATE OR REPLACE FUNCTION "post_changed"() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  kind text := TG_ARGV[0];
BEGIN
  IF kind = 'event' THEN
    IF TG_OP = 'INSERT' THEN
      PERFORM record_event_change(NEW.id, NEW.parent_id, NEW.is_exception, 'created', NEW.modified_at);
    ELSIF TG_OP = 'DELETE' THEN
      PERFORM record_event_change(OLD.id, OLD.parent_id, OLD.is_exception, 'deleted', OLD.modified_at);
    ELSE
      -- An occurrence that becomes an exception, or stops being one, is a change of its own too.
      IF NEW.parent_id IS NOT NULL AND OLD.is_exception <> NEW.is_exception THEN
        PERFORM record_change('event', NEW.id, 'updated', NEW.modified_at);
      END IF;
      PERFORM record_event_change(NEW.id, NEW.parent_id, NEW.is_exception,
        CASE WHEN NEW.status = 'trash' AND OLD.status <> 'trash' THEN 'trashed' ELSE 'updated' END, NEW.modified_at);
    END IF;
  ELSIF TG_OP = 'INSERT' THEN
    PERFORM record_change(kind, NEW.id, 'created', NEW.modified_at);
  ELSIF TG_OP = 'DELETE' THEN
    PERFORM record_change(kind, OLD.id, 'deleted', OLD.modified_at);
  ELSE
    PERFORM record_change(kind, NEW.id,
      CASE WHEN NEW.status = 'trash' AND OLD.status <> 'trash' THEN 'trashed' ELSE 'updated' END, NEW.modified_at);
  END IF;
  RETURN NULL;
END $$;

CREATE OR REPLACE FUNCTION "linked_post_changed"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_TABLE_NAME = 'venues' THEN
    PERFORM record_event_change(e.id, e.parent_id, e.is_exception, 'updated', e.modified_at)
      FROM event_venues l JOIN events e ON e.id = l.event_id WHERE l.venue_id = NEW.id;
  ELSE
    PERFORM record_event_change(e.id, e.parent_id, e.is_exception, 'updated', e.modified_at)
      FROM event_organizers l JOIN events e ON e.id = l.event_id WHERE l.organizer_id = NEW.id;
  END IF;
  RETURN NULL;
END $$;

CREATE OR REPLACE FUNCTION "term_shown_changed"() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  deep boolean := (OLD.slug, OLD.parent_id) IS DISTINCT FROM (NEW.slug, NEW.parent_id);
BEGIN
  PERFORM record_change(term_kind(t.taxonomy), t.id, 'updated', t.modified_at)
    FROM terms t WHERE deep AND t.id IN (SELECT term_below(NEW.id, deep)) AND t.id <> NEW.id;
  PERFORM record_event_change(e.id, e.parent_id, e.is_exception, 'updated', e.modified_at)
    FROM event_terms l JOIN events e ON e.id = l.event_id WHERE l.term_id IN (SELECT term_below(NEW.id, deep));
  RETURN NULL;
END $$;

CREATE OR REPLACE FUNCTION "event_link_changed"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM record_event_change(e.id, e.parent_id, e.is_exception, 'updated', e.modified_at)
    FROM events e WHERE e.id = CASE WHEN TG_OP = 'DELETE' THEN OLD.event_id ELSE NEW.event_id END;
  RETURN NULL;
END $$;
