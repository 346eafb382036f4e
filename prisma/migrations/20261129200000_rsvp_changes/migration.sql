-- RSVPs in the change feed and webhooks (docs/decisions.md, "RSVP"): an RSVP write is a change of
-- its event's counts for everyone, and a change of the RSVP itself for those allowed to see
-- attendee data (administrators, and webhook subscriptions with `attendee_data`).
ALTER TABLE "changes" DROP CONSTRAINT "changes_object_type_check",
  ADD CONSTRAINT "changes_object_type_check"
    CHECK ("object_type" IN ('event', 'venue', 'organizer', 'category', 'tag', 'media', 'rsvp'));

-- Only subscriptions an administrator allows to see attendee data get `rsvp.*` messages
-- (src/webhooks/dispatch.ts); the others get the events' counts.
ALTER TABLE "webhook_subscriptions" ADD COLUMN "attendee_data" BOOLEAN NOT NULL DEFAULT false;

-- The seats an event's public counts are made of, per status (going, checked in, waiting), for the
-- event and the dates of a series that follow it (their RSVPs are changes of the series, as every
-- other write of such a date: record_event_change), keyed by event ID. `gone` and `came` are the
-- rows a statement wrote, as they were and as they are: with them, the seats before it.
CREATE FUNCTION "rsvp_seats"(target integer, gone jsonb DEFAULT '[]', came jsonb DEFAULT '[]') RETURNS jsonb
LANGUAGE sql STABLE AS $$
  WITH dates AS (
    SELECT target AS id UNION ALL SELECT e.id FROM events e WHERE e.parent_id = target AND NOT e.is_exception),
  counted AS (
    SELECT r.event_id, r.status::text AS status, r.guests FROM rsvps r
    WHERE r.event_id IN (SELECT id FROM dates) AND r.status IN ('going', 'checked_in', 'waiting')
      AND r.id NOT IN (SELECT (c ->> 'id')::int FROM jsonb_array_elements(came) c)
    UNION ALL
    SELECT g.event_id, g.status, g.guests FROM jsonb_to_recordset(gone) AS g(event_id int, status text, guests int)
    WHERE g.event_id IN (SELECT id FROM dates) AND g.status IN ('going', 'checked_in', 'waiting'))
  SELECT coalesce(jsonb_object_agg(s.event_id::text, s.seats), '{}') FROM (
    SELECT event_id, jsonb_build_array(
        coalesce(sum(1 + guests) FILTER (WHERE status = 'going'), 0),
        coalesce(sum(1 + guests) FILTER (WHERE status = 'checked_in'), 0),
        coalesce(sum(1 + guests) FILTER (WHERE status = 'waiting'), 0)) AS seats
    FROM counted GROUP BY event_id) s
$$;

-- What an event shows of RSVP is watched too (migration event_status_and_online): whether it is
-- open, its capacity and its seats, named `rsvp` in a change's `changed`. Net of the transaction as
-- the other watched values: RSVPs taken and cancelled again in one batch say nothing changed.
CREATE OR REPLACE FUNCTION "event_watched"(e events) RETURNS jsonb LANGUAGE sql STABLE AS $$
  SELECT jsonb_build_object(
    'end_date', jsonb_build_array(e.end_local, e.end_utc),
    'event_status', e.event_status,
    'event_status_reason', e.event_status_reason,
    'is_hybrid', e.is_hybrid,
    'is_virtual', e.is_virtual,
    'recurrence', to_jsonb(e.recurrence),
    'rsvp', jsonb_build_object('open', e.rsvp_open, 'capacity', e.rsvp_capacity, 'seats', rsvp_seats(e.id)),
    'start_date', jsonb_build_array(e.start_local, e.start_utc),
    'virtual_url', e.virtual_url)
$$;

-- One statement's RSVP rows, as they were (`gone`) and are (`came`): each is a change of the RSVP
-- (`act`), and each event whose seats moved is updated, with its watched values before the
-- statement (the seats from `gone` and `came`) and after it. An event deleted (its RSVPs go with
-- it) records its own deletion and nothing here.
CREATE FUNCTION "rsvps_written"(gone jsonb, came jsonb, act text) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
  t events;
  after jsonb;
  before jsonb;
BEGIN
  PERFORM record_change('rsvp', w.id, act, w.modified_at)
    FROM jsonb_to_recordset(CASE WHEN act = 'deleted' THEN gone ELSE came END) AS w(id int, modified_at timestamptz);
  FOR t IN
    SELECT DISTINCT ON (s.id) s.* FROM events e
    JOIN events s ON s.id = CASE WHEN e.parent_id IS NULL OR e.is_exception THEN e.id ELSE e.parent_id END
    WHERE e.id IN (SELECT (w ->> 'event_id')::int FROM jsonb_array_elements(gone || came) w)
    ORDER BY s.id
  LOOP
    after := event_watched(t);
    before := rsvp_seats(t.id, gone, came);
    IF before IS DISTINCT FROM after #> '{rsvp,seats}' THEN
      PERFORM record_change('event', t.id, 'updated', t.modified_at, jsonb_set(after, '{rsvp,seats}', before), after);
    END IF;
  END LOOP;
END $$;

-- Per statement, with the rows it wrote (transition tables): a promotion that seats several RSVPs
-- in one statement is one look at the event. PostgreSQL allows transition tables only on triggers
-- of one kind of write each, hence three.
CREATE FUNCTION "rsvps_changed"() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  gone jsonb := '[]';
  came jsonb := '[]';
BEGIN
  IF TG_OP IN ('UPDATE', 'DELETE') THEN
    SELECT coalesce(jsonb_agg(jsonb_build_object('id', o.id, 'event_id', o.event_id, 'status', o.status,
        'guests', o.guests, 'modified_at', o.modified_at)), '[]') INTO gone FROM gone_rows o;
  END IF;
  IF TG_OP IN ('INSERT', 'UPDATE') THEN
    SELECT coalesce(jsonb_agg(jsonb_build_object('id', n.id, 'event_id', n.event_id, 'status', n.status,
        'guests', n.guests, 'modified_at', n.modified_at)), '[]') INTO came FROM came_rows n;
  END IF;
  PERFORM rsvps_written(gone, came, CASE TG_OP WHEN 'INSERT' THEN 'created' WHEN 'UPDATE' THEN 'updated' ELSE 'deleted' END);
  RETURN NULL;
END $$;

CREATE TRIGGER "rsvps_created" AFTER INSERT ON "rsvps" REFERENCING NEW TABLE AS came_rows
  FOR EACH STATEMENT EXECUTE FUNCTION rsvps_changed();
CREATE TRIGGER "rsvps_updated" AFTER UPDATE ON "rsvps" REFERENCING OLD TABLE AS gone_rows NEW TABLE AS came_rows
  FOR EACH STATEMENT EXECUTE FUNCTION rsvps_changed();
CREATE TRIGGER "rsvps_deleted" AFTER DELETE ON "rsvps" REFERENCING OLD TABLE AS gone_rows
  FOR EACH STATEMENT EXECUTE FUNCTION rsvps_changed();
