-- Following others (docs/federation.md, "Following other calendars"): the remote actors the
-- calendar follows, which events each brought, and submissions that name a remote source instead
-- of a person.

-- A remote actor the calendar follows (a Mobilizon group, a Gancio instance, another calendar of
-- this service). `state` is `pending` from the Follow sent until its Accept (or Reject); `trusted`
-- sources' events are published at once, the others' wait in the moderation queue. One row per
-- actor (unique index): two follows of the same actor at once make one source.
CREATE TABLE "federation_sources" (
  "id" serial PRIMARY KEY,
  "actor_id" text NOT NULL UNIQUE,
  "handle" text,
  "name" text NOT NULL DEFAULT '',
  "actor_type" text NOT NULL,
  "inbox" text NOT NULL,
  "outbox" text,
  "host" text NOT NULL,
  "follow_id" text NOT NULL UNIQUE,
  "state" text NOT NULL DEFAULT 'pending' CHECK ("state" IN ('pending', 'accepted', 'rejected')),
  "trusted" boolean NOT NULL DEFAULT false,
  "created_at" timestamptz(3) NOT NULL DEFAULT now(),
  "modified_at" timestamptz(3) NOT NULL DEFAULT now(),
  "accepted_at" timestamptz(3)
);

-- The events that came from other servers, with their ActivityPub id and the source that brought
-- them: the cap of events per source counts these rows, under the source's row lock
-- (src/federation/remote-events.ts). The identity itself is the importer's mapping (imported_items,
-- source `activitypub`, external ID the object's id), as for every item another calendar names.
CREATE TABLE "federation_remote_events" (
  "event_id" integer PRIMARY KEY REFERENCES "events"("id") ON DELETE CASCADE,
  "object_id" text NOT NULL UNIQUE,
  "source_id" integer REFERENCES "federation_sources"("id") ON DELETE SET NULL,
  "created_at" timestamptz(3) NOT NULL DEFAULT now()
);
CREATE INDEX "federation_remote_events_source_id_idx" ON "federation_remote_events" ("source_id");

-- A remote event from a source that is not trusted waits as a submission: it names its source
-- instead of a submitter, and has neither an e-mail address nor a token (no one follows it by mail).
ALTER TABLE "submissions"
  ALTER COLUMN "submitter_email" DROP NOT NULL,
  ALTER COLUMN "token_hash" DROP NOT NULL,
  ADD COLUMN "federation_source_id" integer REFERENCES "federation_sources"("id") ON DELETE SET NULL,
  ADD COLUMN "source_url" text;
