// Webhook subscriptions and their messages as the API shows them; a subscription's secret never.
import type { WebhookAttempt, WebhookDelivery, WebhookSubscription } from '../../generated/prisma/client.js';
import { formatDateTime } from '../lib/dates.js';
import type { Urls } from '../http/urls.js';

const utc = (instant: Date) => formatDateTime(instant, 'UTC');

export function serializeWebhook(row: WebhookSubscription, urls: Urls) {
  return {
    id: row.id,
    url: row.url,
    events: row.eventTypes,
    attendee_data: row.attendeeData,
    description: row.description,
    enabled: row.enabled,
    disabled_reason: row.disabledReason,
    previous_secrets_valid_until_utc: previousSecretsValidUntil(row.previousSecrets),
    created_utc: utc(row.createdAt),
    modified_utc: utc(row.modifiedAt),
    rest_url: `${urls.base}/webhooks/${row.id}`,
  };
}

export function serializeDelivery(row: WebhookDelivery & { attemptLog: WebhookAttempt[] }) {
  return {
    id: row.id,
    message_id: row.messageId,
    event_type: row.eventType,
    state: row.state,
    attempts: row.attemptLog.length,
    next_attempt_utc: utc(row.nextAttemptAt),
    created_utc: utc(row.createdAt),
    delivered_utc: row.deliveredAt && utc(row.deliveredAt),
    attempt_log: row.attemptLog.map((a) => ({
      attempted_utc: utc(a.attemptedAt),
      status_code: a.statusCode,
      error: a.error,
      latency_ms: a.latencyMs,
      response_excerpt: a.responseExcerpt,
    })),
  };
}

/** Until when secrets from before the current one still sign (the latest of their expiries), or null. */
function previousSecretsValidUntil(previous: unknown): string | null {
  const now = Date.now();
  const expiries = (Array.isArray(previous) ? (previous as { expires_at?: string }[]) : [])
    .map((p) => Date.parse(String(p.expires_at)))
    .filter((ms) => ms > now);
  return expiries.length ? utc(new Date(Math.max(...expiries))) : null;
}
