// The event operations: read the validated request, call the events service, shape the reply.
import type { EventRecord } from '../domain/records.js';
import { pageOf } from '../domain/paging.js';
import { entityTag, versionOf } from '../http/conditional.js';
import type { Call, Reply } from '../http/handler.js';
import { listHeaders, listLinks, postListReply } from '../http/lists.js';
import { serializeEvent } from '../serializers/events.js';
import { eventsCalendar, ICALENDAR } from '../serializers/ical.js';
import {
  FEED_MAX_BYTES,
  FEED_MAX_EVENTS,
  feedEvents,
  feedIndex,
  listEvents as listEventRecords,
} from '../services/event-list.js';
import { createEvent as createStoredEvent } from '../services/events/create.js';
import { deleteEvent as deleteStoredEvent } from '../services/events/delete.js';
import { getEvent as readEvent, importedUids } from '../services/events/read.js';
import { seriesOverrides } from '../services/series/occurrences.js';
import { updateEvent as updateStoredEvent } from '../services/events/update.js';
import { keyOf, keyPath } from './post-key.js';

type Read = 'getEvent' | 'getEventBySlug';
type CalendarRead = 'getEventCalendar' | 'getEventCalendarBySlug';

/** Changes when the text of feeds changes for the same events (a new way of writing them): every feed's ETag changes with it. */
const FEED_FORMAT = 2;
type Update = 'updateEvent' | 'putEvent' | 'patchEvent' | 'updateEventBySlug' | 'putEventBySlug' | 'patchEventBySlug';
type Delete = 'deleteEvent' | 'deleteEventBySlug';

/** How an event is written: `single` adds what only a read of one event shows; `links` is false for one deleted for good. */
const options = (call: Pick<Call, 'urls' | 'context' | 'config'>, { single = false, links = true } = {}) => ({
  urls: call.urls,
  siteZone: call.context.siteZone,
  caller: call.context.caller,
  single,
  currency: call.config.costCurrency,
  links,
});

/** The validators of one event's response: its version leads the ETag; Last-Modified. */
const validators = (row: EventRecord) => ({ version: versionOf(row.modifiedAt), lastModified: row.modifiedAt });

export async function listEvents(call: Call<'listEvents'>): Promise<Reply> {
  if (wantsCalendar(call)) return seeCalendar(call, `${call.urls.base}/events.ics`);
  const { page: pageNumber, per_page, ical: _ical, ...filters } = call.query;
  const page = pageOf(pageNumber, per_page);
  const { total, items, applied } = await listEventRecords(call.context, filters, page);
  const links = listLinks(`${call.urls.base}/events/`, applied, page, total);
  const serialized = items.map((row) => serializeEvent(row, options(call)));
  const reply = postListReply('events', serialized, links, total, page.perPage);
  return { ...reply, headers: { ...reply.headers, Vary: 'Accept' } };
}

/** The feed calendar applications subscribe to: the whole window in one answer, not a page (services/event-list.ts FEED_MAX_EVENTS). */
export async function getEventsCalendar(call: Call<'getEventsCalendar'>): Promise<Reply> {
  const filters = call.query;
  // Calendar applications poll it: an unchanged feed is answered from its ETag, unread.
  const index = await feedIndex(call.context, filters);
  const { caller } = call.context;
  const calendar = {
    urls: call.urls,
    caller,
    name: 'Events',
    series: !filters.single_events,
    zone: call.context.siteZone,
  };
  return {
    body: undefined,
    etag: entityTag(
      JSON.stringify([FEED_FORMAT, index.digest, call.urls, caller && [caller.id, caller.role], calendar.series]),
    ),
    build: async () => {
      const rows = await feedEvents(call.context, index);
      return eventsCalendar(rows, { ...calendar, uids: await importedUids(call.context, rows) }, FEED_MAX_BYTES);
    },
    contentType: ICALENDAR,
    headers: listHeaders(index.total, FEED_MAX_EVENTS, { rest_url: '' }),
  };
}

/**
 * Calendar applications get iCalendar at the URLs that answer only that (`….ics`), so that a JSON
 * answer has one type for generated clients. Those that subscribe to a URL cannot set headers, so
 * `ical=1` sends them there as an `Accept` that prefers `text/calendar` does.
 */
const wantsCalendar = (call: Pick<Call<'listEvents' | Read>, 'accepts' | 'query'>) =>
  call.query.ical === true || call.accepts(['application/json', 'text/calendar']) === 'text/calendar';

/** What the JSON-only parameters of the list are: the feed has no pages, embeds or JSON shapes. */
const JSON_ONLY = ['ical', 'page', 'per_page', 'context', '_embed', '_fields', '_envelope', '_method'];

/** 303 See Other to the iCalendar URL, with the request's other parameters as they were sent. */
function seeCalendar(call: Pick<Call, 'search'>, url: string): Reply {
  const query = new URLSearchParams(call.search);
  for (const name of JSON_ONLY) query.delete(name);
  const search = query.toString();
  return { status: 303, body: undefined, headers: { Location: search ? `${url}?${search}` : url, Vary: 'Accept' } };
}

export async function createEvent(call: Call<'createEvent'>): Promise<Reply> {
  const row = await createStoredEvent(call.context, call.body);
  const body = serializeEvent(row, options(call));
  return { status: 201, body, headers: { Location: body.rest_url }, ...validators(row) };
}

async function getEvent(call: Call<Read>): Promise<Reply> {
  if (wantsCalendar(call)) return seeCalendar(call, `${call.urls.base}/events/${keyPath(call.params)}.ics`);
  const row = await readEvent(call.context, keyOf(call.params));
  return {
    body: serializeEvent(row, options(call, { single: true })),
    headers: { Vary: 'Accept' },
    ...validators(row),
  };
}

async function getEventCalendar(call: Call<CalendarRead>): Promise<Reply> {
  const row = await readEvent(call.context, keyOf(call.params));
  // A series is its rule and the occurrences changed on their own.
  const overrides = row.recurrence.length ? await seriesOverrides(call.context, row) : [];
  const calendar = {
    urls: call.urls,
    caller: call.context.caller,
    name: row.title,
    series: true,
    zone: call.context.siteZone,
  };
  const uids = await importedUids(call.context, [row, ...overrides]);
  return {
    body: await eventsCalendar([row, ...overrides], { ...calendar, uids }),
    contentType: ICALENDAR,
    ...validators(row),
  };
}

async function updateEvent(call: Call<Update>): Promise<Reply> {
  const row = await updateStoredEvent(call.context, keyOf(call.params), call.body, call.query.scope);
  return { body: serializeEvent(row, options(call)), ...validators(row) };
}

async function deleteEvent(call: Call<Delete>): Promise<Reply> {
  const row = await deleteStoredEvent(call.context, keyOf(call.params), call.query.force, call.query.scope);
  // A trashed event keeps its links; one deleted for good has none, as WordPress answers.
  return { body: serializeEvent(row, options(call, { links: !call.query.force })) };
}

export {
  getEvent,
  getEvent as getEventBySlug,
  getEventCalendar,
  getEventCalendar as getEventCalendarBySlug,
  updateEvent,
  updateEvent as putEvent,
  updateEvent as patchEvent,
  updateEvent as updateEventBySlug,
  updateEvent as putEventBySlug,
  updateEvent as patchEventBySlug,
  deleteEvent,
  deleteEvent as deleteEventBySlug,
};
