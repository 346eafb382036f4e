-- Accounts the general rate limits do not count (an operator's own integrations; src/http/rate-limits.ts).
ALTER TABLE "users" ADD COLUMN "rate_limit_exempt" BOOLEAN NOT NULL DEFAULT false;
