// An event's RSVPs (services/rsvps/): who may do what is the service's to assert.
import { pageOf, totalPages } from '../domain/paging.js';
import type { Call, Reply } from '../http/handler.js';
import { serializeRsvp } from '../serializers/rsvps.js';
import { getRsvp as readRsvp, listRsvps as readRsvps } from '../services/rsvps/read.js';
import { cancelRsvp, createRsvp as takeRsvp, updateRsvp as changeRsvp } from '../services/rsvps/write.js';

export async function listRsvps(call: Call<'listRsvps'>): Promise<Reply> {
  const page = pageOf(call.query.page, call.query.per_page);
  const { items, total } = await readRsvps(call.context, call.params.id, { take: page.perPage, skip: page.offset });
  return { body: { rsvps: items.map(serializeRsvp), total, total_pages: totalPages(total, page.perPage) } };
}

export async function createRsvp(call: Call<'createRsvp'>): Promise<Reply> {
  // The body is optional: a signed-in caller going alone sends none.
  const body = (call.body as typeof call.body | undefined) ?? {};
  const rsvp = serializeRsvp(await takeRsvp(call.context, call.params.id, body));
  const location = `${call.urls.base}/events/${rsvp.event}/rsvps/${rsvp.id}`;
  return { status: 201, body: rsvp, headers: { Location: location } };
}

export async function getRsvp(call: Call<'getRsvp'>): Promise<Reply> {
  return { body: serializeRsvp(await readRsvp(call.context, call.params.id, call.params.rsvp_id)) };
}

export async function updateRsvp(call: Call<'updateRsvp'>): Promise<Reply> {
  return { body: serializeRsvp(await changeRsvp(call.context, call.params.id, call.params.rsvp_id, call.body)) };
}

export async function deleteRsvp(call: Call<'deleteRsvp'>): Promise<Reply> {
  return { body: serializeRsvp(await cancelRsvp(call.context, call.params.id, call.params.rsvp_id)) };
}
