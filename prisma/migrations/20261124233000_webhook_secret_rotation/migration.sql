-- Secrets a subscription had before its current one, each sealed as the current one is
-- (lib/secret-box.ts) with the instant it stops signing: `[{"secret": ..., "expires_at": ...}]`.
-- A rotation (services/webhooks.ts) appends the current one and keeps those not expired.
ALTER TABLE "webhook_subscriptions" ADD COLUMN "previous_secrets" JSONB NOT NULL DEFAULT '[]';
