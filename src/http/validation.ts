// The document's validation problems (validation/request-problems.ts) as the API's errors: missing
// body fields are `rest_missing_callback_param`, anything else `rest_invalid_param`, each naming the
// top-level parameter. A path parameter that does not validate means the URL matches no route, as
// with the modelled service's `\d+` route patterns: 404 `rest_no_route`.
import type { ErrorObject } from 'ajv';
import { requestProblem } from '../validation/request-problems.js';
import { type ApiError, invalidParams, missingParams, noRoute } from './errors.js';

export function validationError(errors: ErrorObject[]): ApiError {
  const problem = requestProblem(errors);
  switch (problem.kind) {
    case 'path':
      return noRoute();
    case 'missing':
      return missingParams(problem.names);
    case 'invalid':
      return invalidParams(problem.params);
  }
}
