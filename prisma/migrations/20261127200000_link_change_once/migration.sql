-- A link's change is recorded only when it says something the feed does not have yet. An event
-- created with a venue, an organizer and two terms ran record_change four times after its
-- `created`, each an upsert that changed nothing (a stronger action was there already, with the
-- same version) but still took a number of the sequence, locked the change's row (a WAL record)
-- and went through two functions: about 0.1 ms of PostgreSQL per link, a third of the create's
-- statement (docs/performance.md). Now the trigger first looks the change up, by the index the
-- upsert would have used: a change of this event in this transaction, of any action (every action
-- is at least `updated`) and of this version or a later one, is all the upsert could have left.
-- Only for a change of the event itself: an occurrence that is no exception records its series'
-- change (record_event_change), and goes the long way as before. Were the link's trigger to fire
-- before the event's, nothing would be found and the upsert would run, as before: the feed is the
-- same in any order.
CREATE OR REPLACE FUNCTION "event_link_changed"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM record_event_change(e.id, e.parent_id, e.is_exception, 'updated', e.modified_at)
    FROM events e
    WHERE e.id = CASE WHEN TG_OP = 'DELETE' THEN OLD.event_id ELSE NEW.event_id END
      AND NOT ((e.parent_id IS NULL OR e.is_exception) AND EXISTS (
        SELECT FROM changes c
        WHERE c.xid = pg_current_xact_id() AND c.object_type = 'event' AND c.object_id = e.id
          AND c.modified_at >= e.modified_at));
  RETURN NULL;
END $$;
