// The calendars the calendar follows (services/federation-sources.ts); administrators only (the
// document's x-required-role).
import { pageOf, totalPages } from '../domain/paging.js';
import type { Call, Reply } from '../http/handler.js';
import { serializeFederationSource } from '../serializers/federation-sources.js';
import * as sources from '../services/federation-sources.js';

export async function listFederationSources(call: Call<'listFederationSources'>): Promise<Reply> {
  const page = pageOf(call.query.page, call.query.per_page);
  const { items, total } = await sources.listFederationSources(call.context, { take: page.perPage, skip: page.offset });
  return {
    body: {
      sources: items.map((row) => serializeFederationSource(row, call.urls)),
      total,
      total_pages: totalPages(total, page.perPage),
    },
  };
}

export async function followFederationSource(call: Call<'followFederationSource'>): Promise<Reply> {
  const row = await sources.followFederationSource(call.context, call.config.federation, call.body);
  const body = serializeFederationSource(row, call.urls);
  return { status: 201, body, headers: { Location: body.rest_url } };
}

export async function getFederationSource(call: Call<'getFederationSource'>): Promise<Reply> {
  return {
    body: serializeFederationSource(await sources.getFederationSource(call.context, call.params.id), call.urls),
  };
}

export async function updateFederationSource(call: Call<'updateFederationSource'>): Promise<Reply> {
  const row = await sources.updateFederationSource(call.context, call.params.id, call.body);
  return { body: serializeFederationSource(row, call.urls) };
}

export async function unfollowFederationSource(call: Call<'unfollowFederationSource'>): Promise<Reply> {
  const row = await sources.unfollowFederationSource(call.context, call.config.federation, call.params.id);
  return { body: serializeFederationSource(row, call.urls) };
}
