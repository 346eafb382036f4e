// The `json_ld` member of single event, venue and organizer reads: the schema.org objects the modelled
// plugin writes (src/Tribe/JSON_LD/{Event,Venue,Organizer}.php), field for field and in its order, as the
// live installation sends them (docs/reference samples event-get.json, venue-get.json, organizer-get.json).
//
// Each shape extends the schema-dts leaf type of its schema.org class, so the compiler checks every field
// against schema.org's definition. Where the plugin writes something schema.org's typing does not allow,
// the plugin's output is kept and the type is widened for that one field only, with a note.
//
// Where we differ from the plugin on content (not shape): descriptions are plain text, where the plugin
// HTML-escapes the excerpt's markup (`&lt;p&gt;...`); e-mail addresses are sent as stored, where the
// plugin entity-obfuscates them differently on every request (which would break our strong ETags).
import { imageUrl } from './images.js';
import type {
  EventLeaf,
  GeoCoordinatesLeaf,
  OfferLeaf,
  PersonLeaf,
  PlaceLeaf,
  PostalAddressLeaf,
  VirtualLocationLeaf,
} from 'schema-dts';
import { DateTime } from 'luxon';
import type { EventRecord, VenueOrOrganizerRecord } from '../domain/records.js';
import type { Cost } from '../lib/cost.js';
import { formatDateTime } from '../lib/dates.js';
import type { EventZone } from '../lib/event-times.js';
import { plainText } from '../lib/plain-text.js';
import { textOf } from '../lib/text.js';

/**
 * The plugin's `@context` is `http://schema.org`; schema-dts's `WithContext` spells it `https://schema.org`.
 * Both name the same vocabulary, so we keep the plugin's.
 */
export interface PluginContext {
  '@context': 'http://schema.org';
}

export interface PostalAddressJsonLd extends PostalAddressLeaf {
  '@type': 'PostalAddress';
  streetAddress?: string;
  addressLocality?: string;
  addressRegion?: string;
  postalCode?: string;
  addressCountry?: string;
}

export interface GeoCoordinatesJsonLd extends GeoCoordinatesLeaf {
  '@type': 'GeoCoordinates';
  latitude: number;
  longitude: number;
}

/**
 * A venue. `description`, `url`, `telephone` and `sameAs` are always sent, as empty strings when there is
 * nothing (schema.org would rather have them left out; an empty string still types as its Text or URL).
 * `url` is always empty: the plugin links the venue's own page only with Events Calendar Pro.
 * `address` is always sent, with its `@type` alone when the venue has no address.
 */
export interface PlaceJsonLd extends PlaceLeaf {
  '@type': 'Place';
  name: string;
  description: string;
  image?: string;
  url: '';
  address: PostalAddressJsonLd;
  geo?: GeoCoordinatesJsonLd;
  telephone: string;
  sameAs: string;
}

/** An organizer: always a `Person`, with `url` and `sameAs` both its website, empty strings when not known. */
export interface PersonJsonLd extends PersonLeaf {
  '@type': 'Person';
  name: string;
  description: string;
  image?: string;
  url: string;
  telephone: string;
  email: string;
  sameAs: string;
}

/**
 * One `Offer`, never an `AggregateOffer`: a range is sent as the plugin sends it, in one `price`
 * ("10 – 25"), which schema.org's `price` (Number or Text) allows but search engines do not read as a number.
 *
 * Widened: `availability` is the plugin's `inStock`, which is not one of schema.org's `ItemAvailability`
 * members (`InStock` or `https://schema.org/InStock`).
 */
export interface OfferJsonLd extends Omit<OfferLeaf, 'availability'> {
  '@type': 'Offer';
  price: string;
  priceCurrency: string;
  url: string;
  category: 'primary';
  availability: 'inStock';
  validFrom: string;
}

/** Where an online event is attended: its link to join (`virtual_url`). */
export interface VirtualLocationJsonLd extends VirtualLocationLeaf {
  '@type': 'VirtualLocation';
  url: string;
}

/** Which of schema.org's EventStatusType members each `event_status` is. */
const EVENT_STATUS = {
  scheduled: 'https://schema.org/EventScheduled',
  canceled: 'https://schema.org/EventCancelled',
  postponed: 'https://schema.org/EventPostponed',
} as const satisfies Record<EventRecord['eventStatus'], string>;

export type EventStatusJsonLd = (typeof EVENT_STATUS)[keyof typeof EVENT_STATUS];

export type AttendanceModeJsonLd =
  | 'https://schema.org/OfflineEventAttendanceMode'
  | 'https://schema.org/OnlineEventAttendanceMode'
  | 'https://schema.org/MixedEventAttendanceMode';

/**
 * An event. `location` is its first venue and `organizer` its first organizer (one object, even when the
 * event has several), each without `@context`; `offers` only when it has a cost. `performer` is always the
 * text `Organization`, the plugin's placeholder (schema.org allows Text where it expects an Organization).
 *
 * `eventStatus` and `eventAttendanceMode` follow `event_status`, `is_virtual` and `is_hybrid`. An online
 * event's `location` is a VirtualLocation (its `virtual_url`), and a hybrid one's both places, the venue
 * first, as Google's guidance for mixed events has it. Google's `previousStartDate` belongs to a
 * rescheduled event, a status this service does not have; a postponed event keeps the start it had, as
 * that guidance asks, and nothing stores a start it had before.
 *
 * Not the plugin's: `maximumAttendeeCapacity` is the RSVP capacity, when there is one, and
 * `remainingAttendeeCapacity` the seats left while RSVP is open (counts only: who comes is never here).
 */
export interface EventJsonLd extends Omit<EventLeaf, 'offers'>, PluginContext {
  '@type': 'Event';
  name: string;
  description: string;
  image?: string;
  url: string;
  eventAttendanceMode: AttendanceModeJsonLd;
  eventStatus: EventStatusJsonLd;
  startDate: string;
  endDate: string;
  location?: PlaceJsonLd | VirtualLocationJsonLd | [PlaceJsonLd, VirtualLocationJsonLd];
  organizer?: PersonJsonLd;
  offers?: OfferJsonLd;
  performer: 'Organization';
  maximumAttendeeCapacity?: number;
  remainingAttendeeCapacity?: number;
}

/** What the builders read of a venue or organizer: its name, texts, image and text columns. */
type Item = VenueOrOrganizerRecord;
const column = (row: Item, name: string) => textOf(row[name]);
/** The plugin's description: the excerpt, else the description (`tribe_post_excerpt`), as plain text here. */
const describe = (row: { excerpt: string; description: string }) => plainText(row.excerpt || row.description);
/** `image` only when there is one, in the plugin's place: after `description`, before `url`. */
const imageOf = (row: { image: string | null; imageMeta?: unknown }, site: string) => {
  const image = imageUrl(row, site);
  return image ? { image } : {};
};

const coordinate = (value: unknown) => (typeof value === 'number' && Number.isFinite(value) ? value : undefined);

export function placeJsonLd(row: Item, site: string): PlaceJsonLd {
  const address: PostalAddressJsonLd = { '@type': 'PostalAddress' };
  const parts = {
    streetAddress: column(row, 'address'),
    addressLocality: column(row, 'city'),
    addressRegion: column(row, 'stateprovince') || column(row, 'state') || column(row, 'province'),
    postalCode: column(row, 'zip'),
    addressCountry: column(row, 'country'),
  };
  for (const [key, value] of Object.entries(parts) as [keyof typeof parts, string][]) if (value) address[key] = value;
  // The plugin sends `geo` only when both coordinates are set and not 0 (PHP's `empty`).
  const [latitude, longitude] = [coordinate(row.geoLat), coordinate(row.geoLng)];
  const geo: { geo?: GeoCoordinatesJsonLd } =
    latitude && longitude ? { geo: { '@type': 'GeoCoordinates', latitude, longitude } } : {};
  return {
    '@type': 'Place',
    name: row.name,
    description: describe(row),
    ...imageOf(row, site),
    url: '',
    address,
    ...geo,
    telephone: column(row, 'phone'),
    sameAs: column(row, 'website'),
  };
}

export function personJsonLd(row: Item, site: string): PersonJsonLd {
  const website = column(row, 'website');
  return {
    '@type': 'Person',
    name: row.name,
    description: describe(row),
    ...imageOf(row, site),
    url: website,
    telephone: column(row, 'phone'),
    email: column(row, 'email'),
    sameAs: website,
  };
}

export interface EventJsonLdInput {
  row: EventRecord;
  /** The event's zone: start and end are written with its offset. */
  zone: EventZone;
  /** The site's zone: the offer is valid from the day of publication there. */
  siteZone: string;
  /** The site's address, which uploaded images are served under. */
  site: string;
  /** The event's permalink. */
  url: string;
  cost: Cost;
  /** The first readable venue and organizer, if any. */
  venue?: VenueOrOrganizerRecord;
  organizer?: VenueOrOrganizerRecord;
}

/** The schema.org Event that search engines read (https://schema.org/Event). */
export function eventJsonLd({ row, zone, siteZone, site, url, cost, venue, organizer }: EventJsonLdInput): EventJsonLd {
  const offers = eventOffer(cost, url, row.publishedAt, siteZone);
  return {
    '@context': 'http://schema.org',
    '@type': 'Event',
    name: row.title,
    description: describe(row),
    ...imageOf(row, site),
    url,
    eventAttendanceMode: attendanceMode(row),
    eventStatus: EVENT_STATUS[row.eventStatus],
    startDate: isoWithOffset(row.startUtc, zone),
    endDate: isoWithOffset(row.endUtc, zone),
    ...eventLocation(row, venue, site),
    ...(organizer ? { organizer: personJsonLd(organizer, site) } : {}),
    ...(offers ? { offers } : {}),
    performer: 'Organization',
    ...attendeeCapacity(row),
  };
}

/** The seats there are, and those left while RSVP is open; nothing when the capacity is unlimited. */
function attendeeCapacity({ rsvpCapacity, rsvpOpen, rsvpCounts }: EventRecord) {
  if (rsvpCapacity === null) return {};
  const remaining = Math.max(0, rsvpCapacity - rsvpCounts.going);
  return { maximumAttendeeCapacity: rsvpCapacity, ...(rsvpOpen ? { remainingAttendeeCapacity: remaining } : {}) };
}

/** Offline, online, or both at once: a hybrid event is online and at its venue. */
function attendanceMode({ isVirtual, isHybrid }: EventRecord): AttendanceModeJsonLd {
  if (!isVirtual) return 'https://schema.org/OfflineEventAttendanceMode';
  return isHybrid ? 'https://schema.org/MixedEventAttendanceMode' : 'https://schema.org/OnlineEventAttendanceMode';
}

/**
 * The venue for an event held there; the link to join for one held online only (its venue, if it has
 * one, is not where people attend it); both for a hybrid event. Either is left out when there is none.
 */
function eventLocation(row: EventRecord, venue: VenueOrOrganizerRecord | undefined, site: string) {
  const place = venue && (!row.isVirtual || row.isHybrid) ? placeJsonLd(venue, site) : undefined;
  const online: VirtualLocationJsonLd | undefined =
    row.isVirtual && row.virtualUrl ? { '@type': 'VirtualLocation', url: row.virtualUrl } : undefined;
  if (place && online) return { location: [place, online] as [PlaceJsonLd, VirtualLocationJsonLd] };
  const location = place ?? online;
  return location ? { location } : {};
}

/** ISO 8601 with seconds and a numeric offset, `+00:00` rather than `Z` (PHP's `c`, as the plugin writes). */
function isoWithOffset(instant: Date, zone: EventZone) {
  return DateTime.fromJSDate(instant).setZone(zone.zone).toFormat("yyyy-MM-dd'T'HH:mm:ssZZ");
}

/** The offer of an event with a cost; none without one. */
function eventOffer(cost: Cost, url: string, publishedAt: Date, siteZone: string): OfferJsonLd | undefined {
  const price = offerPrice(cost);
  if (price === '') return undefined;
  return {
    '@type': 'Offer',
    price,
    priceCurrency: offerCurrency(cost),
    url,
    category: 'primary',
    availability: 'inStock',
    // The plugin: midnight of the publication day (in the site's zone), written as UTC.
    validFrom: `${formatDateTime(publishedAt, siteZone).slice(0, 10)}T00:00:00+00:00`,
  };
}

const NUMERIC = /^\d+(\.\d+)?$/;

/**
 * The plugin's price: the cost without its currency, "Free" as "0", a range as "low – high"; a cost of
 * words only (no amount) is sent as those words. Read from `cost_details.values` (ascending, amounts as
 * numeric strings, labels in lower case) and, for words only, from `cost`.
 */
function offerPrice({ cost, cost_details: { values } }: Cost): string {
  const amounts = values.flatMap(amountOf);
  if (amounts.length === 0) return values.length ? cost : '';
  const low = Math.min(...amounts);
  const high = Math.max(...amounts);
  return low === high ? String(low) : `${low} – ${high}`;
}

/** The amount a cost value names, if any: a number, or 0 for "free"; words name none. */
function amountOf(value: string): number[] {
  if (NUMERIC.test(value)) return [Number(value)];
  return value === 'free' ? [0] : [];
}

/** Currencies that one symbol names without doubt; `$` and the like could be several. */
const CURRENCY_OF_SYMBOL: Record<string, string> = {
  '€': 'EUR',
  '£': 'GBP',
  '¥': 'JPY',
  '₹': 'INR',
  '₩': 'KRW',
  '₽': 'RUB',
  '₺': 'TRY',
  '₪': 'ILS',
  '₫': 'VND',
  '₴': 'UAH',
  '₱': 'PHP',
};

/**
 * ISO 4217, as schema.org wants: the event's currency code, else the one its symbol names without doubt
 * (a symbol that is itself a code, "EUR 5"), else the plugin's default, USD.
 */
function offerCurrency({ cost_details: { currency_code }, displaySymbol }: Cost): string {
  // The symbol the amounts are shown with: the event's own, else the site's (COST_CURRENCY_SYMBOL).
  const symbol = displaySymbol.trim();
  if (/^[A-Za-z]{3}$/.test(currency_code)) return currency_code.toUpperCase();
  if (/^[A-Za-z]{3}$/.test(symbol)) return symbol.toUpperCase();
  return CURRENCY_OF_SYMBOL[symbol] ?? 'USD';
}
