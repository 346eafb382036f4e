// Whether an event of the modelled service happens as announced, and where: its status and reason
// (`event_status`, `event_status_reason`: The Events Calendar 5.11 and later, with its status
// feature on), whether it is online (`is_virtual`, `virtual_url`: its virtual events add-on) and
// hybrid (the add-on's `virtual_event_type`), taken from the records the importer already reads.
// A single read also carries `json_ld`, whose `eventStatus`, `eventAttendanceMode` and
// VirtualLocation say the same where those fields are missing. A site without any of them leaves
// the event's as they are here.
import { decodeHTML } from 'entities';
import { isJoinLink } from '../domain/join-link.js';
import { plainText } from '../lib/plain-text.js';
import { maxLengthOf } from '../openapi.js';
import { type Raw, text } from './site-lists.js';

type Status = 'scheduled' | 'canceled' | 'postponed';

/** Its statuses as this service spells them ('' is its "not set"; the British spelling from its json_ld's). */
const STATUSES: Record<string, Status> = {
  '': 'scheduled',
  scheduled: 'scheduled',
  canceled: 'canceled',
  cancelled: 'canceled',
  postponed: 'postponed',
};

/** schema.org's statuses; a rescheduled event happens at its new start, an event moved online is scheduled and online. */
const SCHEMA_STATUSES: Record<string, Status> = {
  EventScheduled: 'scheduled',
  EventRescheduled: 'scheduled',
  EventMovedOnline: 'scheduled',
  EventCancelled: 'canceled',
  EventPostponed: 'postponed',
};

const MAX_REASON = maxLengthOf('EventFields', 'event_status_reason');

const flag = (value: unknown) => value === true || value === 'true' || value === '1' || value === 1 || value === 'yes';
/** `https://schema.org/EventCancelled` and `EventCancelled` alike. */
const schemaName = (value: unknown) => text(value).replace(/^https?:\/\/schema\.org\//, '');

export interface StatusFields {
  fields: Record<string, unknown>;
  remarks: string[];
}

/** The event's status and online fields as our API takes them; only those the record says something of. */
export function statusFields(raw: Raw): StatusFields {
  const ld = (raw.json_ld && typeof raw.json_ld === 'object' ? raw.json_ld : {}) as Raw;
  const remarks: string[] = [];
  const fields: Record<string, unknown> = { ...status(raw, ld, remarks), ...online(raw, ld, remarks) };
  return { fields, remarks };
}

function status(raw: Raw, ld: Raw, remarks: string[]): Record<string, unknown> {
  const given = 'event_status' in raw ? STATUSES[text(raw.event_status).toLowerCase()] : undefined;
  const fromLd = ld.eventStatus === undefined ? undefined : SCHEMA_STATUSES[schemaName(ld.eventStatus)];
  if ('event_status' in raw && !given) remarks.push('a status this service does not have: taken as it stands here');
  const eventStatus = given ?? fromLd;
  if (!eventStatus) return {};
  // The reason is written for HTML there; ours is plain text.
  const reason = eventStatus === 'scheduled' ? '' : plainText(text(raw.event_status_reason)).trim();
  if (reason.length > MAX_REASON) remarks.push(`a status reason longer than ${MAX_REASON} characters: shortened`);
  return { event_status: eventStatus, event_status_reason: Array.from(reason).slice(0, MAX_REASON).join('') };
}

function online(raw: Raw, ld: Raw, remarks: string[]): Record<string, unknown> {
  const mode = ld.eventAttendanceMode === undefined ? undefined : schemaName(ld.eventAttendanceMode);
  const isVirtual = 'is_virtual' in raw ? flag(raw.is_virtual) : virtualByLd(mode, ld);
  if (isVirtual === undefined) return {};
  if (!isVirtual) return { is_virtual: false };
  return { is_virtual: true, ...hybrid(raw, mode), ...joinLink(raw, ld, remarks) };
}

/** Online by its json_ld: any mode but offline, or moved online; undefined when it says neither. */
function virtualByLd(mode: string | undefined, ld: Raw): boolean | undefined {
  if (mode !== undefined) return mode !== 'OfflineEventAttendanceMode';
  return schemaName(ld.eventStatus) === 'EventMovedOnline' || undefined;
}

/** The add-on's type of an online event (`virtual` or `hybrid`), else its json_ld's mixed mode. */
function hybrid(raw: Raw, mode: string | undefined): Record<string, unknown> {
  const type = text(raw.virtual_event_type);
  if (type) return { is_hybrid: type === 'hybrid' };
  return mode === undefined ? {} : { is_hybrid: mode === 'MixedEventAttendanceMode' };
}

/** The link to join: an empty one there removes ours; ours takes what the document takes, another is left out and said. */
function joinLink(raw: Raw, ld: Raw, remarks: string[]): Record<string, unknown> {
  const url = decodeHTML(text(raw.virtual_url) || virtualLocation(ld.location)).trim();
  if (!url) return 'virtual_url' in raw ? { virtual_url: '' } : {};
  if (isJoinLink(url)) return { virtual_url: url };
  remarks.push('a link to join that is not an https address with a host (of at most 2,000 characters): left out');
  return {};
}

/** The URL of the VirtualLocation in a json_ld `location` (one place, or a list of them). */
function virtualLocation(location: unknown): string {
  const places = Array.isArray(location) ? location : [location];
  const found = places.find((place): place is Raw => Boolean(place) && (place as Raw)['@type'] === 'VirtualLocation');
  return found ? text(found.url) : '';
}
