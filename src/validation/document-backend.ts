// The document's request validators: openapi-backend set up for an OpenAPI 3.1 document. Its own
// document check knows only OpenAPI 3.0 (it refuses a 3.1 document, or leaves the router empty), so
// `quick` skips it and Ajv2020 does the validation. Parameters are coerced from strings and get the
// document's defaults; bodies are validated as sent. The service validates each request with it
// (http/backend.ts adds the matching of URLs); the importer validates each item's body with it, as a
// request to the item's create or update operation (services/items/validate-body.ts).
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { type Document, OpenAPIBackend } from 'openapi-backend';

export function createDocumentBackend(document: Document): OpenAPIBackend {
  const api = new OpenAPIBackend({
    definition: withRefSiblings(structuredClone(document)),
    quick: true,
    coerceTypes: true,
    validate: true,
    customizeAjv: (_original, ajvOpts) => {
      const ajv = new Ajv2020({ ...ajvOpts, strict: false, allErrors: true, useDefaults: true });
      addFormats.default(ajv);
      // eslint-disable-next-line @typescript-eslint/no-unsafe-class-instance-assignment -- Ajv2020 for a 3.1 document; openapi-backend uses only the API it shares with Ajv
      return ajv;
    },
  });
  void api.init(); // quick, with a document object: init runs synchronously, done when it returns
  // The router rebuilds its list of operations from the document on every lookup (each validation
  // looks its operation up by it); the document never changes once loaded, so it is built once.
  const operations = api.router.getOperations();
  api.router.getOperations = () => operations;
  shareValidators(api, document);
  return api;
}

/** Keywords beside a `$ref` that say something of the value only to a reader, not to a validator. */
const ANNOTATIONS = new Set(['$ref', 'description', 'summary', 'title', 'examples', 'example', 'deprecated']);

/**
 * In OpenAPI 3.1 a `$ref` in a schema may have sibling keywords, which apply as well
 * (`TermFields.yaml`: a name is a `Name`, and at most 200 characters). openapi-backend's dereferencing
 * replaces the reference by its target and drops the siblings, so `{ $ref, maxLength }` becomes
 * `{ allOf: [{ $ref }], maxLength }` first: every constraint of the document is enforced, not only
 * those written without a reference beside them.
 */
function withRefSiblings<T>(node: T): T {
  if (Array.isArray(node)) {
    node.forEach((item: unknown) => withRefSiblings(item));
  } else if (node && typeof node === 'object') {
    const object = node as Record<string, unknown>;
    for (const value of Object.values(object)) withRefSiblings(value);
    if (typeof object.$ref === 'string' && Object.keys(object).some((key) => !ANNOTATIONS.has(key))) {
      object.allOf = [{ $ref: object.$ref }, ...((object.allOf as unknown[] | undefined) ?? [])];
      delete object.$ref;
    }
  }
  return node;
}

type Validators = ReturnType<OpenAPIBackend['validator']['getRequestValidatorsForOperation']>;

/** Each document's compiled request validators, by operation, for every backend of the process. */
const compiled = new WeakMap<Document, Map<string, Validators>>();

/**
 * Compiling an operation's validators costs 20 ms (2 s for the whole document); they are pure
 * functions of the document, so the backends of one process (the service and the importer beside
 * it; test files that each start servers of their own) compile each once instead of once each.
 */
function shareValidators(api: OpenAPIBackend, document: Document) {
  const validators = compiled.get(document) ?? new Map<string, Validators>();
  compiled.set(document, validators);
  const build = api.validator.getRequestValidatorsForOperation.bind(api.validator);
  api.validator.getRequestValidatorsForOperation = (operationId) => {
    let built = validators.get(operationId);
    if (built === undefined) {
      built = build(operationId);
      validators.set(operationId, built);
    }
    return built;
  };
}
