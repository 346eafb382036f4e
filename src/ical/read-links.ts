// What a VEVENT names besides itself: its venue (LOCATION, GEO), organizers (ORGANIZER) and
// categories (CATEGORIES), each an item of its own keyed by its name, which the writer finds or
// creates with the event (services/items/write-item.ts).
import type ICAL from 'ical.js';
import { fullFormats } from 'ajv-formats/dist/formats.js';
import { firstLinks, type ImportItem, type ItemRef, type RefField } from '../domain/external-items.js';
import { maxLengthOf } from '../openapi.js';
import { locationIsOnline } from './read-online.js';
import { fit, textOf } from './values.js';

/** The venue (LOCATION), organizers (ORGANIZER) and categories (CATEGORIES) the event names, and its refs to them. */
export function linksOf(
  component: ICAL.Component,
  maxLinks: number,
  remarks: string[],
): { related: ImportItem[]; refs: RefField[] } {
  const venue = place(component, remarks);
  const people = firstLinks(organizers(component, remarks), maxLinks, 'ORGANIZER lines', remarks);
  const names = component
    .getAllProperties('categories')
    .flatMap((property) => property.getValues().map((value) => fit(String(value), maxLengthOf('TermFields', 'name'))))
    .filter(Boolean);
  const categories = firstLinks(
    [...new Map(names.map((name) => [name.toLowerCase(), named('category', name, { name, parent: 0 })])).values()],
    maxLinks,
    'CATEGORIES',
    remarks,
  );
  const related = [...(venue ? [venue] : []), ...people, ...categories];
  const refs: RefField[] = [
    { field: 'venue', items: venue ? [refOf(venue)] : [] },
    { field: 'organizer', items: people.map(refOf) },
    { field: 'categories', items: categories.map(refOf) },
  ];
  return { related, refs };
}

/** The event's place: LOCATION, with GEO when it holds a latitude and a longitude. */
function place(component: ICAL.Component, remarks: string[]): ImportItem | undefined {
  const location = fit(textOf(component, 'location').trim());
  // A link, or the name of a Teams meeting, is where the event happens online (read-online.ts), not a venue.
  if (!location || locationIsOnline(component)) return undefined;
  const geo = component.getFirstPropertyValue('geo');
  const [lat, lng] = Array.isArray(geo) && geo.length === 2 ? geo.map(Number) : [NaN, NaN];
  const valid = Math.abs(lat) <= 90 && Math.abs(lng) <= 180;
  if (geo !== null && !valid) remarks.push('a GEO that is no latitude and longitude (RFC 5545 3.8.1.6) was left out');
  // Apple's calendars, and this service's export, write the place's name on the first line and its
  // address on the next (`Blue Note Hall\n131 W 3rd St, New York`).
  const [name, ...rest] = location.split('\n').map((line) => line.trim());
  const address = rest.filter(Boolean).join(', ');
  return named('venue', name || location, {
    venue: name || location,
    ...(name && address ? { address } : {}),
    ...(valid ? { geo_lat: lat, geo_lng: lng } : {}),
  });
}

/** A venue, organizer or category an event names, keyed by its name (any case). */
function named(kind: 'venue' | 'organizer' | 'category', name: string, body: Record<string, unknown>): ImportItem {
  return { kind, externalId: `${kind}:${name.toLowerCase()}`, label: name, body, refs: [] };
}

const refOf = (item: ImportItem): ItemRef => ({ kind: item.kind, externalId: item.externalId });

/** ORGANIZER;CN=Ana Ribeiro:mailto:ana@example.com as an organizer named Ana Ribeiro with that address. */
function organizers(component: ICAL.Component, remarks: string[]): ImportItem[] {
  return component.getAllProperties('organizer').flatMap((property) => {
    const address = unwrapped(String(property.getFirstValue() ?? ''));
    const cn = property.getParameter('cn');
    const name = fit((typeof cn === 'string' ? cn : '').trim() || address);
    if (!name) return [];
    // The address only when the API would take it as one (its own check, ajv-formats' email): a
    // wrong one costs the organizer its address, not the event its organizer.
    const email = address.length <= MAX_EMAIL && EMAIL.test(address) ? address : '';
    if (address && !email && address.includes('@')) {
      remarks.push('an ORGANIZER address that is no e-mail address was left out');
    }
    return [named('organizer', name, { organizer: name, ...(email ? { email } : {}) })];
  });
}

/** The longest e-mail address the API takes (openapi/components/schemas/Email.yaml). */
const MAX_EMAIL = 254;
const EMAIL = fullFormats.email as RegExp;

/** `mailto:ana@example.com` as written, also quoted or in angle brackets (`"mailto:..."`, `<...>`). */
function unwrapped(value: string): string {
  let text = value.trim();
  for (;;) {
    const before = text;
    if (/^["'<]/.test(text)) text = text.slice(1);
    if (/["'>]$/.test(text)) text = text.slice(0, -1);
    if (text.toLowerCase().startsWith('mailto:')) text = text.slice('mailto:'.length);
    // `ORGANIZER;CN=:mailto` (seen in real files): a scheme with no address is none.
    if (text.toLowerCase() === 'mailto') text = '';
    text = text.trim();
    if (text === before) return text;
  }
}
