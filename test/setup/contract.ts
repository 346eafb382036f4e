// Checks a response against the document: its status must be documented for the operation the
// request matched, and its body (and headers) must conform. Responses to URLs that match no
// operation must be errors in the error shape.
import type { ErrorObject } from 'ajv';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import type { OpenAPIV3_1 } from 'openapi-types';
import { createBackend } from '../../src/http/backend.js';
import { loadDocument } from '../../src/openapi.js';

const api = createBackend(loadDocument());
const ajv = new Ajv2020({ strict: false, allErrors: true });
addFormats.default(ajv);
const validateError = ajv.compile((api.definition.components!.schemas as Record<string, object>).RestError);

const format = (errors: ErrorObject[] | null | undefined) =>
  (errors ?? []).map((e) => `${e.instancePath || '(root)'} ${e.message}`).join('; ');

export interface CheckedResponse {
  method: string;
  /** Path below the namespace, e.g. `/categories/3`. */
  path: string;
  /** The query string, with its `?`. */
  search?: string;
  status: number;
  headers: Headers;
  body: unknown;
}

/** Throws with a readable message when the response does not conform to the document. */
export function assertConforms(r: CheckedResponse): void {
  const operation = api.router.matchOperation({
    method: r.method === 'HEAD' ? 'GET' : r.method,
    path: r.path,
    headers: {},
  });
  const where = `${r.method} ${r.path} -> ${r.status}`;
  if (!operation) {
    assertError(r, where);
    return;
  }
  const responses = operation.responses as Record<string, OpenAPIV3_1.ResponseObject>;
  // A path parameter that fails validation means "no such route" (404); the document cannot list it per operation.
  const noRoute = r.status === 404 && (r.body as { code?: string })?.code === 'rest_no_route' && validateError(r.body);
  if (!responses[String(r.status)] && noRoute) return;
  // A status the operation does not list is its `default` answer, if it has one.
  const documented = responses[String(r.status)] ?? responses.default;
  if (!documented) {
    throw new Error(`${where}: status ${r.status} is not documented for ${operation.operationId}`);
  }
  const mediaType = assertMediaType(r, documented, where);
  if (mediaType === 'application/json') assertJsonBody(r, documented, where);
  assertHeaders(r, documented, where);
}

/** A URL that matches no operation must answer with an error. */
function assertError(r: CheckedResponse, where: string): void {
  if (r.status < 400 || !validateError(r.body)) {
    throw new Error(
      `${where}: a URL that matches no operation must answer with an error (${format(validateError.errors)})`,
    );
  }
}

/** The answer's media type, which must be one the document gives this status (none: no body). */
function assertMediaType(r: CheckedResponse, documented: OpenAPIV3_1.ResponseObject, where: string): string {
  const contentType = r.headers.get('content-type') ?? '';
  const declared = Object.keys(documented.content ?? {});
  const mediaType = contentType.split(';')[0].trim().toLowerCase();
  if (declared.length ? !declared.includes(mediaType) : mediaType && r.body !== '') {
    throw new Error(
      `${where}: ${contentType || 'no Content-Type'} is not documented (${declared.join(', ') || 'no body'})`,
    );
  }
  return mediaType;
}

function assertJsonBody(r: CheckedResponse, documented: OpenAPIV3_1.ResponseObject, where: string): void {
  // The document allows an answer reshaped by `_fields` or `_envelope` beside the plain one
  // (scripts/lib/reshaped-answers.mjs); a request that sent neither must get the plain one.
  const query = new URLSearchParams(r.search ?? '');
  const schema = documented.content!['application/json'].schema as { anyOf?: object[]; 'x-reshaped'?: boolean };
  const plain = schema['x-reshaped'] && !query.has('_fields') && !query.has('_envelope');
  const validate = headerValidator(plain ? schema.anyOf![0] : schema);
  if (!validate(r.body)) throw new Error(`${where}: body does not match the document: ${format(validate.errors)}`);
}

function assertHeaders(r: CheckedResponse, documented: OpenAPIV3_1.ResponseObject, where: string): void {
  // openapi-backend's header validation treats every documented header as required; the document
  // means them as optional unless it says `required`, so each is checked here on its own.
  for (const [name, header] of Object.entries(documented.headers ?? {}) as [string, OpenAPIV3_1.HeaderObject][]) {
    const value = r.headers.get(name);
    if (value === null) {
      if (header.required) throw new Error(`${where}: required header ${name} is missing`);
      continue;
    }
    const schema = header.schema as { type?: string };
    const data = schema.type === 'integer' || schema.type === 'number' ? Number(value) : value;
    if (!headerValidator(schema)(data))
      throw new Error(`${where}: header ${name}: ${value} does not match the document`);
  }
}

const headerValidators = new Map<object, ReturnType<typeof ajv.compile>>();
function headerValidator(schema: object) {
  if (!headerValidators.has(schema)) headerValidators.set(schema, ajv.compile(schema));
  return headerValidators.get(schema)!;
}
