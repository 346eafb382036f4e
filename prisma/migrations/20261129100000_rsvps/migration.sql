-- RSVP (docs/decisions.md, "RSVP"): an event's settings, and the people who answered it.
--
-- The settings are columns of the event, so that an occurrence copies them from its series as it
-- copies its other fields (src/queries/event-storage.ts EVENT_COLUMNS); each occurrence has RSVPs
-- and counts of its own. When RSVP closes is stored as seconds before the start (negative: after
-- it; null: at the start), not as an instant: one instant copied to every date of a series would
-- close them all at once. `closes_at` is computed per event when it is shown.
CREATE TYPE "RsvpStatus" AS ENUM ('going', 'waiting', 'pending', 'declined', 'cancelled', 'checked_in');
CREATE TYPE "RsvpAnswer" AS ENUM ('going', 'not_going');

ALTER TABLE "events"
  ADD COLUMN "rsvp_open" BOOLEAN NOT NULL DEFAULT false,
  ADD COLUMN "rsvp_capacity" INTEGER CHECK ("rsvp_capacity" >= 1),
  ADD COLUMN "rsvp_guests_max" INTEGER NOT NULL DEFAULT 0 CHECK ("rsvp_guests_max" BETWEEN 0 AND 20),
  ADD COLUMN "rsvp_approval" BOOLEAN NOT NULL DEFAULT false,
  ADD COLUMN "rsvp_anonymous" BOOLEAN NOT NULL DEFAULT false,
  ADD COLUMN "rsvp_closes_before" INTEGER;

-- The waiting list's order: a number taken when an RSVP comes to the list, under its event's lock
-- (src/services/rsvps/seats.ts), so that the order is the order in which writers held the lock.
CREATE SEQUENCE "rsvp_arrival_seq" AS bigint;

CREATE TABLE "rsvps" (
  "id" SERIAL NOT NULL,
  "event_id" INTEGER NOT NULL,
  "account_id" INTEGER,
  "name" VARCHAR(250) NOT NULL,
  "email" VARCHAR(254) NOT NULL,
  "guests" INTEGER NOT NULL DEFAULT 0 CHECK ("guests" BETWEEN 0 AND 20),
  "answer" "RsvpAnswer" NOT NULL DEFAULT 'going',
  "status" "RsvpStatus" NOT NULL,
  "arrival" BIGINT NOT NULL DEFAULT nextval('rsvp_arrival_seq'),
  -- Room for phase 2 of issue 53: the SHA-256 of an anonymous owner's secret token, and the code
  -- printed in the confirmation for check-in.
  "token_hash" BYTEA,
  "check_in_code" VARCHAR(16),
  "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
  "modified_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

  CONSTRAINT "rsvps_pkey" PRIMARY KEY ("id")
);
ALTER SEQUENCE "rsvp_arrival_seq" OWNED BY "rsvps"."arrival";

-- Counting an event's seats and walking its waiting list read this index alone.
CREATE INDEX "rsvps_event_id_status_arrival_idx" ON "rsvps"("event_id", "status", "arrival");
CREATE INDEX "rsvps_account_id_idx" ON "rsvps"("account_id");
-- One e-mail address has one RSVP per event, whatever its case: an RSVP cancelled or declined is
-- taken up again by a new answer from the same address rather than doubled (src/services/rsvps/write.ts).
CREATE UNIQUE INDEX "rsvps_event_id_email_key" ON "rsvps"("event_id", lower("email"));
CREATE UNIQUE INDEX "rsvps_event_id_check_in_code_key" ON "rsvps"("event_id", "check_in_code")
  WHERE "check_in_code" IS NOT NULL;

ALTER TABLE "rsvps" ADD CONSTRAINT "rsvps_event_id_fkey" FOREIGN KEY ("event_id") REFERENCES "events"("id") ON DELETE CASCADE ON UPDATE CASCADE;
ALTER TABLE "rsvps" ADD CONSTRAINT "rsvps_account_id_fkey" FOREIGN KEY ("account_id") REFERENCES "users"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- An event's answers show its RSVP counts: a write of RSVPs changes the data answers are built
-- from (migration data_versions), so kept answers never show counts from before it.
CREATE TRIGGER "rsvps_data_changed" AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON "rsvps"
  FOR EACH STATEMENT EXECUTE FUNCTION "data_changed"();
