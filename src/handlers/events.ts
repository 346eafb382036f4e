// The event operations: read the validated request, call the events service, shape the reply.
import type { Call, Reply } from '../http/handler.js';
import { listLinks, pageOf, postListReply } from '../lib/pagination.js';
import { serializeEvent } from '../serializers/events.js';
import { type EventListQuery, listEvents as listEventRows } from '../services/event-list.js';
import * as events from '../services/events.js';

const keyOf = (call: Call): events.Key => {
  const params = call.params as { id?: number; slug?: string };
  return params.id !== undefined ? { id: params.id } : { slug: params.slug! };
};

const options = (call: Call, single = false) => ({ urls: call.urls, siteZone: call.config.siteTimezone, caller: call.caller, single });

export async function listEvents(call: Call<'listEvents'>): Promise<Reply> {
  const { page: pageNumber, per_page, ...filters } = call.query as EventListQuery & { page: number; per_page: number };
  const page = pageOf(pageNumber, per_page);
  const { total, items, args } = await listEventRows(call.db.prisma, call.caller, filters, page, call.config.siteTimezone);
  const links = listLinks(`${call.urls.base}/events/`, args, page, total);
  const events = items.map((row) => serializeEvent(row, options(call)));
  return postListReply('events', events, links, total, page.perPage);
}

export async function createEvent(call: Call<'createEvent'>): Promise<Reply> {
  const row = await events.createEvent(call.db.prisma, call.caller, call.body as events.EventInput, call.config.siteTimezone);
  const body = serializeEvent(row, options(call));
  return { status: 201, body, headers: { Location: body.rest_url } };
}

async function getEvent(call: Call): Promise<Reply> {
  return { body: serializeEvent(await events.getEvent(call.db.prisma, call.caller, keyOf(call)), options(call, true)) };
}

async function updateEvent(call: Call): Promise<Reply> {
  const input = (call.body ?? {}) as events.EventInput;
  const row = await events.updateEvent(call.db.prisma, call.caller, keyOf(call), input, call.config.siteTimezone);
  return { body: serializeEvent(row, options(call)) };
}

async function deleteEvent(call: Call): Promise<Reply> {
  const { force } = call.query as { force: boolean };
  return { body: serializeEvent(await events.deleteEvent(call.db.prisma, call.caller, keyOf(call), force), options(call)) };
}

export {
  getEvent,
  getEvent as getEventBySlug,
  updateEvent,
  updateEvent as putEvent,
  updateEvent as patchEvent,
  updateEvent as updateEventBySlug,
  updateEvent as putEventBySlug,
  updateEvent as patchEventBySlug,
  deleteEvent,
  deleteEvent as deleteEventBySlug,
};
