// What a URL carries is text: every boolean query parameter of the document must take `1` and `0`
// as the service does (`?ical=1` is the subscription URL calendar apps are given), so that a
// validating proxy or a contract tool reading the document accepts the requests docs/api.md shows.
import { Ajv2020 } from 'ajv/dist/2020.js';
import { describe, expect, it } from 'vitest';
import { loadDocument } from '../../src/openapi.js';

interface Parameter {
  name: string;
  in: string;
  schema?: Record<string, unknown>;
}

describe('boolean query parameters', () => {
  it('take true, false, 1 and 0 in the document, and nothing else', () => {
    const document = loadDocument() as {
      paths: Record<string, Record<string, { parameters?: ({ $ref: string } | Parameter)[] }>>;
      components: { parameters: Record<string, Parameter>; schemas: Record<string, unknown> };
    };
    const ajv = new Ajv2020({ strict: false });
    ajv.addSchema({ $id: 'doc', components: document.components });
    const resolve = (p: { $ref: string } | Parameter): Parameter =>
      '$ref' in p ? document.components.parameters[p.$ref.split('/').at(-1) ?? ''] : p;
    // The schemas refer to each other as #/components/...: read them inside the document.
    const inDocument = (schema: Record<string, unknown>) =>
      JSON.parse(JSON.stringify(schema).replaceAll('"#/components/', '"doc#/components/')) as Record<string, unknown>;
    const flags = new Set<string>();
    for (const item of Object.values(document.paths)) {
      for (const operation of Object.values(item)) {
        for (const parameter of (operation.parameters ?? []).map(resolve)) {
          if (parameter.in !== 'query' || !parameter.schema) continue;
          const validate = ajv.compile(inDocument(parameter.schema));
          // A flag takes a boolean and no other word (has_events takes any word, as WordPress does).
          if (!validate(true) || validate('maybe')) continue;
          flags.add(parameter.name);
          for (const value of [true, false, '1', '0']) expect(validate(value), `${parameter.name}=${value}`).toBe(true);
          for (const value of ['yes', '2', '']) expect(validate(value), `${parameter.name}=${value}`).toBe(false);
        }
      }
    }
    expect([...flags].sort()).toEqual(
      [
        'featured',
        'force',
        'geoloc',
        'hide_empty',
        'ical',
        'is_virtual',
        'single_events',
        'strict_dates',
        'ticketed',
      ].sort(),
    );
  });
});
