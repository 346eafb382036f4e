-- Public submissions (docs/decisions.md, "Public submissions"): an event suggested by someone who is
-- not an editor waits, pending and owned by no account, until an editor approves or rejects it.
CREATE TABLE "submissions" (
  "id" SERIAL NOT NULL,
  "event_id" INTEGER NOT NULL,
  "state" TEXT NOT NULL DEFAULT 'pending' CHECK ("state" IN ('pending', 'spam', 'approved', 'rejected')),
  "submitter_name" VARCHAR(250) NOT NULL,
  "submitter_email" VARCHAR(254) NOT NULL,
  "account_id" INTEGER,
  -- The submitter's token to follow it, as SHA-256 in hex (services/rsvps/secrets.ts).
  "token_hash" TEXT NOT NULL,
  "new_venue_id" INTEGER,
  "new_organizer_id" INTEGER,
  "suggested_categories" TEXT[] NOT NULL DEFAULT '{}',
  "links" TEXT[] NOT NULL DEFAULT '{}',
  "spam_reasons" TEXT[] NOT NULL DEFAULT '{}',
  "reason" TEXT,
  -- The same title and start submitted on one day (UTC) are one submission: the unique index is the
  -- check, so that two sent at once cannot both pass it (services/submissions/submit.ts).
  "duplicate_key" TEXT NOT NULL,
  "submitted_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
  "decided_at" TIMESTAMPTZ(3),
  "decided_by" INTEGER,

  CONSTRAINT "submissions_pkey" PRIMARY KEY ("id"),
  CONSTRAINT "submissions_event_id_fkey" FOREIGN KEY ("event_id") REFERENCES "events"("id") ON DELETE CASCADE,
  CONSTRAINT "submissions_account_id_fkey" FOREIGN KEY ("account_id") REFERENCES "users"("id") ON DELETE SET NULL,
  CONSTRAINT "submissions_new_venue_id_fkey" FOREIGN KEY ("new_venue_id") REFERENCES "venues"("id") ON DELETE SET NULL,
  CONSTRAINT "submissions_new_organizer_id_fkey" FOREIGN KEY ("new_organizer_id") REFERENCES "organizers"("id") ON DELETE SET NULL,
  CONSTRAINT "submissions_decided_by_fkey" FOREIGN KEY ("decided_by") REFERENCES "users"("id") ON DELETE SET NULL
);
CREATE UNIQUE INDEX "submissions_event_id_key" ON "submissions"("event_id");
CREATE UNIQUE INDEX "submissions_duplicate_key_key" ON "submissions"("duplicate_key");
-- The queue: one state, oldest first.
CREATE INDEX "submissions_state_submitted_at_idx" ON "submissions"("state", "submitted_at", "id");

-- Submissions per address (the client's IP) and per e-mail address a day, counted by conditional
-- upserts as mail_requests are (services/submissions/defences.ts); only hashes are kept.
CREATE TABLE "submission_requests" (
  "kind" TEXT NOT NULL CHECK ("kind" IN ('address', 'email')),
  "key_hash" TEXT NOT NULL,
  "day" DATE NOT NULL,
  "requests" INTEGER NOT NULL,

  CONSTRAINT "submission_requests_pkey" PRIMARY KEY ("kind", "key_hash", "day")
);

-- Proof-of-work challenges used, until they expire: the primary key makes each good once.
CREATE TABLE "submission_challenges" (
  "signature" TEXT NOT NULL,
  "expires_at" TIMESTAMPTZ(3) NOT NULL,

  CONSTRAINT "submission_challenges_pkey" PRIMARY KEY ("signature")
);
CREATE INDEX "submission_challenges_expires_at_idx" ON "submission_challenges"("expires_at");

-- Secrets every instance shares, made once by whichever instance needs one first
-- (INSERT ... ON CONFLICT DO NOTHING, then read): the proof of work's signing keys.
CREATE TABLE "service_secrets" (
  "name" TEXT NOT NULL,
  "value" TEXT NOT NULL,

  CONSTRAINT "service_secrets_pkey" PRIMARY KEY ("name")
);

-- A submission is a change of its event of its own kind, `submitted`, which only editors read in
-- the feed (queries/changes.ts); it ranks with `created`, as the creation it is.
ALTER TABLE "changes" DROP CONSTRAINT "changes_action_check",
  ADD CONSTRAINT "changes_action_check" CHECK ("action" IN ('created', 'submitted', 'updated', 'trashed', 'deleted'));
CREATE OR REPLACE FUNCTION "stronger_action"(a text, b text) RETURNS text LANGUAGE sql IMMUTABLE AS $$
  SELECT CASE WHEN array_position(ARRAY['updated', 'created', 'submitted', 'trashed', 'deleted'], b)
                 > array_position(ARRAY['updated', 'created', 'submitted', 'trashed', 'deleted'], a) THEN b ELSE a END
$$;

-- Mail about a submission names it; the event it is about is its event.
ALTER TABLE "mail_outbox" ADD COLUMN "submission_id" INTEGER;

-- A submission's transaction writes nothing an anonymous answer is built from: its event, venue
-- and organizer are pending (no list, count, search or feed below editor shows them) and its change
-- is `submitted` (kept from the feed below editor). It says so (`calendar.unseen_write`, local to
-- the transaction: services/submissions/submit.ts), and kept answers stay: a flood of submissions
-- does not send every reader to a built answer (test/http/submission-flood.test.ts).
CREATE OR REPLACE FUNCTION "data_changed"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF current_setting('calendar.data_changed', true) IS DISTINCT FROM 'yes'
     AND current_setting('calendar.unseen_write', true) IS DISTINCT FROM 'yes' THEN
    PERFORM set_config('calendar.data_changed', 'yes', true);
    INSERT INTO "data_changes_due" DEFAULT VALUES ON CONFLICT DO NOTHING;
  END IF;
  RETURN NULL;
END $$;
