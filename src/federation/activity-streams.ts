// The ActivityStreams documents the calendar writes of its events: each public event as an `Event`
// (at its federation id, and at its permalink when asked for ActivityStreams), and the Create,
// Update and Delete activities that carry it to followers. Built from the event as the REST API
// serializes it for anonymous readers, so that federation shows what the public pages show.
// What each peer reads of them is in docs/federation.md; test/http/federation-documents.test.ts
// holds them to it.
import { DateTime } from 'luxon';
import type { components } from '../../generated/api.js';

type Event = components['schemas']['Event'];
type Venue = components['schemas']['Venue'];

export const PUBLIC = 'https://www.w3.org/ns/activitystreams#Public';

/**
 * The JSON-LD context: ActivityStreams and the security vocabulary, and the terms Mobilizon's own
 * context defines for what ActivityStreams lacks (schema.org's PostalAddress and capacities,
 * iCalendar's status, Mobilizon's time zone and online flag). `location` stays ActivityStreams' own
 * term, which Fedify and Mastodon read; Mobilizon and Gancio read the keys as plain JSON.
 */
export const CONTEXT = [
  'https://www.w3.org/ns/activitystreams',
  'https://w3id.org/security/v1',
  {
    sc: 'http://schema.org#',
    ical: 'http://www.w3.org/2002/12/cal/ical#',
    mz: 'https://joinmobilizon.org/ns#',
    Hashtag: 'as:Hashtag',
    PostalAddress: 'sc:PostalAddress',
    address: { '@id': 'sc:address', '@type': 'sc:PostalAddress' },
    addressCountry: 'sc:addressCountry',
    addressRegion: 'sc:addressRegion',
    postalCode: 'sc:postalCode',
    addressLocality: 'sc:addressLocality',
    streetAddress: 'sc:streetAddress',
    maximumAttendeeCapacity: 'sc:maximumAttendeeCapacity',
    remainingAttendeeCapacity: 'sc:remainingAttendeeCapacity',
    timezone: { '@id': 'mz:timezone', '@type': 'sc:Text' },
    isOnline: { '@id': 'mz:isOnline', '@type': 'sc:Boolean' },
  },
];

/** Where the federation's documents live, all from the site's public address. */
export interface FederationUrls {
  site: string;
  actor: string;
  followers: string;
}

/** The one actor's identifier, which is also its WebFinger user name: `acct:events@<host>`. */
export const ACTOR = 'events';

export const federationUrls = (site: string): FederationUrls => ({
  site,
  actor: `${site}/federation/actors/${ACTOR}`,
  followers: `${site}/federation/actors/${ACTOR}/followers`,
});

/** An event's ActivityStreams id: by its number, which stays when its slug (and so its permalink) changes. */
export const eventObjectId = (site: string, id: number) => `${site}/federation/events/${id}`;

/** iCalendar's STATUS, as Mobilizon reads `ical:status`: a postponed event is not confirmed. */
const ICAL_STATUS = { scheduled: 'CONFIRMED', canceled: 'CANCELLED', postponed: 'TENTATIVE' } as const;

/** A wall-clock time of the event's zone (`YYYY-MM-DD HH:MM:SS`) as ISO 8601 with its offset. */
const isoIn = (wallClock: string, zone: string) =>
  DateTime.fromSQL(wallClock, { zone }).toISO({ suppressMilliseconds: true }) ?? undefined;

const utcIso = (utc: string) => DateTime.fromSQL(utc, { zone: 'UTC' }).toISO({ suppressMilliseconds: true });

/** The venue as a Place with its PostalAddress and coordinates (Mobilizon's and Gancio's shape). */
function place(venue: Venue) {
  const address = {
    type: 'PostalAddress',
    streetAddress: venue.address || undefined,
    addressLocality: venue.city || undefined,
    addressRegion: (venue.stateprovince ?? venue.state ?? venue.province) || undefined,
    postalCode: venue.zip || undefined,
    addressCountry: venue.country || undefined,
  };
  return {
    type: 'Place',
    id: venue.url,
    name: venue.venue ?? '',
    address,
    ...(typeof venue.geo_lat === 'number' && typeof venue.geo_lng === 'number'
      ? { latitude: venue.geo_lat, longitude: venue.geo_lng }
      : {}),
  };
}

/** A term as a Hashtag: `#` and its name without spaces, as hashtags are written (no page lists a tag's events yet, so no `href`). */
const hashtag = (term: { name: string }) => ({ type: 'Hashtag', name: `#${term.name.replace(/\s+/gu, '')}` });

const imageMediaType = (extension: string | undefined) => {
  const ext = (extension ?? '').toLowerCase();
  if (ext === 'jpg' || ext === 'jpeg') return 'image/jpeg';
  return ext ? `image/${ext}` : 'image/jpeg';
};

/** The event as an ActivityStreams Event, without `@context` (activities embed it). */
export function eventObject(event: Event, urls: FederationUrls): Record<string, unknown> {
  const zone = event.timezone;
  const venues = (Array.isArray(event.venue) ? event.venue : [event.venue]).filter(
    (v): v is Venue => typeof v === 'object' && 'venue' in v,
  );
  const image =
    typeof event.image === 'object'
      ? { type: 'Image', url: event.image.url, mediaType: imageMediaType(event.image.extension) }
      : undefined;
  // Every attachment carries a mediaType: Gancio looks for the image among them by it.
  const attachment = [
    ...(image ? [{ type: 'Document', mediaType: image.mediaType, url: image.url, name: 'Banner' }] : []),
    ...(event.virtual_url ? [{ type: 'Link', href: event.virtual_url, mediaType: 'text/html', name: 'Website' }] : []),
  ];
  const capacity = event.rsvp.open && event.rsvp.capacity !== null ? event.rsvp : undefined;
  return {
    id: eventObjectId(urls.site, event.id),
    type: 'Event',
    url: event.url,
    attributedTo: urls.actor,
    to: [PUBLIC],
    cc: [urls.followers],
    name: event.title,
    content: event.description,
    mediaType: 'text/html',
    published: utcIso(event.date_utc),
    // The last change of what it shows: its venue's, when later than its own (followers take an
    // Update only as newer than what they have).
    updated: utcIso(venues.reduce((last, v) => (v.modified_utc > last ? v.modified_utc : last), event.modified_utc)),
    startTime: isoIn(event.start_date, zone),
    endTime: isoIn(event.end_date, zone),
    timezone: zone,
    ...(venues.length ? { location: venues.length === 1 ? place(venues[0]) : venues.map(place) } : {}),
    ...(image ? { image } : {}),
    ...(attachment.length ? { attachment } : {}),
    tag: [...event.tags.map(hashtag), ...event.categories.map(hashtag)],
    'ical:status': ICAL_STATUS[event.event_status],
    isOnline: event.is_virtual,
    ...(capacity
      ? { maximumAttendeeCapacity: capacity.capacity, remainingAttendeeCapacity: capacity.remaining ?? 0 }
      : {}),
  };
}

/** The event document as served at its id and permalink. */
export const eventDocument = (event: Event, urls: FederationUrls) => ({
  '@context': CONTEXT,
  ...eventObject(event, urls),
});

export type ActivityKind = 'Create' | 'Update' | 'Delete';

/**
 * An activity about an event, with an id derived from the change it comes from (`version`: the
 * event's modification time, in milliseconds), so that dispatching the same change again gives the
 * same activity and receivers take it once.
 */
export function eventActivity(
  kind: ActivityKind,
  object: Record<string, unknown> | { id: string },
  urls: FederationUrls,
  version: number,
): Record<string, unknown> {
  const objectId = object.id as string;
  const body =
    kind === 'Delete' ? { id: objectId, type: 'Tombstone', formerType: 'Event' } : (object as Record<string, unknown>);
  return {
    '@context': CONTEXT,
    id: `${objectId}#${kind.toLowerCase()}-${version}`,
    type: kind,
    actor: urls.actor,
    to: [PUBLIC],
    cc: [urls.followers],
    object: body,
  };
}

/** A follow of the calendar as its answer names it: the Follow's id and its actor. */
export interface FollowRef {
  followId: string;
  actorId: string;
}

/**
 * The calendar's answer to a follow: `Accept` (at once, or when an administrator approves it) or
 * `Reject` (refused, or the follower removed, as Mastodon and Mobilizon say it). The Follow goes by
 * its ids, not the follower's whole document; the answer's id is derived from the Follow's, so the
 * same answer queued twice is one delivery (federation_deliveries' unique activity and inbox).
 */
export function followAnswer(kind: 'Accept' | 'Reject', follow: FollowRef, urls: FederationUrls) {
  return {
    '@context': 'https://www.w3.org/ns/activitystreams',
    id: `${urls.actor}#${kind.toLowerCase()}s/${encodeURIComponent(follow.followId)}`,
    type: kind,
    actor: urls.actor,
    to: [follow.actorId],
    object: { id: follow.followId, type: 'Follow', actor: follow.actorId, object: urls.actor },
  };
}
