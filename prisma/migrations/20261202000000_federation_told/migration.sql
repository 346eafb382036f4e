-- What followers were last told of each event (src/federation/dispatch.ts): the version of the
-- last Create or Update sent, and a digest of the document it carried. The change feed records a
-- change of every event at a venue when the venue changes (migration change_feed,
-- linked_post_changed), and of an event whose venue is deleted; such a change leaves the event's
-- own modification time as it was, so the activity's version comes from the venue's, or, when that
-- is not ahead either, from the one told before. A change that leaves the document as followers
-- have it (an organizer, which it does not show) sends nothing. Null for events told before this.
ALTER TABLE "federation_events" ADD COLUMN "told_version" bigint, ADD COLUMN "told_hash" text;
