// WordPress's global parameters reshape an answer: `_fields` keeps some of its fields, `_envelope`
// wraps any answer, errors too, in `{body, status, headers}` with status 200. The hand-written
// document (openapi/) describes each operation's plain answer; this adds, to the bundle every tool
// reads, what the reshaped ones look like, for every operation that takes these parameters:
// - with `_fields`, each 2xx JSON answer `X` may be `XPart`: the same schema with no field required,
//   at any depth (derived here, so that it cannot drift from `X`);
// - with `_envelope`, the 200 answer may be `Enveloped`; an operation without a 200 gets it as its
//   `default` answer (a create answers 201 plainly, 200 enveloped).
// A validating proxy then takes every answer (one schema per status is all it reads), and a plain
// answer still has its fields' types checked. The reshaped forms are `anyOf` branches after the plain
// one, marked `x-reshaped`, so that a check that knows the request sent neither parameter can hold
// the answer to the first branch alone (test/setup/contract.ts).
import { resolveRef } from './resolve-ref.mjs';

const REF = '#/components/schemas/';

export function describeReshapedAnswers(document) {
  for (const item of Object.values(document.paths)) {
    for (const operation of ['get', 'put', 'post', 'delete', 'patch'].map((m) => item[m]).filter(Boolean)) {
      reshapeOperation(document, item, operation);
    }
  }
  return document;
}

/** Adds the reshaped answers of one operation of a path item, by which of the two parameters it takes. */
function reshapeOperation(document, item, operation) {
  const names = [...(item.parameters ?? []), ...(operation.parameters ?? [])].map((p) => resolveRef(document, p).name);
  const fields = names.includes('_fields');
  const envelope = names.includes('_envelope');
  if (!fields && !envelope) return;
  for (const [status, answer] of Object.entries(operation.responses)) {
    if (!/^2\d\d$/.test(status)) continue;
    reshapeAnswer(document, resolveRef(document, answer), { fields, enveloped: envelope && status === '200' });
  }
  if (envelope && !operation.responses['200']) {
    operation.responses.default = {
      description: 'With `_envelope`: every answer of this operation, its errors too, with status 200 in an envelope.',
      content: { 'application/json': { schema: { $ref: `${REF}Enveloped` } } },
    };
  }
}

/**
 * Adds to a 2xx answer its reshaped forms: with `fields`, its part; with `enveloped` (a 200 of an
 * operation that takes `_envelope`), the envelope.
 */
function reshapeAnswer(document, answer, { fields, enveloped }) {
  const schemas = document.components.schemas;
  const content = answer.content ?? {};
  const json = content['application/json'];
  if (!json) {
    // A calendar (`….ics`) is never enveloped, but its errors are: as JSON, with status 200.
    if (enveloped) {
      content['application/json'] = {
        schema: { $ref: `${REF}Enveloped` },
        examples: { enveloped: { summary: 'An error, enveloped', value: schemas.Enveloped.examples[0] } },
      };
    }
    return;
  }
  const branches = [json.schema];
  if (fields) branches.push(partOf(schemas, json.schema));
  if (enveloped) branches.push({ $ref: `${REF}Enveloped` });
  if (branches.length > 1) json.schema = { anyOf: branches, 'x-reshaped': true };
}

/** `X` with no field required at any depth, as `XPart` in the components (made once). */
function partOf(schemas, schema) {
  if (schema.$ref?.startsWith(REF)) {
    const name = schema.$ref.slice(REF.length);
    if (!requiresFields(schemas, name)) return schema;
    const part = `${name}Part`;
    if (!schemas[part]) {
      schemas[part] = {}; // a recursive schema refers to itself while it is being made
      const { title, ...rest } = schemas[name];
      Object.assign(schemas[part], {
        title: `${title ?? name}Part`,
        ...optional(schemas, rest),
        description: 'With `_fields`: the fields asked for of this object, none of them required.',
      });
    }
    return { $ref: `${REF}${part}` };
  }
  return optional(schemas, schema);
}

/** Whether a schema requires a field anywhere in it (else it is its own part). */
function requiresFields(schemas, name, seen = new Set()) {
  if (seen.has(name)) return false;
  seen.add(name);
  const walk = (node) => {
    if (Array.isArray(node)) return node.some(walk);
    if (!node || typeof node !== 'object') return false;
    if (Array.isArray(node.required) && node.required.length) return true;
    if (typeof node.$ref === 'string' && node.$ref.startsWith(REF))
      return requiresFields(schemas, node.$ref.slice(REF.length), seen);
    return Object.entries(node).some(([key, value]) => key !== 'examples' && key !== 'example' && walk(value));
  };
  return walk(schemas[name]);
}

/**
 * The schema with no field required. Only what can hold fields is followed (`not`, which would turn
 * around, and `if`/`then`/`else` are not used by the document: test/contract.test.ts checks that no
 * Part keeps a `required`).
 */
function optional(schemas, schema) {
  if (Array.isArray(schema)) return schema.map((item) => partOf(schemas, item));
  if (!schema || typeof schema !== 'object') return schema;
  const out = {};
  for (const [key, value] of Object.entries(schema)) {
    if (key === 'required') continue;
    if (key === 'properties' || key === 'patternProperties' || key === '$defs') {
      out[key] = Object.fromEntries(Object.entries(value).map(([name, sub]) => [name, partOf(schemas, sub)]));
    } else if (['items', 'additionalProperties', 'anyOf', 'oneOf', 'allOf', 'prefixItems'].includes(key)) {
      out[key] = partOf(schemas, value);
    } else {
      out[key] = value;
    }
  }
  return out;
}
