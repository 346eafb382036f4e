-- The first due deliveries of each subscription, for leasing a few of each at a time
-- (webhooks/deliver.ts leaseDue): a receiver that hangs holds only its own few attempts.
CREATE INDEX "webhook_deliveries_pending_by_subscription_idx" ON "webhook_deliveries" ("subscription_id", "next_attempt_at", "id")
  WHERE "state" = 'pending';
