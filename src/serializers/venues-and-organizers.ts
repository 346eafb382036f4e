// The venue and organizer representations, with `rest_url` (docs/decisions.md, "Representations"):
// empty fields are left out, and `json_ld` is added on single reads.
import type { components } from '../../generated/api.js';
import type { Caller } from '../auth/roles.js';
import type { Urls } from '../http/urls.js';
import { textOf } from '../lib/text.js';
import type { VenueOrOrganizerKind, VenueOrOrganizerRecord } from '../domain/records.js';
import { personJsonLd, placeJsonLd } from './json-ld.js';
import { venueOrOrganizerLinks } from './links.js';
import { restUrl } from './rest-urls.js';
import { globalId } from '../domain/identities.js';
import { postMeta } from './posts.js';
import { imageObject } from './images.js';

type Venue = components['schemas']['Venue'];
type Organizer = components['schemas']['Organizer'];

export const COLLECTION = { venue: 'venues', organizer: 'organizers' } as const;

export interface SerializeOptions {
  urls: Urls;
  siteZone: string;
  /** Single reads carry `json_ld`. */
  single?: boolean;
  /** `_links` for this caller (serializers/links.ts): on every venue or organizer answered, not on one deleted for good, nor inside an event. */
  links?: { caller: Caller };
}

export function serializeVenueOrOrganizer(
  kind: VenueOrOrganizerKind,
  row: VenueOrOrganizerRecord,
  { urls, siteZone, single, links }: SerializeOptions,
): Venue | Organizer {
  // Built in one pass, in the representation's field order: an event list embeds one of these per link.
  const out: Record<string, unknown> = {};
  const put = (key: string, value: unknown) => {
    if (value !== undefined && value !== null && value !== '') out[key] = value;
  };
  put('id', row.id);
  const meta = postMeta(row, siteZone);
  for (const key of Object.keys(meta) as (keyof typeof meta)[]) put(key, meta[key]);
  put('url', `${urls.site}/${kind.type}/${encodeURIComponent(row.slug)}/`);
  put('rest_url', restUrl(COLLECTION[kind.type], row.id, urls));
  put(kind.nameField, row.name);
  put('description', row.description);
  put('excerpt', row.excerpt);
  put('slug', row.slug);
  put('image', imageObject(row, urls.site));
  for (const field of kind.textFields) put(field, textOf(row[field]));
  if (kind.type === 'venue') {
    put('geo_lat', row.geoLat);
    put('geo_lng', row.geoLng);
  }
  if (single) out.json_ld = venueOrOrganizerJsonLd(kind, row, urls.site);
  if (kind.type === 'venue') {
    out.show_map = Boolean(row.showMap);
    out.show_map_link = Boolean(row.showMapLink);
  }
  out.global_id = globalId(urls.site, row.id);
  out.global_id_lineage = [out.global_id];
  if (links) out._links = venueOrOrganizerLinks(COLLECTION[kind.type], row, urls, links.caller);
  return out as unknown as Venue | Organizer;
}

/** The schema.org Place of a venue or Person of an organizer (serializers/json-ld.ts). */
function venueOrOrganizerJsonLd(kind: VenueOrOrganizerKind, row: VenueOrOrganizerRecord, site: string) {
  return kind.type === 'venue' ? placeJsonLd(row, site) : personJsonLd(row, site);
}
