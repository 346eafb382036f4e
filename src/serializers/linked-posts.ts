// The venue and organizer representations of the reference (parts 1.2 and 1.3), plus `rest_url`
// (decisions.md): empty fields are left out, and `json_ld` is added on single reads.
import type { components } from '../../generated/api.js';
import type { Urls } from '../http/urls.js';
import { plainText } from '../lib/plain-text.js';
import type { LinkedKind, LinkedRow } from '../services/linked-posts.js';
import { globalId, imageObject } from '../services/posts.js';
import { postMeta } from './posts.js';

type Venue = components['schemas']['Venue'];
type Organizer = components['schemas']['Organizer'];

export const COLLECTION = { venue: 'venues', organizer: 'organizers' } as const;

export interface SerializeOptions {
  urls: Urls;
  siteZone: string;
  /** Single reads carry `json_ld`. */
  single?: boolean;
}

export function linkedRestUrl(kind: LinkedKind, id: number, urls: Urls) {
  return `${urls.base}/${COLLECTION[kind.type]}/${id}`;
}

export function serializeLinked(kind: LinkedKind, row: LinkedRow, { urls, siteZone, single }: SerializeOptions): Venue | Organizer {
  const url = `${urls.site}/${kind.type}/${encodeURIComponent(row.slug)}/`;
  const text = (column: string) => String(row[column] ?? '');
  const fields: Record<string, unknown> = {
    id: row.id,
    ...postMeta(row, siteZone),
    url,
    rest_url: linkedRestUrl(kind, row.id, urls),
    [kind.nameField]: row.name,
    description: row.description,
    excerpt: row.excerpt,
    slug: row.slug,
    image: imageObject(row.image),
    ...Object.fromEntries(kind.textFields.map((f) => [f, text(f)])),
  };
  if (kind.type === 'venue') {
    fields.geo_lat = row.geoLat ?? undefined;
    fields.geo_lng = row.geoLng ?? undefined;
  }
  const present = Object.fromEntries(Object.entries(fields).filter(([, v]) => v !== undefined && v !== null && v !== ''));
  return {
    ...present,
    ...(single ? { json_ld: linkedJsonLd(kind, row) } : {}),
    ...(kind.type === 'venue' ? { show_map: Boolean(row.showMap), show_map_link: Boolean(row.showMapLink) } : {}),
    global_id: globalId(urls.site, row.id),
    global_id_lineage: [globalId(urls.site, row.id)],
  } as Venue | Organizer;
}

const compact = (o: Record<string, unknown>) =>
  Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined && v !== '' && v !== null));

/** The schema.org Place or Person that describes a venue or organizer. */
export function linkedJsonLd(kind: LinkedKind, row: LinkedRow) {
  const text = (column: string) => String(row[column] ?? '');
  return kind.type === 'venue' ? placeJsonLd(row, text) : personJsonLd(row, text);
}

function placeJsonLd(row: LinkedRow, text: (c: string) => string) {
  const address = compact({
    streetAddress: text('address'),
    addressLocality: text('city'),
    addressRegion: text('stateprovince') || text('state') || text('province'),
    postalCode: text('zip'),
    addressCountry: text('country'),
  });
  return compact({
    '@type': 'Place',
    name: row.name,
    description: plainText(row.description),
    url: text('website'),
    address: Object.keys(address).length ? { '@type': 'PostalAddress', ...address } : undefined,
    geo: row.geoLat != null && row.geoLng != null ? { '@type': 'GeoCoordinates', latitude: row.geoLat, longitude: row.geoLng } : undefined,
    telephone: text('phone'),
    sameAs: text('website'),
    image: row.image ?? undefined,
  }) as { '@type': string };
}

function personJsonLd(row: LinkedRow, text: (c: string) => string) {
  return compact({
    '@type': 'Person',
    name: row.name,
    description: plainText(row.description),
    url: text('website'),
    telephone: text('phone'),
    email: text('email'),
    sameAs: text('website'),
    image: row.image ?? undefined,
  }) as { '@type': string };
}
