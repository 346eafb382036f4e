// Maps openapi-backend's (Ajv's) validation errors to the error shape: missing body fields are
// `rest_missing_callback_param`, anything else `rest_invalid_param`, each naming the top-level
// parameter. A path parameter that does not validate means the URL matches no route, as with the
// modelled service's `\d+` route patterns: 404 `rest_no_route`.
import type { ErrorObject } from 'ajv';
import { ApiError, invalidParams, missingParams, noRoute } from './errors.js';

export function validationError(errors: ErrorObject[]): ApiError {
  if (errors.some((e) => e.instancePath.startsWith('/path'))) return noRoute();

  const missing = errors
    .filter((e) => e.keyword === 'required' && e.instancePath === '/requestBody')
    .map((e) => String(e.params.missingProperty));
  if (missing.length) return missingParams([...new Set(missing)]);

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
  return invalidParams(params);
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
