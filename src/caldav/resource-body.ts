// The body of a PUT read as one calendar object resource (RFC 4791 4.1): one UID, one series or
// single event with its changed occurrences, no METHOD, events only; and what the event's fields
// cannot hold (alarms, attendees, other properties) set apart to be kept as written. What a
// resource may hold is checked here, before any database work (config/limits.ts CaldavWriteLimits).
import ICAL from 'ical.js';
import type { CaldavWriteLimits } from '../config/limits.js';
import { DATES_ZONE } from '../domain/import-sources.js';
import type { ImportItem } from '../domain/external-items.js';
import type { ParsedCalendar } from '../ical/read-calendar.js';
import { isJoinLink } from '../domain/join-link.js';
import { EVENT_STATUS_PROPERTY, STATUS_REASON_PROPERTY } from '../ical/status.js';
import { MAX_EXTERNAL_ID } from '../services/items/ledger.js';
import { DavError, caldavCondition, invalidData, invalidResource } from './errors.js';
import type { Collection } from '../domain/records.js';

/** What the event's fields hold or the service writes itself; every other property is kept as written. */
const MAPPED = new Set([
  'uid',
  'dtstamp',
  'dtstart',
  'dtend',
  'duration',
  'summary',
  'description',
  'location',
  'geo',
  'organizer',
  'categories',
  'url',
  'status',
  'class',
  'rrule',
  'rdate',
  'exdate',
  'recurrence-id',
  'last-modified',
  'sequence',
  'image',
  'x-microsoft-cdo-alldayevent',
  'x-microsoft-msncalendar-alldayevent',
  DATES_ZONE.toLowerCase(),
  EVENT_STATUS_PROPERTY.toLowerCase(),
  STATUS_REASON_PROPERTY.toLowerCase(),
]);

/**
 * A CONFERENCE the event's link holds (an https one, ical/read-online.ts): the service writes it.
 * Another (a dial-in number, `tel:`) is kept as written.
 */
const mapped = (property: ICAL.Property) =>
  MAPPED.has(property.name) ||
  (property.name === 'conference' && isJoinLink(String(property.getFirstValue() ?? '').trim()));

/** The longest UID a resource may have: its changed occurrences' keys (`UID#` and a RECURRENCE-ID) fit the mapping. */
const MAX_UID = MAX_EXTERNAL_ID - 100;

/** The parts of a PUT's calendar. */
export interface Parsed {
  uid: string;
  /** The calendar, parsed here once, which the reader takes as it is (items.ts itemsOf). */
  text: ParsedCalendar;
  /** What no field holds of each VEVENT, by RECURRENCE-ID ('' for the series or single event). */
  extras: Map<string, string>;
}

/** Reads and checks the body as one calendar object resource (RFC 4791 4.1), within the limits. */
export function parseResource(body: string, collection: Collection, limits: CaldavWriteLimits): Parsed {
  const root = calendarOf(body);
  const events = eventsOf(root);
  const uids = new Set(events.map((e) => String(e.getFirstPropertyValue('uid') ?? '').trim()));
  const [uid] = uids;
  if (uids.size > 1 || !uid)
    throw invalidResource('Every VEVENT of a resource has one and the same UID (RFC 4791 4.1).');
  if (uid.length > MAX_UID)
    throw invalidData(
      `The UID is longer than ${MAX_UID} characters: a changed occurrence is kept as UID#RECURRENCE-ID, in ${MAX_EXTERNAL_ID.toLocaleString('en')}.`,
    );
  const masters = events.filter((e) => !e.getFirstProperty('recurrence-id'));
  if (masters.length !== 1) {
    throw invalidResource(
      masters.length
        ? 'A resource holds one VEVENT without RECURRENCE-ID.'
        : 'Changed occurrences without their series (no VEVENT without RECURRENCE-ID) are not taken.',
    );
  }
  if (events.length - 1 > limits.maxOverrides)
    throw tooLarge(`at most ${limits.maxOverrides} changed occurrences (CALDAV_MAX_OVERRIDES)`, events.length - 1);
  const extras = new Map<string, string>();
  for (const event of events) {
    const recurrenceId = event.getFirstProperty('recurrence-id');
    // As ical/read-event.ts names an override: the RECURRENCE-ID as ical.js writes it.
    const key = recurrenceId ? String(recurrenceId.getFirstValue()) : '';
    if (extras.has(key)) throw invalidResource(`Two VEVENTs have the RECURRENCE-ID ${key}.`);
    extras.set(key, extraOf(event));
  }
  assertKeptFits([...extras.values()], limits);
  // The text as sent, read leniently by the import, unless a category had to be added to it.
  const added = collection.kind === 'category' && inCategory(masters[0], collection.name);
  return { uid, text: { text: added ? root.toString() : body, root }, extras };
}

function calendarOf(body: string): ICAL.Component {
  let root: ICAL.Component;
  try {
    root = new ICAL.Component(ICAL.parse(body) as unknown[]);
  } catch (err) {
    throw invalidData(`The body is not iCalendar: ${err instanceof Error ? err.message : String(err)}`);
  }
  if (root.name !== 'vcalendar') throw invalidData('The body is no VCALENDAR (RFC 5545 3.4).');
  if (root.getFirstProperty('method'))
    throw invalidResource('A calendar object resource carries no METHOD (RFC 4791 4.1): that is for scheduling.');
  return root;
}

/** The VEVENTs; any other component but VTIMEZONE is refused (this calendar holds events only). */
function eventsOf(root: ICAL.Component): ICAL.Component[] {
  const other = root.getAllSubcomponents().find((c) => c.name !== 'vevent' && c.name !== 'vtimezone');
  if (other) {
    throw new DavError(
      403,
      `This calendar holds events only, not ${other.name.toUpperCase()}.`,
      caldavCondition('supported-calendar-component'),
    );
  }
  const events = root.getAllSubcomponents('vevent');
  if (!events.length) throw invalidResource('The calendar holds no VEVENT.');
  return events;
}

/** A resource put into a category's collection is in that category. */
function inCategory(master: ICAL.Component, name: string): boolean {
  const names = master.getAllProperties('categories').flatMap((p) => p.getValues().map((v) => String(v)));
  if (names.some((n) => n.trim().toLowerCase() === name.toLowerCase())) return false;
  master.addPropertyWithValue('categories', name);
  return true;
}

/** The VEVENT's unmapped properties and its components (VALARM), as content lines, folded. */
function extraOf(event: ICAL.Component): string {
  const lines: string[] = [];
  for (const property of event.getAllProperties()) {
    if (!mapped(property)) lines.push(property.toICALString());
  }
  for (const component of event.getAllSubcomponents()) lines.push(component.toString());
  return lines.length ? `${lines.map(fold).join('\r\n')}\r\n` : '';
}

/** RFC 5545 3.1 folding of what ical.js wrote (it folds with its own line ends). */
const fold = (text: string) => text.replace(/\r?\n/g, '\r\n');

/** What a resource keeps as written is bounded: every reader that may edit it is served all of it. */
function assertKeptFits(extras: string[], limits: CaldavWriteLimits) {
  // Content lines, unfolded: a line that starts with a space or tab continues the one before.
  const lines = extras.reduce(
    (sum, extra) =>
      sum + extra.split('\r\n').filter((l) => l !== '' && !l.startsWith(' ') && !l.startsWith('\t')).length,
    0,
  );
  if (lines > limits.maxKeptLines)
    throw tooLarge(
      `at most ${limits.maxKeptLines} kept lines (CALDAV_MAX_KEPT_LINES): alarms, attendees and other properties no field holds`,
      lines,
    );
  const bytes = extras.reduce((sum, extra) => sum + Buffer.byteLength(extra), 0);
  const kilobytes = Math.floor(limits.maxKeptBytes / 1024);
  if (bytes > limits.maxKeptBytes)
    throw tooLarge(`at most ${kilobytes} KB of kept lines (CALDAV_MAX_KEPT_KB)`, `${Math.ceil(bytes / 1024)} KB`);
}

/**
 * The venues, organizers and categories the VEVENTs name, counted once each: a name new here is a
 * row written in the PUT's transaction (some 9,000 took it past its 30 s), so they are bounded up
 * front, whether or not they exist.
 */
export function assertNamesFit(items: ImportItem[], limits: CaldavWriteLimits) {
  const names = new Set(items.flatMap((item) => (item.embedded ?? []).map((named) => named.externalId)));
  if (names.size > limits.maxNames)
    throw tooLarge(
      `at most ${limits.maxNames} venues, organizers and categories by name (CALDAV_MAX_NAMES)`,
      names.size,
    );
}

/** A resource over one of the limits (RFC 4791 5.3.2.1): what it may hold and what it has. */
const tooLarge = (limit: string, has: number | string) =>
  new DavError(403, `A resource holds ${limit}; this one has ${has}.`, caldavCondition('max-resource-size'));
