// Handlers are typed with the query parameters that have a default in the document as always
// present (http/handler.ts DEFAULTED): that list must be the document's.
import { describe, expect, it } from 'vitest';
import { DEFAULTED } from '../../src/http/handler.js';
import { loadDocument } from '../../src/openapi.js';

describe('query parameters with a default', () => {
  it('are exactly those the handler types treat as always present', () => {
    const document = loadDocument() as {
      paths: Record<string, Record<string, { parameters?: ({ $ref: string } | Parameter)[] }>>;
      components: { parameters: Record<string, Parameter> };
    };
    const resolve = (p: { $ref: string } | Parameter): Parameter =>
      '$ref' in p ? document.components.parameters[p.$ref.split('/').at(-1) ?? ''] : p;
    const withDefault = new Set<string>();
    for (const item of Object.values(document.paths)) {
      for (const operation of Object.values(item)) {
        for (const parameter of (operation.parameters ?? []).map(resolve)) {
          if (parameter.in === 'query' && parameter.schema?.default !== undefined) withDefault.add(parameter.name);
        }
      }
    }
    expect([...withDefault].sort()).toEqual([...DEFAULTED].sort());
  });
});

interface Parameter {
  name: string;
  in: string;
  schema?: { default?: unknown };
}
