// What only venues do on a write: map flags, coordinates, and the state or province they show.
import type { VenueOrOrganizerRecord } from '../domain/records.js';
import { textOf } from '../lib/text.js';
import { truthy } from '../lib/truthy.js';

type Input = Record<string, unknown>;

/** Columns a venue write computes; what is not sent keeps its value. */
export function venueColumns(input: Input, current: VenueOrOrganizerRecord | undefined): Record<string, unknown> {
  const data: Record<string, unknown> = {};
  // Map flags default to true on create and keep their value on update when not sent.
  if (input.show_map !== undefined) data.showMap = truthy(input.show_map as string | boolean);
  if (input.show_map_link !== undefined) data.showMapLink = truthy(input.show_map_link as string | boolean);
  if (input.geo_lat !== undefined) data.geoLat = input.geo_lat;
  if (input.geo_lng !== undefined) data.geoLng = input.geo_lng;
  // stateprovince follows state (US addresses) or province, unless the caller set it apart.
  if (input.stateprovince === undefined) {
    const was = current ? String(current.stateprovince) : '';
    const wasDerived = !current || was === '' || was === stateOrProvince(current);
    const next = { ...current, ...pick(input, ['state', 'province', 'country']) };
    if (wasDerived) data.stateprovince = stateOrProvince(next);
  }
  return data;
}

/**
 * The state when the country is empty or the United States, else the province (docs/decisions.md,
 * "Venues and organizers").
 */
function stateOrProvince(address: Record<string, unknown>): string {
  const country = textOf(address.country).trim().toLowerCase();
  const us = country === '' || country === 'us' || country === 'usa' || country === 'united states';
  return textOf(us ? address.state : address.province).trim();
}

function pick(input: Input, fields: string[]) {
  return Object.fromEntries(fields.filter((f) => input[f] !== undefined).map((f) => [f, String(input[f]).trim()]));
}
