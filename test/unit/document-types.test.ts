// Generators read types where the document names them: an anyOf or oneOf branch without a `type`
// of its own (Url's and Email's were) became `unknown` in openapi-typescript and @hey-api, `any` in
// swagger-typescript-api and `type Url = ;` in openapi-typescript-codegen; an array without `items`
// (Spectral's array-items) an array of anything. Neither may come back anywhere in the document.
import { describe, expect, it } from 'vitest';
import { loadDocument } from '../../src/openapi.js';

type Node = Record<string, unknown>;

/** Every schema object of the document with where it is (a JSON pointer). */
function* schemasOf(node: unknown, at = '#'): Generator<[string, Node]> {
  if (Array.isArray(node)) {
    for (const [i, item] of node.entries()) yield* schemasOf(item, `${at}/${i}`);
    return;
  }
  if (!node || typeof node !== 'object') return;
  const object = node as Node;
  if ('type' in object || 'anyOf' in object || 'oneOf' in object) yield [at, object];
  for (const [key, value] of Object.entries(object)) {
    // Examples are values, not schemas.
    if (key !== 'examples' && key !== 'example') yield* schemasOf(value, `${at}/${key}`);
  }
}

describe('the types the document gives generators', () => {
  const document = loadDocument();

  it('gives every anyOf and oneOf branch a type, a reference or its values', () => {
    const untyped: string[] = [];
    for (const [at, schema] of schemasOf(document)) {
      for (const key of ['anyOf', 'oneOf'] as const) {
        for (const [i, branch] of ((schema[key] as Node[] | undefined) ?? []).entries()) {
          if (!('type' in branch || '$ref' in branch || 'enum' in branch || 'const' in branch)) {
            untyped.push(`${at}/${key}/${i}`);
          }
        }
      }
    }
    expect(untyped).toEqual([]);
  });

  it('gives every array its items', () => {
    const bare = [...schemasOf(document)]
      .filter(([, schema]) => [schema.type].flat().includes('array') && !('items' in schema))
      .map(([at]) => at);
    expect(bare).toEqual([]);
  });
});
