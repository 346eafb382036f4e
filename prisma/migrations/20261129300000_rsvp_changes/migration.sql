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
-- other write of such a date: record_event_change), keyed by event ID; events without seats left out.
CREATE FUNCTION "rsvp_seats"(target integer) RETURNS jsonb LANGUAGE plpgsql STABLE AS $$
BEGIN
  RETURN (SELECT coalesce(jsonb_object_agg(s.event_id::text, s.seats), '{}') FROM (
    SELECT r.event_id, jsonb_build_array(
        coalesce(sum(1 + r.guests) FILTER (WHERE r.status = 'going'), 0),
        coalesce(sum(1 + r.guests) FILTER (WHERE r.status = 'checked_in'), 0),
        coalesce(sum(1 + r.guests) FILTER (WHERE r.status = 'waiting'), 0)) AS seats
    FROM rsvps r
    WHERE (r.event_id = target OR r.event_id IN (
        SELECT e.id FROM events e WHERE e.parent_id = target AND NOT e.is_exception))
      AND r.status IN ('going', 'checked_in', 'waiting')
    GROUP BY r.event_id) s);
END $$;

-- The seats before a statement, from those after it (rsvp_seats) and what it moved (`moved`: seats
-- per event and status, added by the statement), without counting the event's RSVPs again.
CREATE FUNCTION "rsvp_seats_before"(after jsonb, moved jsonb) RETURNS jsonb LANGUAGE plpgsql IMMUTABLE AS $$
BEGIN
  RETURN (SELECT coalesce(jsonb_object_agg(k.key, k.seats) FILTER (WHERE k.seats <> '[0, 0, 0]'), '{}') FROM (
    SELECT key, jsonb_build_array(
        coalesce((after -> key ->> 0)::int, 0) - coalesce((moved -> key ->> 'going')::int, 0),
        coalesce((after -> key ->> 1)::int, 0) - coalesce((moved -> key ->> 'checked_in')::int, 0),
        coalesce((after -> key ->> 2)::int, 0) - coalesce((moved -> key ->> 'waiting')::int, 0)) AS seats
    FROM (SELECT jsonb_object_keys(after) AS key UNION SELECT jsonb_object_keys(moved)) keys) k);
END $$;

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
-- (`act`), and each event whose seats the statement moved is updated, with its watched values
-- before the statement and after it. An event deleted (its RSVPs go with it) records its own
-- deletion and nothing here.
CREATE FUNCTION "rsvps_written"(gone jsonb, came jsonb, act text) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
  m record;
  t events;
  after jsonb;
BEGIN
  PERFORM record_change('rsvp', w.id, act, w.modified_at)
    FROM jsonb_to_recordset(CASE WHEN act = 'deleted' THEN gone ELSE came END) AS w(id int, modified_at timestamptz);
  -- Seats moved, per event whose change it is (the event, or the series a date follows), per date
  -- and status: {"<date>": {"going": 2, "waiting": -2}}.
  FOR m IN
    SELECT x.target, jsonb_object_agg(x.event_id::text, x.by_status) AS moved FROM (
      SELECT y.target, y.event_id, jsonb_object_agg(y.status, y.seats) AS by_status FROM (
        SELECT CASE WHEN e.parent_id IS NULL OR e.is_exception THEN e.id ELSE e.parent_id END AS target,
          w.event_id, w.status, sum(w.sign * (1 + w.guests)) AS seats
        FROM (
          SELECT g.event_id, g.status, g.guests, -1 AS sign
          FROM jsonb_to_recordset(gone) AS g(event_id int, status text, guests int)
          UNION ALL
          SELECT c.event_id, c.status, c.guests, 1 FROM jsonb_to_recordset(came) AS c(event_id int, status text, guests int)
        ) w JOIN events e ON e.id = w.event_id
        WHERE w.status IN ('going', 'checked_in', 'waiting')
        GROUP BY 1, 2, 3 HAVING sum(w.sign * (1 + w.guests)) <> 0) y
      GROUP BY y.target, y.event_id) x
    GROUP BY x.target ORDER BY x.target
  LOOP
    SELECT * INTO t FROM events WHERE id = m.target;
    CONTINUE WHEN NOT FOUND;
    after := event_watched(t);
    PERFORM record_change('event', t.id, 'updated', t.modified_at,
      jsonb_set(after, '{rsvp,seats}', rsvp_seats_before(after #> '{rsvp,seats}', m.moved)), after);
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

-- An RSVP's messages to subscriptions with attendee data are stored with their payload, name and
-- e-mail address included, until CHANGES_RETENTION_DAYS pass (every attempt sends the same bytes).
-- Once the person's name or address changes (corrected, or erased on request) or the RSVP is
-- deleted, its stored messages go, sent or not: nothing here keeps what was said of someone after
-- they are gone. A message still waiting is superseded by the one of the change that followed it
-- (the dispatcher writes that one after this transaction commits).
ALTER TABLE "webhook_deliveries" ADD COLUMN "rsvp_id" INTEGER;
CREATE INDEX "webhook_deliveries_rsvp_id_idx" ON "webhook_deliveries"("rsvp_id") WHERE "rsvp_id" IS NOT NULL;

CREATE FUNCTION "rsvp_messages_forgotten"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM webhook_deliveries WHERE rsvp_id = OLD.id;
  RETURN NULL;
END $$;

CREATE TRIGGER "rsvps_person_changed" AFTER UPDATE OF "name", "email" ON "rsvps" FOR EACH ROW
  WHEN (OLD.name IS DISTINCT FROM NEW.name OR OLD.email IS DISTINCT FROM NEW.email)
  EXECUTE FUNCTION rsvp_messages_forgotten();
CREATE TRIGGER "rsvps_person_gone" AFTER DELETE ON "rsvps" FOR EACH ROW EXECUTE FUNCTION rsvp_messages_forgotten();
