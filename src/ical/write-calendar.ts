// Events as iCalendar (RFC 5545), for calendar applications: one VEVENT per event, its times in the
// event's own zone with that zone's VTIMEZONE, all-day events as dates. ical-generator writes the
// text (escaping, line folding); Luxon DateTimes carry the zones, as plain Dates would be written
// as UTC wall-clock times under the zone's label.
import { getVtimezoneComponent } from '@touch4it/ical-timezones';
import ical, {
  ICalAttendeeRole,
  ICalAttendeeStatus,
  ICalCalendarMethod,
  type ICalEventData,
  ICalEventStatus,
} from 'ical-generator';
import { DateTime, IANAZone, type Zone } from 'luxon';
import type { Caller } from '../auth/roles.js';
import type { Urls } from '../http/urls.js';
import { type EventZone, eventZone, fromWallClock, UTC_ZONE } from '../lib/event-times.js';
import { givesStart } from '../recurrence/expand.js';
import { parseRecurrence } from '../recurrence/parse.js';
import { calendarLines } from '../recurrence/rewrite.js';
import { foldLines } from '../lib/ical-fold.js';
import { imageUrl } from '../serializers/images.js';
import { eachInSlices } from '../lib/slices.js';
import { textOf } from '../lib/text.js';
import { plainText } from '../lib/plain-text.js';
import { DATES_ZONE } from '../domain/import-sources.js';
import type { EventRecord, ImageMeta, VenueOrOrganizerRecord } from '../domain/records.js';
import { eventPermalink, readableLinks } from '../serializers/events.js';
import { eventUid } from '../domain/identities.js';
import { writtenStatus } from './status.js';

export const ICALENDAR = 'text/calendar; charset=utf-8';

// Whether a calendar's zone is an IANA name, asked of Intl once per name: asking for each resource
// of a CalDAV multiget was a tenth of its time. The names are the site's zone (config/site.ts).
const ianaNames = new Map<string, boolean>();
function isIanaZone(name: string): boolean {
  let valid = ianaNames.get(name);
  if (valid === undefined) {
    valid = IANAZone.isValidZone(name);
    ianaNames.set(name, valid);
  }
  return valid;
}

export interface CalendarOptions {
  urls: Urls;
  caller: Caller;
  /** The calendar's name, shown by the application that subscribes. */
  name: string;
  /**
   * Series are given as one VEVENT with their rule, so the exceptions among the rows are written as
   * overrides of their series (its UID and RECURRENCE-ID). Else every row is an event of its own.
   */
  series?: boolean;
  /** The UIDs events are exported with (services/events/read.ts importedUids), which they keep. */
  uids?: ReadonlyMap<number, string>;
  /** The site's zone, written as the calendar's (X-WR-TIMEZONE), which readers take dates in. */
  zone?: string;
  /**
   * Content lines a CalDAV client wrote into an event that none of its fields hold (alarms, X-
   * properties), by event ID, folded: put back at the end of its VEVENT (caldav/texts.ts).
   */
  extras?: ReadonlyMap<number, string>;
  /** The calendar is an iTIP message to one attendee (src/mail/invitation.ts). */
  invitation?: Invitation;
}

/**
 * An iTIP message (RFC 5546) of one event to one attendee, which mail clients add to their
 * calendar (REQUEST) or take out of it (CANCEL): it must name the ORGANIZER, the attendee, and a
 * SEQUENCE that grows with each message of the event, so that a later one wins.
 */
export interface Invitation {
  method: 'REQUEST' | 'CANCEL';
  organizer: { name: string; email: string };
  attendee: { name: string; email: string };
  sequence: number;
}

/**
 * The calendar of `rows`, built a slice at a time so that a feed of a thousand events never holds
 * the event loop (lib/slices.ts). ical-generator writes each VEVENT; the calendar around them, the
 * VTIMEZONE of each zone they use and the folding are written here, as its own folding is too slow
 * for a feed (lib/ical-fold.ts). With `maxBytes`, the events that would take the text past it are
 * left out, the last rows first. The text comes as its UTF-8 bytes, each event encoded in its slice:
 * encoding the megabytes of a whole feed at once held the loop for 30 ms and more.
 */
export async function eventsCalendar(
  rows: EventRecord[],
  options: CalendarOptions,
  maxBytes = Number.POSITIVE_INFINITY,
): Promise<Buffer> {
  const calendar = ical({
    // ical-generator writes the calendar's name (NAME, X-WR-CALNAME) as it is given, unescaped.
    name: escapeText(clean(options.name)),
    prodId: { company: 'Calendar Events Service', product: 'calendar/events/v1', language: 'EN' },
    ...(options.invitation ? { method: ICalCalendarMethod[options.invitation.method] } : {}),
    // Events in a zone are written with its TZID (their VTIMEZONEs are added below).
    timezone: { name: null, generator: vtimezone },
    ...(options.zone && isIanaZone(options.zone) ? { x: [{ key: 'X-WR-TIMEZONE', value: options.zone }] } : {}),
  });
  const frame = foldLines(calendar.toString()).replace(/END:VCALENDAR$/, '');
  const overrides = options.series ? overridesOf(rows) : new Map<number, Override>();
  const events: Buffer[] = [];
  const zones = new Set<string>();
  let bytes = Buffer.byteLength(frame);
  let full = false;
  await eachInSlices(rows, (row) => {
    if (full) return;
    const override = overrides.get(row.id);
    const event = calendar.createEvent(vevent(row, options, override));
    const text = Buffer.from(
      withExtra(
        foldLines(withConference(withImage(withDateRecurrenceId(event.toString(), override), row, options.urls), row)),
        options.extras?.get(row.id),
      ),
    );
    const zone = event.timezone();
    const timezone = zone && !zones.has(zone) ? vtimezone(zone) : null;
    const size = text.length + (timezone ? Buffer.byteLength(timezone) + 2 : 0);
    calendar.clear();
    if (bytes + size > maxBytes) {
      full = true;
      return;
    }
    bytes += size;
    events.push(text);
    if (zone && timezone) zones.add(zone);
  });
  const timezones = [...zones].map((zone) => `${vtimezone(zone)}\r\n`);
  // RFC 5545 ends every content line with CRLF, the last one too.
  return Buffer.concat([Buffer.from(`${frame}${timezones.join('')}`), ...events, Buffer.from('END:VCALENDAR\r\n')]);
}

const END_VEVENT = 'END:VEVENT\r\n';

/**
 * An override of an all-day series names its occurrence by its date (`RECURRENCE-ID;VALUE=DATE:`),
 * as the series' DTSTART is a date: ical-generator writes a date-time, which calendar apps match to
 * no occurrence and show on the old day.
 */
function withDateRecurrenceId(text: string, override: Override | undefined): string {
  if (!override?.allDay || !text.endsWith(END_VEVENT)) return text;
  const day = override.original.toISOString().slice(0, 10).replaceAll('-', '');
  return `${text.slice(0, -END_VEVENT.length)}RECURRENCE-ID;VALUE=DATE:${day}\r\n${END_VEVENT}`;
}

/**
 * The event's image as RFC 7986's IMAGE, which ical-generator does not write (its custom
 * properties must be X- ones); a URI value, so not escaped (an image URL has no white space:
 * services/media.ts imageColumns).
 */
function withImage(text: string, row: EventRecord, urls: Urls): string {
  const url = imageUrl(row, urls.site);
  if (!url || !text.endsWith(END_VEVENT)) return text;
  const type = (row.imageMeta as ImageMeta | null)?.extension;
  const format = type ? `;FMTTYPE=${IMAGE_TYPES[type] ?? 'image/' + type}` : '';
  return `${text.slice(0, -END_VEVENT.length)}IMAGE;VALUE=URI;DISPLAY=BADGE${format}:${url}\r\n${END_VEVENT}`;
}

const IMAGE_TYPES: Record<string, string> = { jpg: 'image/jpeg' };

/**
 * The link to join an online event as RFC 7986's CONFERENCE (5.11), which calendar apps show as a
 * button to join and ical-generator does not write: a URI value, not escaped (the API takes only an
 * https URL without white space, openapi/components/schemas/VirtualUrl.yaml). FEATURE says what it
 * offers at most (a call or a stream: sound and picture), LABEL how the link is shown. Its venue,
 * if any, is the LOCATION: an event with both is hybrid, as ical/read-online.ts reads them back.
 */
function withConference(text: string, row: EventRecord): string {
  if (!row.isVirtual || !row.virtualUrl || !text.endsWith(END_VEVENT)) return text;
  const line = `CONFERENCE;VALUE=URI;FEATURE=AUDIO,VIDEO;LABEL=Join online:${clean(row.virtualUrl)}`;
  return `${text.slice(0, -END_VEVENT.length)}${line}\r\n${END_VEVENT}`;
}

/** The lines a client gave the event, before its END:VEVENT. */
function withExtra(text: string, extra: string | undefined): string {
  if (!extra || !text.endsWith(END_VEVENT)) return text;
  return `${text.slice(0, -END_VEVENT.length)}${extra}${END_VEVENT}`;
}

interface Override {
  series: number;
  original: Date;
  /** The series' DTSTART is a date, so RECURRENCE-ID is one too. */
  allDay: boolean;
}

/**
 * The exceptions written as overrides of their series: those whose series is in the calendar too
 * and whose original start its rule still gives. Any other (its series left out, a draft the
 * caller may not read, or a rule changed since) is an event of its own: an override without its
 * series, or of a start the rule does not give, would be dropped or misplaced by calendar apps.
 */
function overridesOf(rows: EventRecord[]): Map<number, Override> {
  const series = new Map(
    rows
      .filter((row) => row.recurrence.length)
      .map((row) => {
        const zone = eventZone(row.timezone) ?? UTC_ZONE;
        return [row.id, { row, rule: parseRecurrence(row.recurrence, zone, row.allDay) }] as const;
      }),
  );
  const overrides = new Map<number, Override>();
  for (const row of rows) {
    const master = row.parentId === null ? undefined : series.get(row.parentId);
    const original = row.originalStartLocal;
    if (!row.isException || !master || !original) continue;
    if (givesStart(master.rule, master.row.startLocal, original))
      overrides.set(row.id, { series: master.row.id, original, allDay: master.row.allDay });
  }
  return overrides;
}

/** The VTIMEZONE of an IANA zone, folded, with the CRLF line ends of RFC 5545. */
const vtimezone = (zone: string) => {
  const component = getVtimezoneComponent(zone);
  return component ? foldLines(component.trim().replace(/\r?\n/g, '\r\n')) : null;
};

function vevent(row: EventRecord, options: CalendarOptions, override: Override | undefined): ICalEventData {
  return {
    ...mainProperties(row, options, override),
    ...(options.invitation ? invitationProperties(options.invitation) : {}),
  };
}

/** ORGANIZER, ATTENDEE and SEQUENCE of an iTIP message, and STATUS:CANCELLED for its CANCEL. */
function invitationProperties({ method, organizer, attendee, sequence }: Invitation): Partial<ICalEventData> {
  return {
    organizer: { name: parameterText(organizer.name), email: organizer.email },
    attendees: [
      {
        name: parameterText(attendee.name),
        email: attendee.email,
        role: ICalAttendeeRole.REQ,
        status: method === 'REQUEST' ? ICalAttendeeStatus.ACCEPTED : ICalAttendeeStatus.DECLINED,
        rsvp: false,
      },
    ],
    sequence,
    ...(method === 'CANCEL' ? { status: ICalEventStatus.CANCELLED } : {}),
  };
}

function mainProperties(
  row: EventRecord,
  { urls, caller, uids }: CalendarOptions,
  override: Override | undefined,
): ICalEventData {
  const zone = eventZone(row.timezone) ?? UTC_ZONE;
  const { venues, organizers } = readableLinks(row, caller);
  const url = eventPermalink(row.slug, urls);
  // ORGANIZER is one calendar address: the first organizer that has an e-mail address.
  const organizer = organizers.find((o) => o.email);
  const written = writtenStatus(row.status, row.eventStatus, clean(row.eventStatusReason));
  return {
    id: uidOf(override ? override.series : row.id, urls, uids),
    ...times(row, zone.zone),
    ...(row.recurrence.length ? { repeating: calendarLines(row.recurrence, zone, row.allDay).join('\r\n') } : {}),
    ...(override && !override.allDay ? { recurrenceId: recurrenceId(override.original, zone) } : {}),
    summary: clean(row.title),
    description: clean(plainText(row.description)) || undefined,
    location: venues[0] ? location(venues[0]) : undefined,
    organizer: organizer ? { name: parameterText(organizer.name), email: String(organizer.email) } : undefined,
    categories: row.terms
      .map((link) => clean(link.term.name))
      .sort((a, b) => a.localeCompare(b))
      .map((name) => ({ name })),
    // The event's own website when it has one (as JSON's `website` is), else its page here.
    url: row.website || url,
    lastModified: row.modifiedAt,
    // The moment this version of the event was written, so that the same event gives the same text.
    stamp: row.modifiedAt,
    // STATUS, CLASS for a private event, and what STATUS cannot say of a postponed one (status.ts).
    status: written.status,
    class: written.class,
    x: [...written.x, ...(row.allDay && zone.zone instanceof IANAZone ? [{ key: DATES_ZONE, value: zone.name }] : [])],
  };
}

/**
 * An event's UID: the one it was imported with, else its GUID (posts.ts eventUid). An occurrence
 * listed as an event of its own has the GUID of its row; an override has its series' UID.
 */
const uidOf = (id: number, urls: Urls, uids: ReadonlyMap<number, string> | undefined) =>
  eventUid(urls.site, id, uids?.get(id));

/**
 * All-day events are dates, the end exclusive (the day after the last one). Others carry their zone
 * when it is an IANA zone (with its VTIMEZONE); a fixed offset such as `UTC+5:30` has no TZID, so those
 * times are written in UTC.
 */
function times(row: EventRecord, zone: Zone) {
  if (row.allDay) {
    const start = DateTime.fromJSDate(row.startLocal, { zone: 'UTC' }).startOf('day');
    const end = DateTime.fromJSDate(row.endLocal, { zone: 'UTC' }).startOf('day').plus({ days: 1 });
    return { allDay: true, start: start.toJSDate(), end: end.toJSDate() };
  }
  if (zone instanceof IANAZone) {
    const local = (wall: Date) => fromWallClock(wall, { name: zone.name, zone });
    return { start: local(row.startLocal), end: local(row.endLocal), timezone: zone.name };
  }
  return { start: row.startUtc, end: row.endUtc };
}

/** The start the series gave an occurrence, written as its DTSTART would be (all-day: withDateRecurrenceId). */
function recurrenceId(original: Date, zone: EventZone) {
  return zone.zone instanceof IANAZone ? fromWallClock(original, zone) : fromWallClock(original, zone).toJSDate();
}

function location(venue: VenueOrOrganizerRecord) {
  const text = (column: string) => clean(textOf(venue[column])).trim();
  const region = [text('stateprovince') || text('state') || text('province'), text('zip')].filter(Boolean).join(' ');
  const address = [text('address'), text('city'), region, text('country')].filter(Boolean).join(', ');
  const geo =
    venue.geoLat != null && venue.geoLng != null ? { lat: Number(venue.geoLat), lon: Number(venue.geoLng) } : undefined;
  return { title: clean(venue.name), ...(address ? { address } : {}), ...(geo ? { geo } : {}) };
}

// RFC 5545 text: ical-generator escapes `\`, `;`, `,` and line breaks in the values it writes as
// TEXT, but control characters other than tab and line breaks are allowed in none of them, and a
// parameter value (the organizer's CN) may hold neither a DQUOTE nor a line break.

/** The text without the control characters RFC 5545 allows nowhere. */
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const clean = (text: string) => text.replace(/[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F]/g, '');

/** A TEXT value as RFC 5545 escapes it, for what ical-generator writes unescaped. */
const escapeText = (text: string) => text.replace(/[\\;,]/g, (c) => `\\${c}`).replace(/\r\n|\r|\n/g, '\\n');

/** A quoted parameter value: no DQUOTE, no line break. */
const parameterText = (text: string) =>
  clean(text)
    .replace(/"/g, "'")
    .replace(/[\r\n]+/g, ' ');
