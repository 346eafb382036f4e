// An ActivityStreams `Event` from another server as an item for the importer's writer
// (services/items/write-item.ts), read as plain JSON with the keys Mobilizon, Gancio and this
// service write (their converters: Mobilizon's lib/federation/activity_stream/converter/event.ex
// and address.ex, Gancio's server/api/models/event.js `toAP` and place.js; ours
// activity-streams.ts): JSON-LD processing would turn the terms their own contexts define
// (Mobilizon's `timezone`, `isOnline`, `ical:status`) into IRIs that neither of them reads either.
// Its HTML is sanitised (lib/remote-html.ts); every text is cut to what the API takes.
import { DateTime } from 'luxon';
import type { ImportItem } from '../domain/external-items.js';
import { sanitizeRemoteHtml } from '../lib/remote-html.js';
import { firstCharacters } from '../lib/text.js';

/** The importer's source for every remote event: its external ID is the object's id (docs/federation.md). */
export const ACTIVITYPUB_SOURCE = 'activitypub';

/** Limits of the API's fields (openapi/components/schemas: Name, ShortText, Url, Text, TermWriteRef). */
const NAME = 500;
const SHORT = 500;
const URL_LENGTH = 2000;
const TEXT = 65535;
const TAG_NAME = 200;
/** Tags taken of one event: an event with a thousand hashtags does not make a thousand tags. */
export const MAX_TAGS = 20;

type Json = Record<string, unknown>;

const isObject = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** A value that may be one item or a list, as a list. */
function list(value: unknown): unknown[] {
  if (Array.isArray(value)) return value;
  return value === undefined ? [] : [value];
}

const text = (value: unknown) => (typeof value === 'string' ? value : '');

/** A plain text of at most `max` characters, trimmed, without control characters but line breaks and tabs. */
function plain(value: unknown, max = SHORT): string {
  const kept = text(value).replace(/\p{Cc}/gu, (c) => (c === '\n' || c === '\t' ? c : ''));
  return firstCharacters(kept.trim(), max).trim();
}

/** An http(s) URL that the API's fields take, or ''. */
export function httpUrl(value: unknown, secure = false): string {
  const given = isObject(value) ? (value.href ?? value.url ?? value.id) : value;
  if (typeof given !== 'string' || given.length > URL_LENGTH || /\s/.test(given)) return '';
  try {
    const url = new URL(given);
    const schemes = secure ? ['https:'] : ['https:', 'http:'];
    return schemes.includes(url.protocol) && !url.username && !url.password ? url.href : '';
  } catch {
    return '';
  }
}

/** The object's id, when it is an http(s) URL. */
export const objectIdOf = (value: unknown): string => httpUrl(isObject(value) ? value.id : value);

/** A valid IANA zone name, or undefined. */
function zoneOf(value: unknown): string | undefined {
  const name = text(value);
  return name && name.length <= 64 && DateTime.now().setZone(name).isValid ? name : undefined;
}

/** A time with its offset (`2026-12-12T19:30:00+01:00`), or undefined. */
function instant(value: unknown): DateTime | undefined {
  const parsed = DateTime.fromISO(text(value), { setZone: true });
  return parsed.isValid ? parsed : undefined;
}

const wallClock = (time: DateTime, zone: string) => time.setZone(zone).toFormat('yyyy-LL-dd HH:mm:ss');

/** A number within ±limit, or undefined (coordinates come as numbers, sometimes as strings). */
function coordinate(value: unknown, limit: number): number | undefined {
  const number = typeof value === 'string' && value.trim() !== '' ? Number(value) : value;
  return typeof number === 'number' && Number.isFinite(number) && Math.abs(number) <= limit ? number : undefined;
}

/** Whether a location is a place one goes to: a VirtualLocation, or one whose address is a link, is not. */
const isPhysical = (location: Json) =>
  location.type !== 'VirtualLocation' && !(isObject(location.address) && location.address.url !== undefined);

/** The first physical Place, as the fields of a venue to find or create. */
function venueOf(locations: Json[]): Record<string, unknown> | undefined {
  const place = locations.find(isPhysical);
  if (!place) return undefined;
  const address = isObject(place.address) ? place.address : undefined;
  // Gancio writes the address as one line of text (place.js); Mobilizon and this service as a
  // schema.org PostalAddress.
  const street = address ? plain(address.streetAddress) : plain(place.address);
  const fields = {
    address: street,
    city: address ? plain(address.addressLocality) : '',
    stateprovince: address ? plain(address.addressRegion) : '',
    zip: address ? plain(address.postalCode) : '',
    country: address ? plain(address.addressCountry) : '',
  };
  const name = plain(place.name, NAME) || fields.address || fields.city;
  if (!name) return undefined;
  const lat = coordinate(place.latitude, 90);
  const lng = coordinate(place.longitude, 180);
  return {
    venue: name,
    ...Object.fromEntries(Object.entries(fields).filter(([, value]) => value !== '')),
    ...(lat !== undefined && lng !== undefined ? { geo_lat: lat, geo_lng: lng } : {}),
  };
}

/**
 * The online address: a VirtualLocation's URL (Gancio), a location whose address is a link, or the
 * attachment Link named "Website" (Mobilizon's online address, and this service's `virtual_url`).
 */
function onlineOf(locations: Json[], attachments: Json[]): string {
  for (const location of locations) {
    if (location.type === 'VirtualLocation') return httpUrl(location.url, true);
    if (isObject(location.address) && location.address.url !== undefined) return httpUrl(location.address.url, true);
  }
  const website = attachments.find((a) => a.type === 'Link' && a.name === 'Website');
  return website ? httpUrl(website.href, true) : '';
}

/** The picture: `image`, else the attachment Document named "Banner" (Mobilizon), else the first image attached (Gancio). */
function imageOf(event: Json, attachments: Json[]): string {
  const image = list(event.image).find((i) => httpUrl(i) !== '');
  if (image !== undefined) return httpUrl(image);
  const documents = attachments.filter((a) => a.type === 'Document' || a.type === 'Image');
  const banner =
    documents.find((a) => a.name === 'Banner') ?? documents.find((a) => text(a.mediaType).startsWith('image/'));
  return banner ? httpUrl(banner.url) : '';
}

/** Hashtags' names without `#`, at most MAX_TAGS, once each (any case); a name of digits alone the API would read as an ID. */
function tagsOf(tags: unknown[]): string[] {
  const names = new Map<string, string>();
  for (const tag of tags) {
    if (!isObject(tag) || tag.type !== 'Hashtag') continue;
    const name = plain(text(tag.name).replace(/^#/, ''), TAG_NAME).replaceAll(',', ' ').trim();
    if (!name || /^\d+$/.test(name) || names.has(name.toLowerCase())) continue;
    names.set(name.toLowerCase(), name);
    if (names.size === MAX_TAGS) break;
  }
  return [...names.values()];
}

/** iCalendar's STATUS as Mobilizon writes it (`ical:status`, and `status` since its 4.x): only CANCELLED is read. */
const cancelled = (event: Json) =>
  [event['ical:status'], event.status].some((value) => text(value).toUpperCase() === 'CANCELLED');

/** Start and end as wall-clock times of the event's zone (or the site's); an end before the start is the start. */
function timesOf(event: Json, siteZone: string) {
  const start = instant(event.startTime);
  if (!start) return undefined;
  const zone = zoneOf(event.timezone) ?? siteZone;
  const endGiven = instant(event.endTime);
  const end = endGiven && endGiven >= start ? endGiven : start;
  return { start_date: wallClock(start, zone), end_date: wallClock(end, zone), timezone: zone };
}

/** Where it happens: its venue, and whether and where it happens online. */
function whereOf(event: Json, attachments: Json[]) {
  const locations = list(event.location).filter(isObject);
  const venue = venueOf(locations);
  const online = onlineOf(locations, attachments);
  // Mobilizon and this service say whether the event is online (`isOnline`); a Mobilizon event that
  // is not may still carry its "Website" link, which is then no place to join it. Gancio says it
  // by its locations: a VirtualLocation, or no physical one.
  const virtual =
    typeof event.isOnline === 'boolean' ? event.isOnline : online !== '' || (locations.length > 0 && !venue);
  return {
    is_virtual: virtual,
    is_hybrid: virtual && venue !== undefined,
    virtual_url: virtual ? online : '',
    venue: venue ?? 0,
  };
}

/**
 * The event as an item of the writer, or why it cannot be taken. `siteZone` is the zone of an event
 * that names none (Gancio writes times with their offset only).
 */
export function remoteEventItem(event: Json, siteZone: string): { item: ImportItem } | { refused: string } {
  const id = objectIdOf(event);
  if (!id) return { refused: 'the event has no http(s) id' };
  const title = plain(event.name, NAME);
  if (!title) return { refused: 'the event has no name' };
  const times = timesOf(event, siteZone);
  if (!times) return { refused: 'the event has no startTime with an offset' };
  const attachments = list(event.attachment).filter(isObject);
  const html = text(event.content) || text(event.summary);
  const body: Record<string, unknown> = {
    title,
    description: firstCharacters(html ? sanitizeRemoteHtml(html) : '', TEXT),
    ...times,
    website: httpUrl(event.url) || (id.length <= URL_LENGTH ? id : ''),
    image: imageOf(event, attachments),
    event_status: cancelled(event) ? 'canceled' : 'scheduled',
    ...whereOf(event, attachments),
    tags: tagsOf(list(event.tag)),
  };
  return {
    item: { kind: 'event', externalId: id, label: title, modified: text(event.updated) || undefined, body, refs: [] },
  };
}
