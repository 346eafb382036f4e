-- The media library (docs/decisions.md, "Images"): uploaded images and the files made of each, kept
-- in the database, so that one backup holds data and images and every instance of a cluster serves
-- every file with nothing but the database. An item that shows an uploaded image names it in
-- `image_id`.
--
-- A media item draws its ID from the posts' sequence, as an attachment is a post where the service
-- was modelled: an image ID never names an event, venue or organizer as well.
CREATE TABLE "media" (
  "id" integer PRIMARY KEY DEFAULT nextval('post_id_seq'),
  "author_id" integer REFERENCES "users" ("id") ON DELETE SET NULL,
  -- The stem of its files' names, from the uploaded file's name.
  "slug" varchar(200) NOT NULL,
  "title" text NOT NULL DEFAULT '',
  "alt_text" text NOT NULL DEFAULT '',
  "caption" text NOT NULL DEFAULT '',
  "mime_type" varchar(40) NOT NULL,
  -- What an item's `image` shows of it, its URLs as paths under /uploads/: never changes once made.
  "meta" jsonb NOT NULL,
  -- Where an imported image came from: an image is brought over once across imports.
  "source_url" varchar(2000) UNIQUE,
  "published_at" timestamptz(3) NOT NULL DEFAULT now(),
  "modified_at" timestamptz(3) NOT NULL DEFAULT now()
);
CREATE INDEX "media_author_id_idx" ON "media" ("author_id");
CREATE INDEX "media_published_at_id_idx" ON "media" ("published_at", "id");

-- The files of an item: its full size and each smaller size, by file name.
CREATE TABLE "media_files" (
  "media_id" integer NOT NULL REFERENCES "media" ("id") ON DELETE CASCADE,
  "name" varchar(255) NOT NULL,
  "mime_type" varchar(40) NOT NULL,
  "bytes" bytea NOT NULL,
  -- A strong validator of the bytes (their SHA-256): the file never changes under its name.
  "etag" varchar(64) NOT NULL,
  PRIMARY KEY ("media_id", "name")
);

-- An item's uploaded image. RESTRICT: an image in use cannot be deleted; a delete that races a
-- write naming the image waits for it (the write's key share lock) and then fails, or the write
-- fails its foreign key and, run again, finds the image gone (services/retry.ts).
-- `image_meta` is the image's `meta`, copied by the trigger below on every write that names an
-- image: a media item's meta never changes and it cannot be deleted while named, so the copy is
-- always exact, and every read of an item (lists, embedded venues, the change feed) shows the
-- image without a join.
ALTER TABLE "events" ADD COLUMN "image_id" integer REFERENCES "media" ("id") ON DELETE RESTRICT,
  ADD COLUMN "image_meta" jsonb;
ALTER TABLE "venues" ADD COLUMN "image_id" integer REFERENCES "media" ("id") ON DELETE RESTRICT,
  ADD COLUMN "image_meta" jsonb;
ALTER TABLE "organizers" ADD COLUMN "image_id" integer REFERENCES "media" ("id") ON DELETE RESTRICT,
  ADD COLUMN "image_meta" jsonb;
CREATE INDEX "events_image_id_idx" ON "events" ("image_id") WHERE "image_id" IS NOT NULL;
CREATE INDEX "venues_image_id_idx" ON "venues" ("image_id") WHERE "image_id" IS NOT NULL;
CREATE INDEX "organizers_image_id_idx" ON "organizers" ("image_id") WHERE "image_id" IS NOT NULL;

CREATE FUNCTION "image_meta_copied"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  NEW.image_meta := (SELECT m.meta FROM media m WHERE m.id = NEW.image_id);
  RETURN NEW;
END $$;
CREATE TRIGGER "events_image_meta" BEFORE INSERT OR UPDATE OF "image_id", "image_meta" ON "events"
  FOR EACH ROW EXECUTE FUNCTION "image_meta_copied"();
CREATE TRIGGER "venues_image_meta" BEFORE INSERT OR UPDATE OF "image_id", "image_meta" ON "venues"
  FOR EACH ROW EXECUTE FUNCTION "image_meta_copied"();
CREATE TRIGGER "organizers_image_meta" BEFORE INSERT OR UPDATE OF "image_id", "image_meta" ON "organizers"
  FOR EACH ROW EXECUTE FUNCTION "image_meta_copied"();

-- The change feed and webhooks carry media: created, updated (title, alt text, caption), deleted.
ALTER TABLE "changes" DROP CONSTRAINT "changes_object_type_check",
  ADD CONSTRAINT "changes_object_type_check"
    CHECK ("object_type" IN ('event', 'venue', 'organizer', 'category', 'tag', 'media'));

CREATE FUNCTION "media_changed"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    PERFORM record_change('media', NEW.id, 'created', NEW.modified_at);
  ELSIF TG_OP = 'DELETE' THEN
    PERFORM record_change('media', OLD.id, 'deleted', OLD.modified_at);
  ELSE
    PERFORM record_change('media', NEW.id, 'updated', NEW.modified_at);
  END IF;
  RETURN NULL;
END $$;
CREATE TRIGGER "media_changed" AFTER INSERT OR DELETE ON "media" FOR EACH ROW EXECUTE FUNCTION "media_changed"();
CREATE TRIGGER "media_updated" AFTER UPDATE ON "media" FOR EACH ROW WHEN (OLD.* IS DISTINCT FROM NEW.*)
  EXECUTE FUNCTION "media_changed"();

-- Kept answers (migration data_versions): media lists and items are built from these tables.
CREATE TRIGGER "media_data_changed" AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON "media"
  FOR EACH STATEMENT EXECUTE FUNCTION "data_changed"();
CREATE TRIGGER "media_files_data_changed" AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON "media_files"
  FOR EACH STATEMENT EXECUTE FUNCTION "data_changed"();
