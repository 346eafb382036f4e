// What can go wrong by the service's own rules, named for what it means. Services and auth/ throw
// these; they know nothing of HTTP. http/errors.ts alone turns each into a status, an error code
// and headers (docs/architecture.md).

/** The kinds of object the API serves, as error codes and messages name them. */
export type ResourceType =
  | 'event'
  | 'venue'
  | 'organizer'
  | 'category'
  | 'tag'
  | 'webhook'
  | 'media'
  | 'rsvp'
  | 'submission'
  | 'follower'
  | 'federation_source';

export abstract class DomainError extends Error {}

/** An ID or slug that names nothing (or nothing the caller may know of). */
export class NotFound extends DomainError {
  constructor(
    readonly type: ResourceType,
    readonly key: number | string,
  ) {
    super(
      typeof key === 'number'
        ? `The ${type} with ID ${key} does not exist.`
        : `The ${type} with slug "${key}" does not exist.`,
    );
  }
}

/** Input the rules refuse: each offending field with what is wrong with it. */
export class InvalidInput extends DomainError {
  constructor(readonly fields: Record<string, string>) {
    super(`Invalid parameter(s): ${Object.keys(fields).join(', ')}`);
  }
}

/** The caller may not do this. Whether it is signed in tells "sign in" apart from "not you". */
export class Forbidden extends DomainError {
  constructor(
    readonly signedIn: boolean,
    message = 'Sorry, you are not allowed to do that.',
  ) {
    super(message);
  }
}

/** A write names a new category or tag, which the caller may not create. */
export class TermCreationForbidden extends DomainError {
  constructor(
    readonly field: string,
    readonly requiredRole: string,
    readonly type: 'category' | 'tag',
  ) {
    super(`Sorry, you are not allowed to create new ${field}; name existing ones.`);
  }
}

/** The object exists, but the caller may not read it. */
export class NotReadable extends DomainError {
  constructor(readonly type: ResourceType) {
    super(`The requested ${type} is not accessible.`);
  }
}

/** The object is in the trash already, so it cannot be trashed again. */
export class AlreadyTrashed extends DomainError {
  constructor(
    readonly type: ResourceType,
    readonly id: number,
  ) {
    super(`The ${type} with ID ${id} is already in the trash.`);
  }
}

/** The object changed since the version the client named (If-Match). */
export class PreconditionFailed extends DomainError {
  constructor(message = 'The object changed since the version in If-Match; read it again, then retry.') {
    super(message);
  }
}

/** Another term of the taxonomy has this name under the same parent. */
export class DuplicateTermName extends DomainError {
  constructor(
    readonly type: 'category' | 'tag',
    readonly name: string,
    readonly existingId: number,
  ) {
    super(`A ${type} with the name "${name}" already exists here.`);
  }
}

/** The slug sent is invalid because another term of the taxonomy has it (a 400, not a conflict: WordPress's duplicate_term_slug). */
export class InvalidTermSlug extends DomainError {
  constructor(
    readonly type: 'category' | 'tag',
    readonly slug: string,
  ) {
    super(`The slug "${slug}" is already used by another ${type}.`);
  }
}

/** Credentials were sent and are not right. */
export class InvalidCredentials extends DomainError {
  constructor() {
    super('The login, password or application password is not correct.');
  }
}

/** The client has used up its failed sign-ins for now. */
export class Throttled extends DomainError {
  constructor(readonly retryAfterSeconds: number) {
    super(`Too many failed sign-ins from this client; try again in ${retryAfterSeconds} seconds.`);
  }
}

/**
 * An account below editor reached one of its quotas (services/quotas.ts): creates this hour (again
 * after `retryAfterSeconds`), or series or occurrences held (until some are deleted).
 */
export class QuotaExceeded extends DomainError {
  constructor(
    readonly quota: 'creates' | 'series' | 'occurrences' | 'confirmations' | 'submissions',
    readonly limit: number,
    readonly retryAfterSeconds?: number,
  ) {
    super(quotaMessage(quota, limit, retryAfterSeconds));
  }
}

/** What a quota allows, and what the account can do about it. */
function quotaMessage(quota: QuotaExceeded['quota'], limit: number, retryAfterSeconds?: number): string {
  if (quota === 'creates') {
    return `This account may create ${limit} items an hour; try again in ${retryAfterSeconds} seconds.`;
  }
  if (quota === 'confirmations') {
    return `One e-mail address may be sent ${limit} RSVP confirmation messages a day; try again in ${retryAfterSeconds} seconds.`;
  }
  if (quota === 'submissions') {
    return `One address may send ${limit} submissions a day; try again in ${retryAfterSeconds} seconds.`;
  }
  if (quota === 'series') return `This account may hold ${limit} recurring events; delete one first, or ask an editor.`;
  return `The recurring events of this account may have ${limit} occurrences in all; this write would add more. Shorten a series, or ask an editor.`;
}

/** Concurrent writers kept colliding; the write did not happen and may be tried again. */
export class Conflict extends DomainError {
  constructor() {
    super('The change conflicts with another object; try again.');
  }
}

/** A change feed cursor from before the changes still kept: the client must copy everything again. */
export class CursorExpired extends DomainError {
  constructor() {
    super(
      'The changes after this cursor are no longer kept; read the lists again, then follow the feed from a new cursor.',
    );
  }
}

/** A webhook subscription that is disabled sends nothing, a test message neither. */
export class WebhookDisabled extends DomainError {
  constructor(readonly id: number) {
    super(`The webhook subscription ${id} is disabled; enable it first.`);
  }
}

/**
 * An upload the media library does not take: no file, an empty one, too many bytes or pixels, not
 * an image of a type it takes, or one that does not decode whole. Nothing of it is stored.
 */
export class MediaRefused extends DomainError {
  constructor(
    readonly reason: 'no-file' | 'empty' | 'bytes' | 'pixels' | 'type' | 'corrupt' | 'busy',
    message: string,
  ) {
    super(message);
  }
}

/** An uploaded image that items show cannot be deleted: they would show nothing in its place. */
export class MediaInUse extends DomainError {
  constructor(
    readonly id: number,
    readonly usedBy: { type: 'event' | 'venue' | 'organizer'; id: number }[],
  ) {
    super(
      `The image ${id} is the image of ${usedBy.length === 1 ? 'an item' : 'items'}; give them another image first.`,
    );
  }
}

/**
 * A calendar object resource (CalDAV) that this calendar does not take as sent
 * (services/calendar-objects/write.ts): why, for caldav/ to say as the precondition RFC 4791 names.
 */
export class ObjectRefused extends DomainError {
  constructor(
    readonly reason: 'missing' | 'uid-conflict' | 'site-uid' | 'not-here' | 'unwritable',
    message: string,
  ) {
    super(message);
  }
}

/**
 * An RSVP not taken or not changed as asked (services/rsvps/): why, for each door to say. `seats` is
 * the seats taken, when a capacity below them was refused; `busy`, too many writes of the event
 * queued in this instance (services/rsvps/queue.ts), which a moment later it takes.
 */
export class RsvpRefused extends DomainError {
  constructor(
    readonly reason:
      | 'series'
      | 'not-open'
      | 'closed'
      | 'canceled'
      | 'needs-confirmation'
      | 'confirmation'
      | 'exists'
      | 'no-room'
      | 'capacity'
      | 'status'
      | 'busy'
      | 'unknown-code',
    message: string,
    readonly data: Record<string, unknown> = {},
  ) {
    super(message);
  }
}

/**
 * A submission not taken, or not decided as asked (services/submissions/): `closed`, the service
 * takes none (from this caller); `challenge`, no proof of work or a wrong, used or expired one;
 * `duplicate`, the same event was submitted today; `decided`, it was approved or rejected already;
 * `busy`, this instance has as many submissions waiting as it holds (services/submissions/admission.ts).
 */
export class SubmissionRefused extends DomainError {
  constructor(
    readonly reason: 'closed' | 'challenge' | 'duplicate' | 'decided' | 'busy',
    message: string,
  ) {
    super(message);
  }
}

/**
 * A follow not decided as asked (services/followers.ts): `accepted`, it was accepted already (only
 * a waiting one is approved or rejected); `off`, federation is off, so nothing can be sent.
 */
export class FollowerRefused extends DomainError {
  constructor(
    readonly reason: 'accepted' | 'off',
    message: string,
  ) {
    super(message);
  }
}

/**
 * A remote actor not followed as asked (services/federation-sources.ts): `off`, federation is off
 * here (no PUBLIC_URL); `lookup`, no actor could be read at what was given; `blocked`, its host is
 * blocked (FEDERATION_BLOCKED_HOSTS); `self`, it is this calendar; `exists`, it is followed already.
 */
export class FederationRefused extends DomainError {
  constructor(
    readonly reason: 'off' | 'lookup' | 'blocked' | 'self' | 'exists',
    message: string,
  ) {
    super(message);
  }
}
