// Webhook subscriptions, managed by administrators (the document's x-required-role): a target URL,
// the event types it wants, and a secret shown once, at creation. Deliveries are made by
// src/webhooks/; here they are only read, and a ping is queued like any other delivery.
import { randomBytes } from 'node:crypto';
import type { Prisma } from '../../generated/prisma/client.js';
import { InvalidInput, NotFound, WebhookDisabled } from '../domain/errors.js';
import { seal } from '../lib/secret-box.js';
import { refusedTarget } from '../lib/webhook-targets.js';
import type { ServiceContext } from './context.js';

export interface WebhookSettings {
  allowPrivateTargets: boolean;
  secretKey?: string;
}

export interface WebhookInput {
  url?: string;
  events?: string[];
  description?: string;
  enabled?: boolean;
  attendee_data?: boolean;
}

/** Every event type that names RSVPs (WebhookEventType in the document). */
const RSVP_TYPES = ['rsvp.*', 'rsvp.created', 'rsvp.updated', 'rsvp.deleted'];

/** Whether event types ask for RSVPs by name (`rsvp.*`, `rsvp.created`, ...); `*` does not: it takes what it may. */
const asksRsvps = (types: string[]) => types.some((t) => RSVP_TYPES.includes(t));

const refusedRsvps = () =>
  new InvalidInput({
    events: 'RSVP changes carry names and e-mail addresses: subscribe to rsvp.* with attendee_data true only.',
  });

const subscriptionNotFound = (id: number) => new NotFound('webhook', id);

/** The URL as it will be called (scheme and host in lower case, as the URL parser writes them), once it may be. */
async function checkedTarget(url: string | undefined, settings: WebhookSettings): Promise<string | undefined> {
  if (url === undefined) return undefined;
  const refused = await refusedTarget(url, settings.allowPrivateTargets);
  if (refused) throw new InvalidInput({ url: refused });
  return new URL(url).href;
}

export async function listWebhooks(ctx: ServiceContext) {
  return ctx.db.webhookSubscription.findMany({ orderBy: { id: 'asc' } });
}

export async function getWebhook(ctx: ServiceContext, id: number) {
  const row = await ctx.db.webhookSubscription.findUnique({ where: { id } });
  if (!row) throw subscriptionNotFound(id);
  return row;
}

/** Creates a subscription; answers it with its secret, which is never shown again. */
export async function createWebhook(
  ctx: ServiceContext,
  input: Required<Pick<WebhookInput, 'url' | 'events'>> & WebhookInput,
  settings: WebhookSettings,
) {
  if (asksRsvps(input.events) && !input.attendee_data) throw refusedRsvps();
  const url = (await checkedTarget(input.url, settings)) ?? input.url;
  const secret = `whsec_${randomBytes(32).toString('base64')}`;
  const row = await ctx.db.webhookSubscription.create({
    data: {
      url,
      eventTypes: [...new Set(input.events)],
      description: input.description ?? '',
      enabled: input.enabled ?? true,
      attendeeData: input.attendee_data ?? false,
      secret: seal(secret, settings.secretKey),
    },
  });
  return { row, secret };
}

/**
 * Changes what is sent; enabling a subscription again clears why it stopped, and its pending
 * deliveries resume. A subscription that asks for `rsvp.*` keeps `attendee_data` true: what the
 * update does not send is required of the stored row in the update's own condition, so that two
 * updates at once (one adding `rsvp.*`, one withdrawing attendee data) cannot both pass.
 */
export async function updateWebhook(ctx: ServiceContext, id: number, input: WebhookInput, settings: WebhookSettings) {
  const rsvps = input.events && asksRsvps(input.events);
  if (rsvps && input.attendee_data === false) throw refusedRsvps();
  const data: Prisma.WebhookSubscriptionUpdateInput = {
    url: await checkedTarget(input.url, settings),
    eventTypes: input.events && [...new Set(input.events)],
    description: input.description,
    enabled: input.enabled,
    attendeeData: input.attendee_data,
    disabledReason: input.enabled === undefined ? undefined : null,
    modifiedAt: new Date(),
  };
  const where: Prisma.WebhookSubscriptionWhereInput = { id };
  if (rsvps && input.attendee_data === undefined) where.attendeeData = true;
  if (input.events === undefined && input.attendee_data === false) {
    where.NOT = { eventTypes: { hasSome: RSVP_TYPES } };
  }
  const { count } = await ctx.db.webhookSubscription.updateMany({ where, data });
  if (count === 0) {
    await getWebhook(ctx, id);
    throw refusedRsvps();
  }
  return getWebhook(ctx, id);
}

/** Secrets kept for an overlap at most; the oldest go first. */
const MAX_PREVIOUS_SECRETS = 5;

/**
 * A new secret for the subscription, answered once; the secrets before it (the current one, and
 * earlier ones not expired yet) keep signing messages for `overlapSeconds`. One statement: two
 * rotations at once queue on the row, and the second keeps the secret the first set as a previous
 * one, so no secret a receiver may still hold is dropped before its time.
 */
export async function rotateWebhookSecret(
  ctx: ServiceContext,
  id: number,
  overlapSeconds: number,
  settings: WebhookSettings,
) {
  const secret = `whsec_${randomBytes(32).toString('base64')}`;
  const rows = await ctx.db.$queryRaw<{ id: number }[]>`
    UPDATE webhook_subscriptions SET
      previous_secrets = (
        SELECT coalesce(jsonb_agg(p.value ORDER BY p.ordinality), '[]'::jsonb) FROM (
          SELECT value, ordinality FROM jsonb_array_elements(
            webhook_subscriptions.previous_secrets
            || CASE WHEN ${overlapSeconds}::int > 0 THEN jsonb_build_array(jsonb_build_object(
                 'secret', webhook_subscriptions.secret,
                 'expires_at', now() + make_interval(secs => ${overlapSeconds}::int)))
               ELSE '[]'::jsonb END) WITH ORDINALITY
          WHERE ${overlapSeconds}::int > 0 AND (value->>'expires_at')::timestamptz > now()
          ORDER BY ordinality DESC LIMIT ${MAX_PREVIOUS_SECRETS}::int) p),
      secret = ${seal(secret, settings.secretKey)}, modified_at = now()
    WHERE id = ${id}::int
    RETURNING id`;
  if (!rows.length) throw subscriptionNotFound(id);
  return { row: await getWebhook(ctx, id), secret };
}

/** Deletes a subscription with its deliveries and their attempts; answers it as it was. */
export async function deleteWebhook(ctx: ServiceContext, id: number) {
  const row = await getWebhook(ctx, id);
  const { count } = await ctx.db.webhookSubscription.deleteMany({ where: { id } });
  if (count === 0) throw subscriptionNotFound(id);
  return row;
}

/** Queues a `webhook.ping` message to the subscription, sent as soon as a worker is free. */
export async function pingWebhook(ctx: ServiceContext, id: number, body: (messageId: string) => string) {
  const subscription = await getWebhook(ctx, id);
  // Nothing is sent to a disabled subscription: a ping would wait for ever.
  if (!subscription.enabled) throw new WebhookDisabled(id);
  const messageId = `msg_ping_${randomBytes(12).toString('hex')}`;
  return ctx.db.webhookDelivery.create({
    data: { subscriptionId: subscription.id, messageId, eventType: 'webhook.ping', payload: body(messageId) },
    include: { attemptLog: { orderBy: { id: 'asc' } } },
  });
}

/** The subscription's deliveries, newest first, each with its attempts. */
export async function listDeliveries(ctx: ServiceContext, id: number, page: { take: number; skip: number }) {
  await getWebhook(ctx, id);
  const where = { subscriptionId: id };
  const [total, items] = await Promise.all([
    ctx.db.webhookDelivery.count({ where }),
    ctx.db.webhookDelivery.findMany({
      where,
      orderBy: { id: 'desc' },
      ...page,
      include: { attemptLog: { orderBy: { id: 'asc' } } },
    }),
  ]);
  return { total, items };
}
