// The event operations: read the validated request, call the events service, shape the reply.
import { versionOf } from '../http/conditional.js';
import type { Call, Reply } from '../http/handler.js';
import { listHeaders, listLinks, pageOf, postListReply } from '../lib/pagination.js';
import { serializeEvent } from '../serializers/events.js';
import { eventsCalendar, ICALENDAR } from '../serializers/ical.js';
import { type EventListQuery, listEvents as listEventRows } from '../services/event-list.js';
import * as events from '../services/events.js';
import { keyOf } from './post-key.js';

const options = (call: Call, single = false) => ({
  urls: call.urls,
  siteZone: call.config.siteTimezone,
  caller: call.caller,
  single,
});

/** The validators of one event's response: its version leads the ETag; Last-Modified. */
const validators = (row: events.EventRow) => ({ version: versionOf(row.modifiedAt), lastModified: row.modifiedAt });

export async function listEvents(call: Call<'listEvents'>): Promise<Reply> {
  const { page: pageNumber, per_page, ...filters } = call.query as EventListQuery & { page: number; per_page: number };
  const page = pageOf(pageNumber, per_page);
  const { total, items, args } = await listEventRows(
    call.db.prisma,
    call.caller,
    filters,
    page,
    call.config.siteTimezone,
  );
  const links = listLinks(`${call.urls.base}/events/`, args, page, total);
  if (wantsCalendar(call)) {
    const headers = { ...listHeaders(total, page.perPage, links), Vary: 'Accept' };
    return {
      body: eventsCalendar(items, { urls: call.urls, caller: call.caller, name: 'Events' }),
      contentType: ICALENDAR,
      headers,
    };
  }
  const events = items.map((row) => serializeEvent(row, options(call)));
  const reply = postListReply('events', events, links, total, page.perPage);
  return { ...reply, headers: { ...reply.headers, Vary: 'Accept' } };
}

/** Calendar applications ask for `text/calendar`; everyone else gets JSON. */
const wantsCalendar = (call: Call) => call.accepts(['application/json', 'text/calendar']) === 'text/calendar';

export async function createEvent(call: Call<'createEvent'>): Promise<Reply> {
  const row = await events.createEvent(
    call.db.prisma,
    call.caller,
    call.body as events.EventInput,
    call.config.siteTimezone,
  );
  const body = serializeEvent(row, options(call));
  return { status: 201, body, headers: { Location: body.rest_url }, ...validators(row) };
}

async function getEvent(call: Call): Promise<Reply> {
  const row = await events.getEvent(call.db.prisma, call.caller, keyOf(call));
  if (wantsCalendar(call)) {
    return {
      body: eventsCalendar([row], { urls: call.urls, caller: call.caller, name: row.title }),
      contentType: ICALENDAR,
      headers: { Vary: 'Accept' },
      ...validators(row),
    };
  }
  return { body: serializeEvent(row, options(call, true)), headers: { Vary: 'Accept' }, ...validators(row) };
}

async function updateEvent(call: Call): Promise<Reply> {
  const input = (call.body ?? {}) as events.EventInput;
  const row = await events.updateEvent(
    call.db.prisma,
    call.caller,
    keyOf(call),
    input,
    call.config.siteTimezone,
    call.precondition,
  );
  return { body: serializeEvent(row, options(call)), ...validators(row) };
}

async function deleteEvent(call: Call): Promise<Reply> {
  const { force } = call.query as { force: boolean };
  return {
    body: serializeEvent(
      await events.deleteEvent(call.db.prisma, call.caller, keyOf(call), force, call.precondition),
      options(call),
    ),
  };
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
