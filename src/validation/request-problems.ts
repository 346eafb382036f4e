// What the document finds wrong with a request, read from openapi-backend's (Ajv's) validation
// errors, in no protocol's terms: a path parameter that does not validate, body fields missing, or
// each offending top-level parameter with what is wrong with it. http/validation.ts turns a problem
// into the API's 400 (or 404); the importer into the reason an item is skipped.
import type { ErrorObject } from 'ajv';

export type RequestProblem =
  /** A path parameter does not validate. */
  | { kind: 'path' }
  /** Required fields of the body are missing (each named once). */
  | { kind: 'missing'; names: string[] }
  /** Each offending parameter (`body` for the whole body, `request` when none) with its first complaint. */
  | { kind: 'invalid'; params: Record<string, string> };

export function requestProblem(errors: ErrorObject[]): RequestProblem {
  if (errors.some((e) => e.instancePath.startsWith('/path'))) return { kind: 'path' };

  const missing = errors
    .filter((e) => e.keyword === 'required' && e.instancePath === '/requestBody')
    .map((e) => String(e.params.missingProperty));
  if (missing.length) return { kind: 'missing', names: [...new Set(missing)] };

  const params: Record<string, string> = {};
  for (const error of errors) {
    if (error.keyword === 'parse') {
      params.body = 'The body is not valid JSON.';
      continue;
    }
    // instancePath is /query/per_page, /requestBody/venue/0/website, /requestBody (whole body)...
    const parts = error.instancePath.split('/');
    const name = parts.at(2); // none for the whole body
    const rest = parts.slice(3);
    const key = name ?? (error.instancePath === '/requestBody' ? 'body' : 'request');
    if (params[key]) continue; // the first error of a parameter is the most telling
    const where = rest.length ? `${key}/${rest.join('/')}` : key;
    params[key] = `${where} ${describe(error)}`;
  }
  return { kind: 'invalid', params };
}

function describe(error: ErrorObject): string {
  switch (error.keyword) {
    case 'pattern':
      return 'has a character or form that is not allowed';
    case 'enum':
      return `must be one of: ${(error.params.allowedValues as unknown[]).join(', ')}`;
    case 'anyOf':
    case 'oneOf':
      return 'is not in an accepted form';
    default:
      return error.message ?? 'is not valid';
  }
}
