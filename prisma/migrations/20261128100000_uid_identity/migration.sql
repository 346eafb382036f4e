-- An event's identity at each door (docs/decisions.md, "CalDAV" and "Import"). An imported item is
-- known by its source and its ID there (the primary key): the same UID from two sources, or from an
-- iCalendar file and a CalDAV client (source `caldav`), is two items. The UID an event is exported
-- with (serializers/ical.ts) is one of those rows, marked `exported`: one UID per event, and one
-- event per UID, whatever source it came from, so a feed never shows two events under one UID.
ALTER TABLE "imported_items" ADD COLUMN "exported" BOOLEAN NOT NULL DEFAULT false;

-- Rows a CalDAV PUT wrote for an event made through the API (its GUID) are the client's: they are
-- the only ones without a content hash, which an import always writes.
UPDATE "imported_items" SET "source" = 'caldav'
WHERE "source" = 'ics' AND "kind" = 'event' AND "content_hash" = '';

-- Until now every iCalendar row of an event was its exported UID (at most one per event in
-- practice; the first by UID if not).
UPDATE "imported_items" i SET "exported" = true
WHERE i."source" = 'ics' AND i."kind" = 'event'
  AND i."external_id" = (
    SELECT min(o."external_id") FROM "imported_items" o
    WHERE o."source" = 'ics' AND o."kind" = 'event' AND o."local_id" = i."local_id");

CREATE UNIQUE INDEX "imported_items_exported_uid_key" ON "imported_items" ("external_id")
  WHERE "kind" = 'event' AND "exported";
CREATE UNIQUE INDEX "imported_items_exported_event_key" ON "imported_items" ("local_id")
  WHERE "kind" = 'event' AND "exported";
