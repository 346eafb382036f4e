// What a caller may do whichever door it comes through (the REST API, a batch, CalDAV, the
// importer, an upload), and the least role each needs (docs/decisions.md, "Permissions and roles").
// The services assert these themselves, so a door cannot forget one; the document's
// `x-required-role` on an operation is the same rule said to clients, checked early by
// http/security.ts, and test/unit/capabilities.test.ts holds the two to agreement. Rights on one
// object (editing this event, reading that draft) are permissions.ts's.
import { Forbidden } from '../domain/errors.js';
import { type Caller, hasRole, type Role } from './roles.js';

export const CAPABILITIES = {
  /** Writing events of one's own (as drafts or pending, below author). */
  'create events': 'contributor',
  'create venues': 'contributor',
  'create organizers': 'contributor',
  /** Creating, changing and deleting categories; tags are an editor's (docs/decisions.md). */
  'manage categories': 'author',
  'manage tags': 'editor',
  /** Putting images into the media library, and changing or deleting one's own. */
  'upload media': 'author',
  /** Giving an item a public status (publish, future, private); others get `pending`. */
  publish: 'author',
  /** Deleting for good (`force=true`) rather than to the trash, and editing others' items. */
  'edit others': 'editor',
  'manage webhooks': 'administrator',
  /** Following other calendars' actors, trusting them, and unfollowing them (services/federation-sources.ts). */
  'manage federation sources': 'administrator',
  /** Reading the public submissions, approving and rejecting them (services/submissions/moderate.ts). */
  'moderate submissions': 'editor',
  /** Answering an event's RSVP as oneself; organising an event's RSVPs is the right to edit it (permissions.ts). */
  'answer rsvps': 'subscriber',
  /**
   * Reading every event's RSVPs, names and e-mail addresses, where no event's rights are asked: in
   * the change feed (services/changes.ts). An event's own RSVPs are its organisers' (permissions.ts).
   */
  'read attendee data': 'administrator',
  /** Exporting any event's RSVPs, and erasing a person's RSVPs at every event on request. */
  'administer rsvps': 'administrator',
} as const satisfies Record<string, Role>;

export type Capability = keyof typeof CAPABILITIES;

export const may = (caller: Caller, capability: Capability): boolean => hasRole(caller, CAPABILITIES[capability]);

/** Refuses the caller that may not: an anonymous one is asked to sign in, a signed-in one refused. */
export function assertMay(caller: Caller, capability: Capability, message?: string): void {
  if (!may(caller, capability)) throw new Forbidden(caller !== null, message);
}
