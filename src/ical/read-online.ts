// Where a VEVENT says it happens online: the link to join it, read from what calendar programs
// write, in this order: RFC 7986's CONFERENCE (this service's export, and programs that follow RFC
// 7986), Google's X-GOOGLE-CONFERENCE, Microsoft's X-MICROSOFT-SKYPETEAMSMEETINGURL (a Teams
// meeting), and a LOCATION that is only a link (pasted there, as users of calendar apps do). Only an
// https link is a join link, as the API takes none other (openapi/components/schemas/VirtualUrl.yaml);
// Outlook's X-MICROSOFT-ONLINEMEETINGCONFLINK is a SIP address, not one. An event with a place
// besides the link is hybrid (online and at its venue).
import type ICAL from 'ical.js';
import { isJoinLink } from '../domain/join-link.js';
import { textOf } from './values.js';

/** The properties that carry a link to join, in the order they are read. */
const LINK_PROPERTIES = ['conference', 'x-google-conference', 'x-microsoft-skypeteamsmeetingurl'];

/**
 * Outlook writes a Teams meeting's LOCATION as the meeting's name, in its user's language
 * (`Microsoft Teams Meeting`, `Microsoft Teams-Besprechung`, `Réunion Microsoft Teams`); with more
 * than one place it lists them with `; `, and that list is a place.
 */
const TEAMS_MEETING = /\bMicrosoft Teams\b/i;
const PLACES_APART = /[;,\n]/;
/** One place only (no list), naming the Teams meeting: two tests, each linear, where one pattern was not. */
const namesTeamsMeeting = (location: string) => !PLACES_APART.test(location) && TEAMS_MEETING.test(location);

/**
 * A LOCATION that says where the event happens online, not a venue: only a link
 * (`https://meet.example.org/abc`), or the name of the Teams meeting the event links to.
 */
export function locationIsOnline(component: ICAL.Component): boolean {
  const location = textOf(component, 'location').trim();
  if (!location) return false;
  if (isJoinLink(location)) return true;
  return namesTeamsMeeting(location) && component.hasProperty('x-microsoft-skypeteamsmeetingurl');
}

/**
 * The event's online fields as the API names them, from its lines. A link that is no join link (a
 * phone number, `tel:`; an http link) makes no event online, and is no remark: CalDAV keeps such a
 * CONFERENCE as written (caldav/resource-body.ts), and a remark would refuse the client's PUT.
 */
export function onlineOf(component: ICAL.Component): Record<string, unknown> {
  const given = LINK_PROPERTIES.flatMap((name) =>
    component.getAllProperties(name).map((property) => String(property.getFirstValue() ?? '').trim()),
  ).filter(Boolean);
  const location = textOf(component, 'location').trim();
  const link = given.find(isJoinLink) ?? (isJoinLink(location) ? location : undefined);
  const place = Boolean(location) && !locationIsOnline(component);
  return { is_virtual: Boolean(link), is_hybrid: Boolean(link) && place, virtual_url: link ?? '' };
}
