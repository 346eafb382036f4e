// The event representation (docs/decisions.md, "Representations"), field for field and in its order, with the
// venues, organizers and terms embedded (part 1.5) and `json_ld` on single reads.
import type { components } from '../../generated/api.js';
import { canRead } from '../auth/permissions.js';
import type { Caller } from '../auth/roles.js';
import type { Urls } from '../http/urls.js';
import { type CostInput, type CurrencySettings, parseCost } from '../lib/cost.js';
import type { Zone } from 'luxon';
import { formatDateTime } from '../lib/dates.js';
import { closesAt } from '../lib/rsvp-closing.js';
import { dateDetails, eventZone, UTC_ZONE, zoneAbbreviation } from '../lib/event-times.js';
import {
  type EventRecord,
  ORGANIZER,
  VENUE,
  type VenueOrOrganizerKind,
  type VenueOrOrganizerRecord,
} from '../domain/records.js';
import { globalId } from '../domain/identities.js';
import { postMeta } from './posts.js';
import { imageObject } from './images.js';
import { eventJsonLd } from './json-ld.js';
import { eventLinks } from './links.js';
import { serializeVenueOrOrganizer } from './venues-and-organizers.js';
import { restUrl } from './rest-urls.js';
import { termUrls } from './terms.js';

type Event = components['schemas']['Event'];
type EmbeddedTerm = components['schemas']['EmbeddedTerm'];

export interface EventSerializeOptions {
  urls: Urls;
  siteZone: string;
  /** Whose eyes: embedded venues and organizers the caller may not read are left out. */
  caller: Caller;
  /** Single reads carry `json_ld`, on the event and on what it embeds. */
  single?: boolean;
  /** The site's currency symbol and position, for costs that do not carry their own. */
  currency: CurrencySettings;
  /** `_links` (serializers/links.ts): on every event answered, not on one deleted for good. */
  links?: boolean;
}

export const eventPermalink = (slug: string, urls: Urls) => `${urls.site}/event/${encodeURIComponent(slug)}/`;

/** The RSVP settings and public counts; who answered is read at the event's `rsvps` only. */
function rsvpOf(row: EventRecord, zone: Zone): Event['rsvp'] {
  const { going, waiting, checked_in } = row.rsvpCounts;
  return {
    open: row.rsvpOpen,
    closes_at: formatDateTime(closesAt(row.startUtc, row.rsvpClosesBefore), zone),
    capacity: row.rsvpCapacity,
    guests_max: row.rsvpGuestsMax,
    approval: row.rsvpApproval,
    anonymous: row.rsvpAnonymous,
    going,
    waiting,
    checked_in,
    remaining: row.rsvpCapacity === null ? null : Math.max(0, row.rsvpCapacity - going),
  };
}

export function serializeEvent(row: EventRecord, options: EventSerializeOptions): Event {
  const { urls, siteZone, single } = options;
  const zone = eventZone(row.timezone) ?? UTC_ZONE;
  const url = eventPermalink(row.slug, urls);
  const cost = parseCost(row.cost as CostInput, options.currency);
  const { venues, organizers } = readableLinks(row, options.caller);
  const embed = (kind: VenueOrOrganizerKind, item: VenueOrOrganizerRecord) =>
    serializeVenueOrOrganizer(kind, item, { urls, siteZone, single });
  const embeddedVenues = venues.map((venue) => embed(VENUE, venue));

  const event: Event = {
    id: row.id,
    global_id: globalId(urls.site, row.id),
    global_id_lineage: [globalId(urls.site, row.id)],
    ...postMeta(row, siteZone),
    url,
    rest_url: restUrl('events', row.id, urls),
    title: row.title,
    description: row.description,
    excerpt: row.excerpt,
    slug: row.slug,
    image: imageObject(row, urls.site) ?? false,
    all_day: row.allDay,
    start_date: formatDateTime(row.startLocal, 'UTC'),
    start_date_details: dateDetails(row.startLocal),
    end_date: formatDateTime(row.endLocal, 'UTC'),
    end_date_details: dateDetails(row.endLocal),
    utc_start_date: formatDateTime(row.startUtc, 'UTC'),
    utc_start_date_details: dateDetails(row.startUtc),
    utc_end_date: formatDateTime(row.endUtc, 'UTC'),
    utc_end_date_details: dateDetails(row.endUtc),
    timezone: zone.name,
    timezone_abbr: zoneAbbreviation(zone, row.startUtc),
    cost: cost.cost,
    cost_details: cost.cost_details,
    website: row.website ?? url,
    show_map: row.showMap,
    show_map_link: row.showMapLink,
    hide_from_listings: row.hideFromListings,
    sticky: row.sticky,
    featured: row.featured,
    categories: embeddedTerms(row, 'tribe_events_cat', urls),
    tags: embeddedTerms(row, 'post_tag', urls),
    // One venue is an object, none an empty array, several an array (docs/decisions.md, "Representations").
    venue: embeddedVenues.length === 1 ? embeddedVenues[0] : embeddedVenues,
    organizer: organizers.map((organizer) => embed(ORGANIZER, organizer)),
    custom_fields: [],
    recurrence: row.recurrence,
    recurring_event_id: row.parent && canRead(options.caller, row.parent) ? row.parent.id : null,
    original_start_date: row.originalStartLocal ? formatDateTime(row.originalStartLocal, 'UTC') : null,
    event_status: row.eventStatus,
    event_status_reason: row.eventStatusReason,
    is_virtual: row.isVirtual,
    is_hybrid: row.isHybrid,
    virtual_url: row.virtualUrl,
    rsvp: rsvpOf(row, zone.zone),
  } as Event;
  if (single) {
    // The plugin describes the event's first venue and first organizer only.
    event.json_ld = eventJsonLd({
      row,
      zone,
      siteZone,
      site: urls.site,
      url,
      cost,
      venue: venues[0],
      organizer: organizers[0],
    });
  }
  if (options.links) event._links = eventLinks(row, { venues, organizers }, urls, options.caller);
  return event;
}

/** The event's venues and organizers that the caller may read (none in the trash). */
export function readableLinks(row: EventRecord, caller: Caller) {
  const visible = (items: VenueOrOrganizerRecord[]) =>
    items.filter((item) => item.status !== 'trash' && canRead(caller, item));
  return {
    venues: visible(row.venues.map((link) => link.venue as VenueOrOrganizerRecord)),
    organizers: visible(row.organizers.map((link) => link.organizer as VenueOrOrganizerRecord)),
  };
}

// One collator for every sort: localeCompare with a locale and options builds one on each call.
const BY_NAME = new Intl.Collator('en', { sensitivity: 'base' });

/** The event's terms of one taxonomy in the modelled service's raw-term shape, sorted by name. */
function embeddedTerms(row: EventRecord, taxonomy: 'tribe_events_cat' | 'post_tag', urls: Urls): EmbeddedTerm[] {
  return row.terms
    .map((link) => link.term)
    .filter((term) => term.taxonomy === taxonomy)
    .sort((a, b) => BY_NAME.compare(a.name, b.name) || a.id - b.id)
    .map((term) => ({
      name: term.name,
      slug: term.slug,
      term_group: 0,
      term_taxonomy_id: term.id,
      taxonomy,
      description: term.description,
      parent: term.parentId ?? 0,
      count: term.eventCount,
      filter: 'raw',
      id: term.id,
      urls: termUrls({ id: term.id, taxonomy, parentId: term.parentId ?? 0 }, urls),
    }));
}
