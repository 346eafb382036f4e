// The service's error shape, {"code", "message", "data": {"status", ...}}, and the one place that
// decides the status, code and headers of every failure: domain errors (domain/errors.ts), the
// database's errors, and the HTTP layer's own.
import {
  isDatabaseUnavailable,
  isForeignKeyViolation,
  isLockTimeout,
  isTransient,
  isUniqueViolation,
} from '../db/errors.js';
import {
  AlreadyTrashed,
  Conflict,
  CursorExpired,
  DomainError,
  DuplicateTermName,
  InvalidTermSlug,
  Forbidden,
  InvalidCredentials,
  InvalidInput,
  MediaInUse,
  FederationRefused,
  ObjectRefused,
  RsvpRefused,
  MediaRefused,
  NotFound,
  NotReadable,
  PreconditionFailed,
  QuotaExceeded,
  SubmissionRefused,
  TermCreationForbidden,
  Throttled,
  WebhookDisabled,
  FollowerRefused,
} from '../domain/errors.js';

export interface ErrorBody {
  code: string;
  message: string;
  data: { status: number; [key: string]: unknown };
}

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly data: Record<string, unknown> = {},
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }

  toBody(): ErrorBody {
    return { code: this.code, message: this.message, data: { status: this.status, ...this.data } };
  }
}

export const noRoute = () =>
  new ApiError(404, 'rest_no_route', 'No route was found matching the URL and request method.');

/** 405 for a route that has other methods, which Allow lists. */
export const methodNotAllowed = (method: string, allowed: string[]) =>
  new ApiError(
    405,
    'rest_method_not_allowed',
    `Method ${method} is not allowed here.`,
    {},
    { Allow: allowed.join(', ') },
  );

/** 400 naming each offending parameter with what is wrong with it. */
export const invalidParams = (params: Record<string, string>) => fromDomain(new InvalidInput(params));

export const missingParams = (names: string[]) =>
  new ApiError(400, 'rest_missing_callback_param', `Missing parameter(s): ${names.join(', ')}`, { params: names });

/** Seconds a client should wait before retrying while the database is unavailable. */
export const DATABASE_RETRY_SECONDS = 5;

export const databaseUnavailable = () =>
  new ApiError(
    503,
    'rest_database_unavailable',
    'The database is unavailable; retry after the time in Retry-After.',
    {},
    { 'Retry-After': String(DATABASE_RETRY_SECONDS) },
  );

const conflict = () => new ApiError(409, 'rest_conflict', new Conflict().message, {}, { 'Retry-After': '1' });

/** Any failure as the client sees it; what is not recognised is a 500 without details. */
export function toApiError(err: unknown): ApiError {
  if (err instanceof ApiError) return err;
  if (err instanceof DomainError) return fromDomain(err);
  const code = (err as { code?: string } | null)?.code;
  if (code === 'P2025') return new ApiError(404, 'rest_not_found', 'The object does not exist (any more).');
  if (isUniqueViolation(err) || isForeignKeyViolation(err) || isLockTimeout(err) || isTransient(err)) return conflict();
  if (isDatabaseUnavailable(err)) return databaseUnavailable();
  return new ApiError(500, 'rest_internal_error', 'The server could not complete the request.');
}

/** An upload's refusal by its reason: WordPress's `rest_upload_no_data` for a missing file, the rest ours. */
const MEDIA_REFUSALS: Record<MediaRefused['reason'], [number, string]> = {
  'no-file': [400, 'rest_upload_no_data'],
  empty: [400, 'rest_upload_no_data'],
  bytes: [413, 'rest_upload_file_too_big'],
  pixels: [413, 'rest_upload_too_many_pixels'],
  type: [415, 'rest_upload_invalid_type'],
  corrupt: [400, 'rest_upload_invalid_image'],
  busy: [429, 'rest_upload_busy'],
};

/** Statuses and codes follow the modelled service's where it has one (docs/decisions.md, "Errors"). */
function fromDomain(err: DomainError): ApiError {
  return (
    fromInputError(err) ??
    fromAccessError(err) ??
    fromStateError(err) ??
    fromFederationError(err) ??
    new ApiError(500, 'rest_internal_error', 'The server could not complete the request.')
  );
}

/** What was sent is wrong: a parameter, or a term's name or slug already in use. */
function fromInputError(err: DomainError): ApiError | undefined {
  const { message } = err;
  if (err instanceof InvalidInput) {
    return new ApiError(400, 'rest_invalid_param', message, { params: err.fields, details: [] });
  }
  if (err instanceof DuplicateTermName) return new ApiError(400, 'term_exists', message, { term_id: err.existingId });
  if (err instanceof InvalidTermSlug) {
    return new ApiError(400, 'duplicate_term_slug', message, { params: { slug: 'slug is already in use.' } });
  }
  if (err instanceof MediaRefused) {
    const [status, code] = MEDIA_REFUSALS[err.reason];
    // Busy: as many images are being made as this instance takes; a moment later it takes more.
    return new ApiError(status, code, message, {}, err.reason === 'busy' ? { 'Retry-After': '2' } : {});
  }
  return undefined;
}

/** The caller may not do it: not signed in, not allowed, or over a limit. */
function fromAccessError(err: DomainError): ApiError | undefined {
  const { message } = err;
  // An anonymous caller is asked to sign in (401); a signed-in one lacks the right (403).
  if (err instanceof Forbidden) return new ApiError(err.signedIn ? 403 : 401, 'rest_forbidden', message);
  if (err instanceof TermCreationForbidden) {
    return new ApiError(403, 'rest_cannot_create_term', message, {
      params: { [err.field]: `Only an ${err.requiredRole} or above may create a ${err.type}.` },
    });
  }
  if (err instanceof NotReadable) return new ApiError(403, `${err.type}-not-accessible`, message);
  if (err instanceof InvalidCredentials) return new ApiError(401, 'rest_invalid_credentials', message);
  if (err instanceof Throttled) {
    return new ApiError(
      429,
      'rest_too_many_failed_logins',
      message,
      {},
      { 'Retry-After': String(err.retryAfterSeconds) },
    );
  }
  if (err instanceof QuotaExceeded) {
    const data = { quota: err.quota, limit: err.limit };
    return err.retryAfterSeconds === undefined
      ? new ApiError(403, 'rest_quota_exceeded', message, data)
      : new ApiError(429, 'rest_quota_exceeded', message, data, { 'Retry-After': String(err.retryAfterSeconds) });
  }
  return undefined;
}

/** What was asked for is not in a state to answer it: gone, changed meanwhile, or switched off. */
function fromStateError(err: DomainError): ApiError | undefined {
  const { message } = err;
  if (err instanceof NotFound) return new ApiError(404, `rest-${err.type}-not-found`, message);
  if (err instanceof AlreadyTrashed) return new ApiError(410, `${err.type}-is-in-trash`, message);
  if (err instanceof PreconditionFailed) return new ApiError(412, 'rest_precondition_failed', message);
  if (err instanceof Conflict) return conflict();
  if (err instanceof CursorExpired) return new ApiError(410, 'rest_changes_cursor_expired', message);
  if (err instanceof WebhookDisabled) return new ApiError(409, 'rest_webhook_disabled', message);
  if (err instanceof MediaInUse) return new ApiError(409, 'rest_media_in_use', message, { used_by: err.usedBy });
  // CalDAV's, which caldav/write.ts words as its preconditions; said here as a REST answer would.
  if (err instanceof ObjectRefused) {
    const status = { missing: 404, 'uid-conflict': 409, 'site-uid': 403, 'not-here': 403, unwritable: 403 }[err.reason];
    return new ApiError(status, 'rest_calendar_object_refused', message);
  }
  if (err instanceof RsvpRefused) {
    const [status, code] = RSVP_REFUSALS[err.reason];
    // Busy: the event's queue of writes in this instance is full; it drains within a second or two.
    return new ApiError(status, code, message, err.data, err.reason === 'busy' ? { 'Retry-After': '1' } : {});
  }
  if (err instanceof SubmissionRefused) {
    const [status, code] = SUBMISSION_REFUSALS[err.reason];
    return new ApiError(status, code, message, undefined, err.reason === 'busy' ? { 'Retry-After': '1' } : {});
  }
  return undefined;
}

/** The federation's refusals: a follower's decision, a remote actor's follow. */
function fromFederationError(err: DomainError): ApiError | undefined {
  if (err instanceof FollowerRefused) {
    return new ApiError(409, err.reason === 'off' ? 'rest_federation_off' : 'rest_follower_accepted', err.message);
  }
  if (err instanceof FederationRefused) {
    const [status, code] = FEDERATION_REFUSALS[err.reason];
    return new ApiError(status, code, err.message);
  }
  return undefined;
}

/** A follow's refusal by its reason (services/federation-sources.ts). */
const FEDERATION_REFUSALS: Record<FederationRefused['reason'], [number, string]> = {
  off: [409, 'rest_federation_off'],
  lookup: [400, 'rest_federation_actor_unreadable'],
  blocked: [403, 'rest_federation_blocked'],
  self: [400, 'rest_federation_self'],
  exists: [409, 'rest_federation_source_exists'],
};

/** A submission's refusal by its reason (services/submissions/). */
const SUBMISSION_REFUSALS: Record<SubmissionRefused['reason'], [number, string]> = {
  closed: [403, 'rest_submissions_closed'],
  challenge: [400, 'rest_submission_challenge'],
  duplicate: [409, 'rest_submission_duplicate'],
  decided: [409, 'rest_submission_decided'],
  busy: [503, 'rest_submissions_busy'],
};

/**
 * An RSVP's refusal by its reason: a series is the wrong target (400); too many writes at once is
 * this instance's state (503); the rest are the event's or the RSVP's state.
 */
const RSVP_REFUSALS: Record<RsvpRefused['reason'], [number, string]> = {
  series: [400, 'rest_rsvp_series'],
  'not-open': [409, 'rest_rsvp_not_open'],
  closed: [409, 'rest_rsvp_closed'],
  canceled: [409, 'rest_rsvp_event_canceled'],
  'needs-confirmation': [403, 'rest_rsvp_needs_confirmation'],
  confirmation: [403, 'rest_rsvp_confirmation_invalid'],
  exists: [409, 'rest_rsvp_exists'],
  'no-room': [409, 'rest_rsvp_no_room'],
  capacity: [409, 'rest_rsvp_capacity_below_seats'],
  status: [409, 'rest_rsvp_status'],
  busy: [503, 'rest_rsvp_busy'],
  // As any RSVP the caller cannot find (NotFound's code for an RSVP).
  'unknown-code': [404, 'rest-rsvp-not-found'],
};
