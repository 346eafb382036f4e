// The calendar's followers (services/followers.ts); administrators only (the document's
// x-required-role). What they send goes to the followers through federation/deliver.ts.
import { pageOf, totalPages } from '../domain/paging.js';
import type { Call, Reply } from '../http/handler.js';
import { serializeFollower } from '../serializers/followers.js';
import * as followers from '../services/followers.js';

/** PUBLIC_URL when federation is on: every activity's id is built from it. */
const site = (call: Call) => call.config.federation?.site;

export async function listFollowers(call: Call<'listFollowers'>): Promise<Reply> {
  const page = pageOf(call.query.page, call.query.per_page);
  const { items, total } = await followers.listFollowers(call.context, call.query.state, {
    take: page.perPage,
    skip: page.offset,
  });
  const pages = totalPages(total, page.perPage);
  return {
    body: { followers: items.map((row) => serializeFollower(row, call.urls)), total, total_pages: pages },
    headers: { 'X-WP-Total': String(total), 'X-WP-TotalPages': String(pages) },
    // Follows arrive at the inbox, outside the API's writes that kept answers know of.
    unkept: true,
  };
}

export async function approveFollower(call: Call<'approveFollower'>): Promise<Reply> {
  const row = await followers.approveFollower(call.context, call.params.id, site(call));
  return { body: serializeFollower(row, call.urls) };
}

export async function rejectFollower(call: Call<'rejectFollower'>): Promise<Reply> {
  const row = await followers.rejectFollower(call.context, call.params.id, site(call));
  return { body: serializeFollower(row, call.urls) };
}

export async function deleteFollower(call: Call<'deleteFollower'>): Promise<Reply> {
  const row = await followers.deleteFollower(call.context, call.params.id, site(call));
  return { body: serializeFollower(row, call.urls) };
}
