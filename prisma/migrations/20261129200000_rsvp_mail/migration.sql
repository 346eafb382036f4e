-- RSVP by e-mail (docs/decisions.md, "RSVP"): anonymous RSVPs confirmed through a link, and the
-- messages RSVPs and their events send, queued in the transaction that decided them.

-- An RSVP taken without an account counts only once confirmed: until then it is pending and
-- `confirmed` is false. `confirm_hash` is the SHA-256 of the one-use code a confirmation link
-- carries (also sent to an owner who lost their link), until `confirm_expires`; `token_hash`
-- (migration rsvps) is the owner's secret token, given when the code is used.
ALTER TABLE "rsvps"
  ADD COLUMN "confirmed" BOOLEAN NOT NULL DEFAULT true,
  ADD COLUMN "confirm_hash" BYTEA,
  ADD COLUMN "confirm_expires" TIMESTAMPTZ(3);

-- Unconfirmed RSVPs past their link's life are deleted by housekeeping (db/housekeeping.ts).
CREATE INDEX "rsvps_unconfirmed_idx" ON "rsvps"("confirm_expires") WHERE NOT "confirmed";

-- Messages to send (src/mail/): written in the transaction of the change they tell of, so that a
-- message is sent if and only if its change committed; sent after it by the mail sender of any
-- instance (src/mail/sender.ts), which leases a row (`due` moved past the lease) before sending and
-- deletes it once sent: the queue keeps no copy of what was said to whom. `secrets` holds the one-use
-- code or the owner's token a message must carry, as text, until it is sent. No answer is built from
-- this table nor from mail_requests: neither has the data_changed trigger (migration data_versions).
CREATE TABLE "mail_outbox" (
  "id" BIGSERIAL NOT NULL,
  "kind" TEXT NOT NULL,
  "event_id" INTEGER NOT NULL,
  "rsvp_id" INTEGER,
  "recipient" VARCHAR(254) NOT NULL,
  "name" VARCHAR(250) NOT NULL,
  "secrets" JSONB,
  "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
  "due" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
  "attempts" INTEGER NOT NULL DEFAULT 0,

  CONSTRAINT "mail_outbox_pkey" PRIMARY KEY ("id")
);
CREATE INDEX "mail_outbox_due_idx" ON "mail_outbox"("due");
-- A message about an event that is deleted for good has nothing left to say.
ALTER TABLE "mail_outbox" ADD CONSTRAINT "mail_outbox_event_id_fkey" FOREIGN KEY ("event_id")
  REFERENCES "events"("id") ON DELETE CASCADE ON UPDATE CASCADE;
ALTER TABLE "mail_outbox" ADD CONSTRAINT "mail_outbox_rsvp_id_fkey" FOREIGN KEY ("rsvp_id")
  REFERENCES "rsvps"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- Confirmation messages asked for one address a day (services/rsvps/anonymous.ts): keyed by the
-- SHA-256 of the address in lower case, so that the count keeps no address.
CREATE TABLE "mail_requests" (
  "address_hash" BYTEA NOT NULL,
  "day" DATE NOT NULL,
  "requests" INTEGER NOT NULL,

  CONSTRAINT "mail_requests_pkey" PRIMARY KEY ("address_hash", "day")
);

-- An event cancelled tells everyone who answered it and still expects it, whichever door cancelled
-- it (REST, batch, CalDAV, the importer, a series' status reaching its dates: services/series/sync.ts):
-- a trigger, since every one of them writes this row. Only an event not over yet: a series cancelled
-- from now on also marks its past dates, whose people came (or did not) already.
CREATE FUNCTION "mail_event_canceled"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO "mail_outbox" ("kind", "event_id", "rsvp_id", "recipient", "name")
  SELECT 'event-canceled', NEW.id, r.id, r.email, r.name FROM "rsvps" r
  WHERE r.event_id = NEW.id AND r.confirmed AND r.email IS NOT NULL
    AND r.status IN ('going', 'waiting', 'pending');
  RETURN NULL;
END $$;

-- An event moved to the trash is off for those who answered it too (unless it was cancelled already).
CREATE TRIGGER "events_mail_canceled" AFTER UPDATE OF "event_status", "status" ON "events"
  FOR EACH ROW WHEN (NEW.end_utc > now() AND (
    (NEW.event_status = 'canceled' AND OLD.event_status IS DISTINCT FROM 'canceled')
    OR (NEW.status = 'trash' AND OLD.status <> 'trash' AND OLD.event_status <> 'canceled')))
  EXECUTE FUNCTION "mail_event_canceled"();
