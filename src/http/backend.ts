// openapi-backend as the service dispatches with it: the document's validators
// (validation/document-backend.ts; a body is validated after coerceBodyScalars), with the matching
// of URLs to operations compiled once.
import { setImmediate as nextTurn } from 'node:timers/promises';
import type { Document, Operation, OpenAPIBackend, Request } from 'openapi-backend';
import { createDocumentBackend } from '../validation/document-backend.js';

/** The methods operations have, in the order answers list them (Allow). */
export const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;

/** The methods that operations of `path` take: what a 405 for another method allows. */
export const methodsOfPath = (api: OpenAPIBackend, path: string): string[] =>
  METHODS.filter((method) => api.router.matchOperation({ method, path, headers: {} }));

export function createBackend(document: Document): OpenAPIBackend {
  const api = createDocumentBackend(document);
  compileRoutes(api);
  return api;
}

/**
 * Compiles the request validators of every operation, one per turn of the event loop. openapi-backend
 * compiles an operation's on its first request (quick mode), which held the loop for up to 55 ms
 * inside that request; the service does it before it listens (server.ts).
 */
export async function compileValidators(api: OpenAPIBackend): Promise<void> {
  for (const operation of api.router.getOperations()) {
    await nextTurn();
    if (operation.operationId) api.validator.getRequestValidatorsForOperation(operation.operationId);
  }
}

/**
 * The router rebuilds its list of operations from the document, and a regular expression for every
 * path template, on each match, twice per request (our dispatch matches once to answer 405s,
 * openapi-backend again). The document never changes once loaded, so both are built once: the list
 * in createDocumentBackend, the templates here; the matching itself is the router's: an exact path
 * first, else the templates that match, the most specific first, with the router's own errors.
 */
function compileRoutes(api: OpenAPIBackend) {
  const router = api.router;
  const operations = router.getOperations();
  const templates = operations
    .map((operation) => {
      const segments = operation.path.split('/').map((segment): Segment => {
        const variable = /^\{[^{}]+\}([^{}]*)$/.exec(segment);
        return variable ? { suffix: variable[1] } : segment;
      });
      if (segments.some((segment) => typeof segment === 'string' && segment.includes('{'))) {
        throw new Error(`${operation.path}: a path variable must be a whole segment, or one with a suffix ({id}.ics)`);
      }
      const specificity = segments
        .map((segment) => (typeof segment === 'string' ? segment : segment.suffix))
        .join('/').length;
      return { operation, segments, specificity };
    })
    .sort((a, b) => b.specificity - a.specificity); // stable: equal ones keep the document's order
  // The first operation of the document with each method and literal path.
  const exactly = new Map<string, Operation>();
  for (const operation of [...operations].reverse()) exactly.set(`${operation.method} ${operation.path}`, operation);
  router.matchOperation = ((request: Request, strict?: boolean): Operation | undefined => {
    const req = router.normalizeRequest(request);
    // No apiRoot is set, so every path lies under the root '/' and only needs normalizing.
    const path = router.normalizePath(req.path);
    const exact = exactly.get(`${req.method} ${path}`);
    if (exact) return exact;
    // The templates, most specific first: the first that matches with this method wins.
    const parts = path.split('/');
    let matched = false;
    for (const template of templates) {
      if (!matchesTemplate(template.segments, parts)) continue;
      if (template.operation.method === req.method) return template.operation;
      matched = true;
    }
    if (strict) {
      throw new Error(
        matched
          ? '405-methodNotAllowed: this method is not registered for the route'
          : '404-notFound: no route matches request',
      );
    }
    return undefined;
  }) as typeof router.matchOperation;
}

/** A literal segment, or a variable with the literal that ends its segment (`.ics` of `{id}.ics`, often none). */
type Segment = string | { suffix: string };

/** A path (its segments) matches a template segment by segment: literals exactly, a variable any non-empty value before its suffix. */
function matchesTemplate(segments: Segment[], parts: string[]): boolean {
  return (
    parts.length === segments.length &&
    segments.every((segment, i) =>
      typeof segment === 'string'
        ? segment === parts[i]
        : parts[i].length > segment.suffix.length && parts[i].endsWith(segment.suffix),
    )
  );
}
