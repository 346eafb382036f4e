-- Federation over ActivityPub (src/federation/, docs/federation.md): the calendar's actor keys,
-- Fedify's key-value store, the followers, the events as followers were told of them, and the
-- deliveries made from the change feed, with their dispatch position.

-- The actor's key pairs (JWK), one per algorithm: RSA for draft-cavage HTTP Signatures, Ed25519 for
-- Object Integrity Proofs. Created once by whichever instance first needs them: an insert that
-- finds the algorithm taken keeps the pair already there (src/federation/keys.ts).
CREATE TABLE "federation_keys" (
  "algorithm" text PRIMARY KEY CHECK ("algorithm" IN ('RSASSA-PKCS1-v1_5', 'Ed25519')),
  "private_jwk" jsonb NOT NULL,
  "public_jwk" jsonb NOT NULL,
  "created_at" timestamptz(3) NOT NULL DEFAULT now()
);

-- Fedify's KvStore (src/federation/kv-store.ts): remote keys and documents cached, activities
-- already taken (idempotence). A key is Fedify's array of strings; an entry past `expires_at` is
-- absent, and housekeeping removes it.
CREATE TABLE "federation_kv" (
  "key" text[] PRIMARY KEY,
  "value" jsonb NOT NULL,
  "expires_at" timestamptz(3)
);
CREATE INDEX "federation_kv_expires_at_idx" ON "federation_kv" ("expires_at") WHERE "expires_at" IS NOT NULL;

-- Remote actors that follow the calendar. `accepted` is false while a follow waits for approval
-- (FEDERATION_APPROVE_FOLLOWS). One row per actor: a second Follow updates it (unique index).
CREATE TABLE "federation_followers" (
  "id" serial PRIMARY KEY,
  "actor_id" text NOT NULL UNIQUE,
  "inbox" text NOT NULL,
  "shared_inbox" text,
  "follow_id" text NOT NULL,
  "accepted" boolean NOT NULL,
  "created_at" timestamptz(3) NOT NULL DEFAULT now()
);

-- What followers were told of each event: `live` after a Create (Updates follow), false after its
-- Delete (its URL then answers 410 Gone). Written by the dispatcher under its position's lock.
CREATE TABLE "federation_events" (
  "event_id" integer PRIMARY KEY,
  "live" boolean NOT NULL,
  "changed_at" timestamptz(3) NOT NULL DEFAULT now()
);

-- One delivery per activity and inbox (a shared inbox stands for all its followers), sent by the
-- delivery worker (src/federation/deliver.ts) and retried with back-off; `host` keys the limits per
-- remote server, `object_id` keeps one object's activities in order at one inbox.
CREATE TABLE "federation_deliveries" (
  "id" bigserial PRIMARY KEY,
  "activity_id" text NOT NULL,
  "object_id" text NOT NULL,
  "inbox" text NOT NULL,
  "host" text NOT NULL,
  "payload" text NOT NULL,
  "state" text NOT NULL DEFAULT 'pending' CHECK ("state" IN ('pending', 'delivered', 'failed')),
  "attempts" integer NOT NULL DEFAULT 0,
  "next_attempt_at" timestamptz(3) NOT NULL DEFAULT now(),
  "lease_until" timestamptz(3),
  "last_error" text,
  "created_at" timestamptz(3) NOT NULL DEFAULT now(),
  "delivered_at" timestamptz(3),
  UNIQUE ("activity_id", "inbox")
);
CREATE INDEX "federation_deliveries_due_idx" ON "federation_deliveries" ("host", "next_attempt_at", "id")
  WHERE "state" = 'pending';
CREATE INDEX "federation_deliveries_order_idx" ON "federation_deliveries" ("inbox", "object_id", "id")
  WHERE "state" = 'pending';

-- The change feed position up to which changes have become deliveries, as for webhooks (migration
-- webhooks): moved under its row lock, in the transaction that writes the deliveries.
CREATE TABLE "federation_dispatch" (
  "only" boolean PRIMARY KEY DEFAULT true CHECK ("only"),
  "xid" xid8 NOT NULL,
  "seq" bigint NOT NULL
);
-- Changes recorded before federation existed are not delivered: start after every finished transaction.
INSERT INTO "federation_dispatch" ("xid", "seq") VALUES (pg_snapshot_xmin(pg_current_snapshot()), 0);
