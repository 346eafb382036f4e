// Request bodies: the parsers (JSON and forms, for the methods that take a body), what they refuse
// before parsing, their failures in the error shape, and the body an operation receives.
import express, { type Request } from 'express';
import type { Operation } from 'openapi-backend';
import type { OpenAPIV3_1 } from 'openapi-types';
import { ApiError, invalidParams } from './errors.js';
import { coerceBodyScalars, illFormedFields } from './query.js';

export const MAX_BODY_BYTES = 1024 * 1024;
/** PHP's json_last_error() codes, which WordPress's invalid-JSON error carries. */
const JSON_ERROR_DEPTH = 1;
const JSON_ERROR_SYNTAX = 4;
const BODY_METHODS = new Set(['POST', 'PUT', 'PATCH']);

/**
 * JSON and form parsers. Only the methods whose operations take a body read one: a body sent with
 * GET or DELETE is ignored, so that no read answers 413 or 400 for something the document does not
 * describe.
 */
export function bodyParsers(): express.RequestHandler[] {
  const withBody =
    (parser: express.RequestHandler): express.RequestHandler =>
    (req, res, next) => {
      if (BODY_METHODS.has(req.method)) parser(req, res, next);
      else next();
    };
  return [
    withBody(
      express.json({ limit: MAX_BODY_BYTES, type: ['application/json', 'application/*+json'], verify: refuseDeepJson }),
    ),
    withBody(express.urlencoded({ limit: MAX_BODY_BYTES, extended: true, parameterLimit: 1000 })),
  ];
}

/**
 * The body an operation that takes one receives: what the parsers read (415 when they read nothing
 * of a body that was sent), refused when a field holds text that is not Unicode, with scalars
 * coerced to the document's types. Undefined for operations without a body.
 */
export function requestBody(req: Request, operation: Operation): unknown {
  if (!operation.requestBody) return undefined;
  if (req.body === undefined && hasBody(req)) {
    throw new ApiError(
      415,
      'rest_unsupported_media_type',
      'Send the body as application/json or application/x-www-form-urlencoded.',
    );
  }
  return parsedBody(req.body ?? {}, operation);
}

/**
 * A body as an operation that takes one receives it: refused when a field holds text that is not
 * Unicode, with scalars coerced to the document's types (also what a batch's request is checked
 * with before it runs, http/batch.ts).
 */
export function parsedBody(body: unknown, operation: Operation): unknown {
  if (!operation.requestBody) return undefined;
  const illFormed = illFormedFields(body);
  if (illFormed.length) {
    throw invalidParams(
      Object.fromEntries(illFormed.map((name) => [name, `${name} contains text that is not valid Unicode.`])),
    );
  }
  // Partial: a body may be declared in other media types only.
  const content: Partial<Record<string, OpenAPIV3_1.MediaTypeObject>> = (
    operation.requestBody as OpenAPIV3_1.RequestBodyObject
  ).content;
  const schema = content['application/json']?.schema;
  if (body && typeof body === 'object' && !Array.isArray(body)) {
    coerceBodyScalars(body as Record<string, unknown>, schema);
  }
  return body;
}

function hasBody(req: Request): boolean {
  return Number(req.headers['content-length'] ?? 0) > 0 || req.headers['transfer-encoding'] !== undefined;
}

/** body-parser's failures, in the error shape. */
export function bodyParserError(err: unknown): ApiError | undefined {
  if (err instanceof ApiError) return undefined;
  const type = (err as { type?: string } | null | undefined)?.type;
  const known = BODY_PARSER_ERRORS.get(type ?? '');
  if (known) return known(err as Error);
  // Anything else body-parser refuses as the client's fault: a body that does not decompress
  // as its Content-Encoding says (zlib's error, given status 400).
  const status = (err as { status?: unknown } | null | undefined)?.status;
  if (typeof status === 'number' && status >= 400 && status < 500) {
    return new ApiError(
      400,
      'rest_invalid_body',
      'The body could not be read: it is not what its Content-Encoding and Content-Type say.',
    );
  }
  return undefined;
}

const unreadable = () => new ApiError(400, 'rest_invalid_body', 'The body could not be read.');
const unsupportedEncoding = () =>
  new ApiError(415, 'rest_unsupported_media_type', 'The body uses an encoding or character set that is not supported.');

/** JSON nested deeper than MAX_JSON_DEPTH, as WordPress reports it (PHP's json_last_error() 1). */
export const tooDeep = (what: string) =>
  new ApiError(400, 'rest_invalid_json', `${what} is nested deeper than ${MAX_JSON_DEPTH} levels.`, {
    json_error_code: JSON_ERROR_DEPTH,
    json_error_message: 'Maximum stack depth exceeded',
  });

/** body-parser's failures by their `type`. */
const BODY_PARSER_ERRORS = new Map<string, (err: Error) => ApiError>([
  [
    'entity.parse.failed',
    // WordPress reports PHP's json_last_error(): 4 is a syntax error.
    (err) =>
      new ApiError(400, 'rest_invalid_json', 'The body is not valid JSON.', {
        json_error_code: JSON_ERROR_SYNTAX,
        json_error_message: err.message,
      }),
  ],
  ['entity.too.deep', () => tooDeep('The body')],
  [
    'entity.too.large',
    () => new ApiError(413, 'rest_payload_too_large', `The body is larger than ${MAX_BODY_BYTES} bytes.`),
  ],
  ['encoding.unsupported', unsupportedEncoding],
  ['charset.unsupported', unsupportedEncoding],
  // body-parser's own limit on `a[b][c]=...` (32 levels), which @types/body-parser cannot set.
  ['querystring.parse.rangeError', () => new ApiError(400, 'rest_invalid_body', 'The form is nested too deep.')],
  ['parameters.too.many', () => new ApiError(413, 'rest_payload_too_large', 'The form has too many fields.')],
  ['request.aborted', unreadable],
  ['request.size.invalid', unreadable],
  ['stream.encoding.set', unreadable],
]);

export const MAX_JSON_DEPTH = 64;

/**
 * Refuses JSON nested deeper than MAX_JSON_DEPTH before it is parsed: the validators and our own
 * walks over a body recurse, and 5,000 nested arrays overflowed the stack. One pass over the bytes,
 * counting brackets outside strings.
 *
 * The bytes are read as UTF-8, the one encoding the JSON standard allows between systems, so any
 * other charset body-parser would decode is refused (415): in UTF-16 an escaped quote (`\`, NUL,
 * `"`) fooled the scan into counting the brackets after it as text, and nesting got through again.
 */
function refuseDeepJson(_req: unknown, _res: unknown, body: Buffer, charset: string) {
  if (charset !== 'utf-8') throw Object.assign(new Error('not UTF-8'), { type: 'charset.unsupported' });
  if (nestedTooDeep(body)) throw Object.assign(new Error('too deep'), { type: 'entity.too.deep' });
}

/** Whether UTF-8 JSON nests deeper than MAX_JSON_DEPTH: one pass over its bytes, counting brackets outside strings. */
export function nestedTooDeep(body: Buffer): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < body.length; i++) {
    const byte = body[i];
    if (inString) {
      if (byte === 0x5c)
        i++; // backslash: the next byte is escaped
      else if (byte === 0x22) inString = false;
    } else if (byte === 0x22) {
      inString = true;
    } else if (byte === 0x5b || byte === 0x7b) {
      if (++depth > MAX_JSON_DEPTH) return true;
    } else if (byte === 0x5d || byte === 0x7d) {
      depth--;
    }
  }
  return false;
}
