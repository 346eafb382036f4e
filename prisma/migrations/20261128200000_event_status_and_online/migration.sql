-- An event's status and where it happens (docs/decisions.md, "Cancelled, postponed, online"): called
-- off or postponed, with the organiser's reason; online with the link to join, and hybrid when it
-- also happens at its venue. An occurrence copies them from its series unless it is an exception, so
-- one date of a series can be cancelled alone (queries/event-storage.ts).
CREATE TYPE "EventStatus" AS ENUM ('scheduled', 'canceled', 'postponed');

ALTER TABLE "events"
  ADD COLUMN "event_status" "EventStatus" NOT NULL DEFAULT 'scheduled',
  ADD COLUMN "event_status_reason" VARCHAR(2000) NOT NULL DEFAULT '',
  ADD COLUMN "is_virtual" BOOLEAN NOT NULL DEFAULT false,
  ADD COLUMN "is_hybrid" BOOLEAN NOT NULL DEFAULT false,
  ADD COLUMN "virtual_url" VARCHAR(2000),
  -- Hybrid is online and at the venue too (services/events/input.ts refuses it otherwise, against
  -- the locked row); the constraint holds it for every writer and every interleaving.
  ADD CONSTRAINT "events_hybrid_is_online" CHECK (NOT "is_hybrid" OR "is_virtual");

-- What a change of an event changed, for those who planned to come (docs/decisions.md, "Changes"):
-- the API names of its status, reason, online fields, times and rule when an update changed them,
-- so that a webhook message or a reader of the feed can say "cancelled" without keeping every
-- version. Net of the whole transaction: a change keeps the watched values of the event before its
-- first write (`watched_before`) and compares the last write's with them, so a batch that cancels
-- an event and puts it back on says nothing changed.
ALTER TABLE "changes" ADD COLUMN "watched_before" jsonb, ADD COLUMN "changed" text[] NOT NULL DEFAULT '{}';

-- Times are compared as the wall clock and the instant, not the zone's name: a new zone that moves
-- neither is no news. STABLE (a time's JSON text depends on the session's settings), so that the
-- planner inlines it where it is called.
CREATE FUNCTION "event_watched"(e events) RETURNS jsonb LANGUAGE sql STABLE AS $$
  SELECT jsonb_build_object(
    'end_date', jsonb_build_array(e.end_local, e.end_utc),
    'event_status', e.event_status,
    'event_status_reason', e.event_status_reason,
    'is_hybrid', e.is_hybrid,
    'is_virtual', e.is_virtual,
    'recurrence', to_jsonb(e.recurrence),
    'start_date', jsonb_build_array(e.start_local, e.start_utc),
    'virtual_url', e.virtual_url)
$$;

-- PL/pgSQL from here on: its statements' plans are kept for the session, where a SQL function that
-- writes is planned again on each call, and a series' edit records a change for each of its dates.
CREATE FUNCTION "watched_changes"(w_before jsonb, w_after jsonb) RETURNS text[] LANGUAGE plpgsql IMMUTABLE AS $$
BEGIN
  IF w_before IS NULL OR w_after IS NULL THEN
    RETURN '{}';
  END IF;
  RETURN (SELECT coalesce(array_agg(a.key ORDER BY a.key), '{}') FROM jsonb_each(w_after) a
          WHERE a.value IS DISTINCT FROM w_before -> a.key);
END $$;

CREATE FUNCTION "stronger_action"(a text, b text) RETURNS text LANGUAGE sql IMMUTABLE AS $$
  SELECT CASE WHEN array_position(ARRAY['updated', 'created', 'trashed', 'deleted'], b)
                 > array_position(ARRAY['updated', 'created', 'trashed', 'deleted'], a) THEN b ELSE a END
$$;

-- One change per object and transaction, as before. A write of the event's own row passes its
-- watched values before and after; a change recorded for it otherwise (an occurrence that follows a
-- series, a link, a renamed venue) passes none and leaves what the change says changed as it was.
-- Only an update says what changed: a creation, trashing or deletion is news enough.
CREATE FUNCTION "record_change"(kind text, id integer, act text, modified timestamptz, w_before jsonb, w_after jsonb)
RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO changes (object_type, object_id, action, modified_at, watched_before, changed)
  VALUES (kind, id, act, modified, w_before, CASE WHEN act = 'updated' THEN watched_changes(w_before, w_after) ELSE '{}' END)
  ON CONFLICT (xid, object_type, object_id) DO UPDATE SET
    action = stronger_action(changes.action, EXCLUDED.action),
    modified_at = greatest(changes.modified_at, EXCLUDED.modified_at),
    watched_before = coalesce(changes.watched_before, EXCLUDED.watched_before),
    changed = CASE
      WHEN stronger_action(changes.action, EXCLUDED.action) <> 'updated' THEN '{}'
      ELSE watched_changes(coalesce(changes.watched_before, EXCLUDED.watched_before), w_after) END;
END $$;

CREATE OR REPLACE FUNCTION "record_change"(kind text, id integer, act text, modified timestamptz) RETURNS void
LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO changes (object_type, object_id, action, modified_at) VALUES (kind, id, act, modified)
  ON CONFLICT (xid, object_type, object_id) DO UPDATE SET
    action = stronger_action(changes.action, EXCLUDED.action),
    modified_at = greatest(changes.modified_at, EXCLUDED.modified_at),
    changed = CASE WHEN stronger_action(changes.action, EXCLUDED.action) = 'updated' THEN changes.changed ELSE '{}' END
  WHERE stronger_action(changes.action, EXCLUDED.action) <> changes.action
     OR EXCLUDED.modified_at > changes.modified_at;
END $$;

-- An event's own row is watched; an occurrence that follows its series is recorded as a change of
-- the series (record_event_change), which its own values do not describe, and costs no comparison.
CREATE OR REPLACE FUNCTION "post_changed"() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  kind text := TG_ARGV[0];
  act text;
BEGIN
  IF kind = 'event' THEN
    IF TG_OP = 'INSERT' THEN
      PERFORM record_event_change(NEW.id, NEW.parent_id, NEW.is_exception, 'created', NEW.modified_at);
    ELSIF TG_OP = 'DELETE' THEN
      PERFORM record_event_change(OLD.id, OLD.parent_id, OLD.is_exception, 'deleted', OLD.modified_at);
    ELSE
      act := CASE WHEN NEW.status = 'trash' AND OLD.status <> 'trash' THEN 'trashed' ELSE 'updated' END;
      IF NEW.parent_id IS NULL OR NEW.is_exception OR OLD.is_exception THEN
        -- An occurrence that becomes an exception, or stops being one, is a change of its own too.
        PERFORM record_change('event', NEW.id, act, NEW.modified_at, event_watched(OLD), event_watched(NEW));
      END IF;
      IF NEW.parent_id IS NOT NULL AND NOT NEW.is_exception THEN
        PERFORM record_event_change(NEW.id, NEW.parent_id, false, act, NEW.modified_at);
      END IF;
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
