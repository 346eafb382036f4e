// An event's RSVPs (services/rsvps/): who may do what is the service's to assert.
import { pageOf, totalPages } from '../domain/paging.js';
import type { Call, Reply } from '../http/handler.js';
import { formatDateTime } from '../lib/dates.js';
import { serializeRsvp } from '../serializers/rsvps.js';
import { confirmRsvp as useConfirmation } from '../services/rsvps/anonymous.js';
import { getRsvp as readRsvp, listRsvps as readRsvps } from '../services/rsvps/read.js';
import { cancelRsvp, createRsvp as takeRsvp, updateRsvp as changeRsvp } from '../services/rsvps/write.js';

/** The owner's token of an RSVP made without an account (the document's `rsvpToken`). */
const tokenOf = (call: Call) => call.header('RSVP-Token');

export async function listRsvps(call: Call<'listRsvps'>): Promise<Reply> {
  const page = pageOf(call.query.page, call.query.per_page);
  const { items, total } = await readRsvps(call.context, call.params.id, { take: page.perPage, skip: page.offset });
  return { body: { rsvps: items.map(serializeRsvp), total, total_pages: totalPages(total, page.perPage) } };
}

export async function createRsvp(call: Call<'createRsvp'>): Promise<Reply> {
  // The body is optional: a signed-in caller going alone sends none.
  const body = (call.body as typeof call.body | undefined) ?? {};
  const taken = await takeRsvp(call.context, call.params.id, body);
  if ('requested' in taken) {
    const requested = {
      event: call.params.id,
      email: String(body.email),
      confirmation_expires_utc: formatDateTime(taken.requested, 'UTC'),
    };
    return { status: 202, body: requested };
  }
  const rsvp = serializeRsvp(taken);
  const location = `${call.urls.base}/events/${rsvp.event}/rsvps/${rsvp.id}`;
  return { status: 201, body: rsvp, headers: { Location: location } };
}

export async function confirmRsvp(call: Call<'confirmRsvp'>): Promise<Reply> {
  const { rsvp, token } = await useConfirmation(call.context, call.params.id, call.params.rsvp_id, call.body.code);
  return { body: { ...serializeRsvp(rsvp), token } };
}

export async function getRsvp(call: Call<'getRsvp'>): Promise<Reply> {
  const rsvp = await readRsvp(call.context, call.params.id, call.params.rsvp_id, tokenOf(call));
  return { body: serializeRsvp(rsvp) };
}

export async function updateRsvp(call: Call<'updateRsvp'>): Promise<Reply> {
  const rsvp = await changeRsvp(call.context, call.params.id, call.params.rsvp_id, call.body, tokenOf(call));
  return { body: serializeRsvp(rsvp) };
}

export async function deleteRsvp(call: Call<'deleteRsvp'>): Promise<Reply> {
  return { body: serializeRsvp(await cancelRsvp(call.context, call.params.id, call.params.rsvp_id, tokenOf(call))) };
}
