-- The sign-in throttle counts per client address and login as well as per address
-- (auth/throttle.ts): `auth_failures.client` holds either key. An account that signed in from an
-- address is remembered for 30 days, so that others guessing from that address do not lock it out.
CREATE TABLE "auth_known_clients" (
  "client" varchar(100) NOT NULL,
  "user_id" integer NOT NULL REFERENCES "users" ("id") ON DELETE CASCADE,
  "last_sign_in" timestamptz(3) NOT NULL,
  PRIMARY KEY ("client", "user_id")
);
CREATE INDEX "auth_known_clients_last_sign_in_idx" ON "auth_known_clients" ("last_sign_in");
