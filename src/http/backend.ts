// openapi-backend set up for an OpenAPI 3.1 document (see ../shared/STACK.md): `quick` skips its
// 3.0-only document check and Ajv2020 does the validation. Parameters are coerced from strings and
// get the document's defaults; bodies are validated as sent (after coerceBodyScalars).
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { type Document, OpenAPIBackend } from 'openapi-backend';

export function createBackend(document: Document): OpenAPIBackend {
  const api = new OpenAPIBackend({
    definition: structuredClone(document),
    quick: true,
    coerceTypes: true,
    validate: true,
    customizeAjv: (_original, ajvOpts) => {
      const ajv = new Ajv2020({ ...ajvOpts, strict: false, allErrors: true, useDefaults: true });
      addFormats.default(ajv);
      return ajv as never;
    },
  });
  api.init();
  // The router rebuilds its list of operations from the document on every match, twice per request
  // (our dispatch matches once to answer 405s, openapi-backend again); the document never changes
  // once loaded, so the list is built once.
  const operations = api.router.getOperations();
  api.router.getOperations = () => operations;
  return api;
}
