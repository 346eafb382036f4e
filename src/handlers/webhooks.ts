// The webhook subscription operations (services/webhooks.ts); administrators only (the document's
// x-required-role).
import { pageOf, totalPages } from '../domain/paging.js';
import type { Call, Reply } from '../http/handler.js';
import { serializeDelivery, serializeWebhook } from '../serializers/webhooks.js';
import * as webhooks from '../services/webhooks.js';

const settings = (call: Call) => ({
  allowPrivateTargets: call.config.webhooks.allowPrivateTargets,
  secretKey: call.config.webhooks.secretKey,
});

export async function listWebhooks(call: Call<'listWebhooks'>): Promise<Reply> {
  const rows = await webhooks.listWebhooks(call.context);
  return { body: { webhooks: rows.map((row) => serializeWebhook(row, call.urls)), total: rows.length } };
}

export async function createWebhook(call: Call<'createWebhook'>): Promise<Reply> {
  const { row, secret } = await webhooks.createWebhook(call.context, call.body, settings(call));
  const body = { ...serializeWebhook(row, call.urls), secret };
  return { status: 201, body, headers: { Location: body.rest_url } };
}

export async function rotateWebhookSecret(call: Call<'rotateWebhookSecret'>): Promise<Reply> {
  // The body is optional: without one, validation has nothing to fill the default into.
  const body = call.body as Partial<typeof call.body> | undefined;
  const overlap = body?.overlap_seconds ?? 86_400;
  const { row, secret } = await webhooks.rotateWebhookSecret(call.context, call.params.id, overlap, settings(call));
  return { body: { ...serializeWebhook(row, call.urls), secret } };
}

export async function getWebhook(call: Call<'getWebhook'>): Promise<Reply> {
  return { body: serializeWebhook(await webhooks.getWebhook(call.context, call.params.id), call.urls) };
}

export async function updateWebhook(call: Call<'updateWebhook'>): Promise<Reply> {
  const row = await webhooks.updateWebhook(call.context, call.params.id, call.body, settings(call));
  return { body: serializeWebhook(row, call.urls) };
}

export async function deleteWebhook(call: Call<'deleteWebhook'>): Promise<Reply> {
  return { body: serializeWebhook(await webhooks.deleteWebhook(call.context, call.params.id), call.urls) };
}

export async function pingWebhook(call: Call<'pingWebhook'>): Promise<Reply> {
  const id = call.params.id;
  const delivery = await webhooks.pingWebhook(call.context, id, () =>
    JSON.stringify({ type: 'webhook.ping', timestamp: new Date().toISOString(), data: { webhook: id } }),
  );
  return { status: 202, body: serializeDelivery(delivery) };
}

export async function listWebhookDeliveries(call: Call<'listWebhookDeliveries'>): Promise<Reply> {
  const page = pageOf(call.query.page, call.query.per_page);
  const { total, items } = await webhooks.listDeliveries(call.context, call.params.id, {
    take: page.perPage,
    skip: page.offset,
  });
  return {
    body: { deliveries: items.map(serializeDelivery), total, total_pages: totalPages(total, page.perPage) },
  };
}
