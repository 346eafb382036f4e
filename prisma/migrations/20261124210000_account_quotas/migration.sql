-- Creates per account and hour, for the quota of accounts below editor (services/quotas.ts):
-- one row per account and hour, incremented by a conditional upsert as the last statement of each
-- create. Housekeeping deletes the hours that have passed.
CREATE TABLE "account_creates" (
  "user_id" integer NOT NULL REFERENCES "users" ("id") ON DELETE CASCADE,
  "hour" timestamptz(0) NOT NULL,
  "creates" integer NOT NULL,
  PRIMARY KEY ("user_id", "hour")
);
CREATE INDEX "account_creates_hour_idx" ON "account_creates" ("hour");
