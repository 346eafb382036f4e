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
-- the API names of its status, reason, online fields and times when an update changed them, so that
-- a webhook message or a reader of the feed can say "cancelled" without keeping every version.
ALTER TABLE "changes" ADD COLUMN "changed" text[] NOT NULL DEFAULT '{}';

CREATE FUNCTION "event_fields_changed"(o events, n events) RETURNS text[] LANGUAGE sql IMMUTABLE AS $$
  SELECT ARRAY(
    SELECT f.name FROM (VALUES
      ('end_date', (o.end_local, o.timezone) IS DISTINCT FROM (n.end_local, n.timezone)),
      ('event_status', o.event_status IS DISTINCT FROM n.event_status),
      ('event_status_reason', o.event_status_reason IS DISTINCT FROM n.event_status_reason),
      ('is_hybrid', o.is_hybrid IS DISTINCT FROM n.is_hybrid),
      ('is_virtual', o.is_virtual IS DISTINCT FROM n.is_virtual),
      ('start_date', (o.start_local, o.timezone) IS DISTINCT FROM (n.start_local, n.timezone)),
      ('virtual_url', o.virtual_url IS DISTINCT FROM n.virtual_url)
    ) AS f(name, differs)
    WHERE f.differs ORDER BY f.name)
$$;

-- One change per object and transaction, as before; what it changed is the union of what each
-- write of the transaction changed, in name order.
CREATE FUNCTION "record_change"(kind text, id integer, act text, modified timestamptz, fields text[]) RETURNS void
LANGUAGE sql AS $$
  INSERT INTO changes (object_type, object_id, action, modified_at, changed) VALUES (kind, id, act, modified, fields)
  ON CONFLICT (xid, object_type, object_id) DO UPDATE SET
    action = CASE
      WHEN array_position(ARRAY['updated', 'created', 'trashed', 'deleted'], EXCLUDED.action)
         > array_position(ARRAY['updated', 'created', 'trashed', 'deleted'], changes.action)
      THEN EXCLUDED.action ELSE changes.action END,
    modified_at = greatest(changes.modified_at, EXCLUDED.modified_at),
    changed = ARRAY(SELECT DISTINCT f FROM unnest(changes.changed || EXCLUDED.changed) AS f ORDER BY f)
  WHERE array_position(ARRAY['updated', 'created', 'trashed', 'deleted'], EXCLUDED.action)
          > array_position(ARRAY['updated', 'created', 'trashed', 'deleted'], changes.action)
     OR EXCLUDED.modified_at > changes.modified_at
     OR NOT EXCLUDED.changed <@ changes.changed
$$;

CREATE OR REPLACE FUNCTION "record_change"(kind text, id integer, act text, modified timestamptz) RETURNS void
LANGUAGE sql AS $$
  SELECT record_change(kind, id, act, modified, '{}'::text[])
$$;

CREATE FUNCTION "record_event_change"(id integer, parent integer, exception boolean, act text, modified timestamptz, fields text[])
RETURNS void LANGUAGE plpgsql AS $$
DECLARE
  series_modified timestamptz;
BEGIN
  IF parent IS NULL OR exception THEN
    PERFORM record_change('event', id, act, modified, fields);
    RETURN;
  END IF;
  SELECT e.modified_at INTO series_modified FROM events e WHERE e.id = parent;
  IF FOUND THEN
    PERFORM record_change('event', parent, 'updated', series_modified, fields);
  END IF;
END $$;

CREATE OR REPLACE FUNCTION "record_event_change"(id integer, parent integer, exception boolean, act text, modified timestamptz)
RETURNS void LANGUAGE sql AS $$
  SELECT record_event_change(id, parent, exception, act, modified, '{}'::text[])
$$;

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
        PERFORM record_change('event', NEW.id, 'updated', NEW.modified_at, event_fields_changed(OLD, NEW));
      END IF;
      PERFORM record_event_change(NEW.id, NEW.parent_id, NEW.is_exception,
        CASE WHEN NEW.status = 'trash' AND OLD.status <> 'trash' THEN 'trashed' ELSE 'updated' END, NEW.modified_at,
        event_fields_changed(OLD, NEW));
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
