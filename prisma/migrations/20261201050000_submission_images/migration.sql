-- An image sent with a public submission (docs/decisions.md, "Public submissions"): it waits with its
-- event, shown to no one but editors, until the event is published. Every image before this was
-- public at once, and stays so.
ALTER TABLE "media" ADD COLUMN "pending" BOOLEAN NOT NULL DEFAULT false;

ALTER TABLE "submissions" ADD COLUMN "new_image_id" INTEGER,
  ADD CONSTRAINT "submissions_new_image_id_fkey" FOREIGN KEY ("new_image_id") REFERENCES "media"("id") ON DELETE SET NULL;

-- A pending image becomes public when an item that shows it is published, whichever door published it
-- (the approval, an editor's update, the scheduler): its files could not be shown otherwise. A
-- private item does not: its readers are signed in, and editors among them see it. Only editors
-- may name a pending image in an item (services/media.ts imageColumns), so nobody else can publish
-- one this way. The files' URLs never change; only who may fetch them does (http/media-files.ts).
CREATE FUNCTION "pending_image_shown"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE "media" SET "pending" = false, "modified_at" = greatest(now(), "modified_at" + interval '1 millisecond')
    WHERE "id" = NEW."image_id" AND "pending";
  RETURN NULL;
END $$;
CREATE TRIGGER "events_pending_image_shown" AFTER INSERT OR UPDATE OF "status", "image_id" ON "events"
  FOR EACH ROW WHEN (NEW."image_id" IS NOT NULL AND NEW."status"::text = 'publish')
  EXECUTE FUNCTION "pending_image_shown"();
CREATE TRIGGER "venues_pending_image_shown" AFTER INSERT OR UPDATE OF "status", "image_id" ON "venues"
  FOR EACH ROW WHEN (NEW."image_id" IS NOT NULL AND NEW."status"::text = 'publish')
  EXECUTE FUNCTION "pending_image_shown"();
CREATE TRIGGER "organizers_pending_image_shown" AFTER INSERT OR UPDATE OF "status", "image_id" ON "organizers"
  FOR EACH ROW WHEN (NEW."image_id" IS NOT NULL AND NEW."status"::text = 'publish')
  EXECUTE FUNCTION "pending_image_shown"();

-- The change feed below editor does not show an image that waits (queries/changes.ts reads
-- `submitted` for editors only): its writes are `submitted` until it is shown, and the write that
-- shows it is its creation for everyone else. Deleted while it waits (its submission rejected, or
-- purged as spam), it was never anyone's but the editors', who have the submission's decision: no
-- tombstone is left for the public feed.
CREATE OR REPLACE FUNCTION "media_changed"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    PERFORM record_change('media', NEW.id, CASE WHEN NEW.pending THEN 'submitted' ELSE 'created' END, NEW.modified_at);
  ELSIF TG_OP = 'DELETE' THEN
    IF NOT OLD.pending THEN
      PERFORM record_change('media', OLD.id, 'deleted', OLD.modified_at);
    END IF;
  ELSIF NEW.pending THEN
    PERFORM record_change('media', NEW.id, 'submitted', NEW.modified_at);
  ELSIF OLD.pending THEN
    PERFORM record_change('media', NEW.id, 'created', NEW.modified_at);
  ELSE
    PERFORM record_change('media', NEW.id, 'updated', NEW.modified_at);
  END IF;
  RETURN NULL;
END $$;
