import type { OpenAPIV3_1 } from 'openapi-types';
import { describe, expect, it } from 'vitest';
import { coerceBodyScalars, normalizeQuery } from '../../src/http/query.js';

const params: OpenAPIV3_1.ParameterObject[] = [
  { name: 'include', in: 'query', schema: { type: 'array', items: { type: 'integer' } } },
  { name: 'hide_empty', in: 'query', schema: { type: 'boolean' } },
  { name: 'search', in: 'query', schema: { type: 'string' } },
];

describe('normalizeQuery', () => {
  it.each([
    ['include=3,5', { include: ['3', '5'] }],
    ['include=3&include=5', { include: ['3', '5'] }],
    ['include[]=3&include[]=5', { include: ['3', '5'] }],
    ['include=3,,5,', { include: ['3', '5'] }],
    ['include=', { include: [] }],
    ['hide_empty=1', { hide_empty: 'true' }],
    ['hide_empty=0', { hide_empty: 'false' }],
    ['hide_empty=FALSE', { hide_empty: 'false' }],
    ['hide_empty=maybe', { hide_empty: 'maybe' }],
    ['search=a,b', { search: 'a,b' }],
    ['search=one&search=two', { search: 'two' }],
    ['search=caf%C3%A9+bar', { search: 'café bar' }],
    ['other=x&_=1700000000', {}],
  ])('%s', (query, expected) => {
    expect(normalizeQuery(query, params)).toEqual(expected);
  });
});

describe('coerceBodyScalars', () => {
  const schema: OpenAPIV3_1.SchemaObject = {
    allOf: [{ type: 'object', properties: { parent: { type: 'integer' } } }],
    properties: { featured: { type: 'boolean' }, name: { type: 'string' }, lat: { type: 'number' } },
  };

  it.each([
    [{ parent: '5' }, { parent: 5 }],
    [{ parent: 'five' }, { parent: 'five' }],
    [{ featured: '1' }, { featured: true }],
    [{ featured: 'false' }, { featured: false }],
    [{ featured: 'nope' }, { featured: 'nope' }],
    [{ name: '12' }, { name: '12' }],
    [{ lat: '-45.5' }, { lat: -45.5 }],
    [{ parent: 7 }, { parent: 7 }],
  ])('%j -> %j', (body, expected) => {
    const copy = { ...body } as Record<string, unknown>;
    coerceBodyScalars(copy, schema);
    expect(copy).toEqual(expected);
  });
});
