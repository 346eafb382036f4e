// Named errors and the one function that turns any failure into the service's error shape:
// {"code", "message", "data": {"status", ...}}.
import { isDatabaseUnavailable, isForeignKeyViolation, isUniqueViolation } from '../db/errors.js';

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

export type ResourceType = 'event' | 'venue' | 'organizer' | 'category' | 'tag';

export const noRoute = () =>
  new ApiError(404, 'rest_no_route', 'No route was found matching the URL and request method.');

export const notFound = (type: ResourceType, key: number | string) =>
  new ApiError(
    404,
    `rest-${type}-not-found`,
    typeof key === 'number'
      ? `The ${type} with ID ${key} does not exist.`
      : `The ${type} with slug "${key}" does not exist.`,
  );

/** 400 naming each offending parameter with what is wrong with it. */
export const invalidParams = (params: Record<string, string>) =>
  new ApiError(400, 'rest_invalid_param', `Invalid parameter(s): ${Object.keys(params).join(', ')}`, {
    params,
    details: [],
  });

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

/** Prisma's error codes we can explain to the client; anything else is a 500 without details. */
export function toApiError(err: unknown): ApiError {
  if (err instanceof ApiError) return err;
  const code = (err as { code?: string })?.code;
  if (code === 'P2025') return new ApiError(404, 'rest_not_found', 'The object does not exist (any more).');
  if (isUniqueViolation(err) || isForeignKeyViolation(err)) {
    return new ApiError(
      409,
      'rest_conflict',
      'The change conflicts with another object; try again.',
      {},
      { 'Retry-After': '1' },
    );
  }
  if (isDatabaseUnavailable(err)) return databaseUnavailable();
  return new ApiError(500, 'rest_internal_error', 'The server could not complete the request.');
}
