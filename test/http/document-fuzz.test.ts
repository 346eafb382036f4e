// Requests generated from the OpenAPI document itself, for every operation: path, query and body
// values drawn from each parameter's schema, some of them swapped for hostile values. Whatever the
// request, the answer is never a 5xx, every 4xx is in the error shape, and every 2xx conforms to the
// document (checked by the test client). Seeded and reproducible: FUZZ_SEED, FUZZ_RUNS.
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROLES } from '../../src/auth/roles.js';
import { loadDocument } from '../../src/openapi.js';
import { seedOneOfEach } from '../setup/seed.js';
import { startServer, type TestServer } from '../setup/server.js';
import { FUZZ_SEED, fuzzRuns } from '../setup/budget.js';

const SEED = FUZZ_SEED;
const RUNS = fuzzRuns(1000) * 2;

type Schema = Record<string, any>;
const document = loadDocument() as any;
const resolve = (node: Schema): Schema =>
  node?.$ref
    ? {
        ...resolve(
          node.$ref
            .slice(2)
            .split('/')
            .reduce((at: any, k: string) => at[k], document),
        ),
        ...node,
        $ref: undefined,
      }
    : node;

const hostile = fc.constantFrom(
  '',
  ' ',
  '\u0000',
  'a\u0000b',
  '\ud800',
  "'; DROP TABLE events; --",
  '<script>',
  '9'.repeat(40),
  '-1',
  '1e308',
  'NaN',
  '%',
  '_',
  '../..',
  'true',
  null,
  -1,
  0,
  2 ** 53,
  1.5,
  [],
  {},
  [null],
  { '': 1 },
);

/** Values a schema accepts (mostly), built from its keywords. */
function arbitrary(raw: Schema, depth = 0): fc.Arbitrary<unknown> {
  const schema = resolve(raw);
  if (schema.const !== undefined) return fc.constant(schema.const);
  if (schema.enum) return fc.constantFrom(...schema.enum);
  const variants = schema.anyOf ?? schema.oneOf;
  if (variants && depth < 4)
    return fc.oneof(
      ...variants.map((v: Schema) =>
        arbitrary({ ...schema, anyOf: undefined, oneOf: undefined, ...resolve(v) }, depth + 1),
      ),
    );
  if (schema.allOf) {
    const parts = schema.allOf.map(resolve);
    return arbitrary(
      {
        ...schema,
        allOf: undefined,
        type: 'object',
        properties: Object.assign({}, ...parts.map((p: Schema) => p.properties), schema.properties),
        required: [...parts.flatMap((p: Schema) => p.required ?? []), ...(schema.required ?? [])],
      },
      depth + 1,
    );
  }
  const types: string[] = [schema.type ?? ['string', 'integer', 'boolean']].flat();
  return fc.oneof(...types.map((type) => arbitraryOfType(schema, type, depth)));
}

/** Values of one of a schema's types. */
function arbitraryOfType(schema: Schema, type: string, depth: number): fc.Arbitrary<unknown> {
  switch (type) {
    case 'integer':
      return fc.integer({
        min: Math.max(schema.minimum ?? -5, -1000),
        max: Math.min(schema.maximum ?? 60, 100_000),
      });
    case 'number':
      return fc.double({ min: schema.minimum ?? -1000, max: schema.maximum ?? 1000, noNaN: true });
    case 'boolean':
      return fc.boolean();
    case 'array':
      return depth > 4 ? fc.constant([]) : fc.array(arbitrary(schema.items ?? {}, depth + 1), { maxLength: 3 });
    case 'object':
      return arbitraryObject(schema, depth);
    default:
      return arbitraryText(schema);
  }
}

function arbitraryObject(schema: Schema, depth: number): fc.Arbitrary<unknown> {
  if (depth > 4 || !schema.properties) return fc.constant({});
  const entries = Object.entries(schema.properties as Record<string, Schema>).map(([k, v]) => [
    k,
    arbitrary(v, depth + 1),
  ]);
  return fc.record(Object.fromEntries(entries), {
    requiredKeys: (schema.required ?? []).filter((k: string) => k in schema.properties),
  });
}

/** A URL where the schema asks for one, else text of its length or words the service reads. */
function arbitraryText(schema: Schema): fc.Arbitrary<unknown> {
  return schema.format === 'uri' || schema.pattern?.includes('[hH][tT]')
    ? fc.webUrl()
    : fc.oneof(
        fc.string({ minLength: schema.minLength ?? 0, maxLength: Math.min(schema.maxLength ?? 30, 30) }),
        fc.constantFrom('2031-05-01 10:00', 'tomorrow', 'Seed', 'seed', 'publish'),
      );
}

/** Mostly what the schema says, sometimes something hostile. */
const value = (schema: Schema) =>
  fc.oneof({ weight: 5, arbitrary: arbitrary(schema) }, { weight: 1, arbitrary: hostile });

const operations = Object.entries(document.paths as Record<string, Schema>).flatMap(([path, item]) =>
  ['get', 'post', 'put', 'patch', 'delete']
    .filter((m) => item[m])
    .map((method) => {
      const operation = item[method];
      const parameters = [...(item.parameters ?? []), ...(operation.parameters ?? [])]
        .map(resolve)
        .filter((p: Schema) => p.in !== 'header');
      const body = resolve(resolve(operation.requestBody ?? {})?.content?.['application/json']?.schema ?? {});
      return {
        method: method.toUpperCase(),
        path,
        parameters,
        body: operation.requestBody ? body : undefined,
        id: operation.operationId as string,
      };
    }),
);

const request = fc.oneof(
  ...operations.map((op) =>
    fc.record({
      op: fc.constant(op),
      path: fc.record(
        Object.fromEntries(
          op.parameters
            .filter((p: Schema) => p.in === 'path')
            .map((p: Schema) => [
              p.name,
              p.name === 'id'
                ? fc.oneof(fc.integer({ min: 1, max: 30 }), hostile)
                : fc.oneof(fc.constantFrom('seed', 'seed-2'), hostile),
            ]),
        ),
      ),
      query: fc.record(
        Object.fromEntries(
          op.parameters.filter((p: Schema) => p.in === 'query').map((p: Schema) => [p.name, value(p.schema)]),
        ),
        { requiredKeys: [] },
      ),
      body: op.body
        ? fc.oneof({ weight: 6, arbitrary: arbitrary(op.body) }, { weight: 1, arbitrary: hostile })
        : fc.constant(undefined),
      as: fc.constantFrom<(typeof ROLES)[number] | null>(
        'administrator',
        'administrator',
        'administrator',
        null,
        ...ROLES,
      ),
    }),
  ),
);

const asText = (v: unknown) => (typeof v === 'string' ? v : JSON.stringify(v));
/** encodeURIComponent, except that a lone surrogate goes out as the bytes a raw client would send. */
const encodePath = (text: string) => (text.isWellFormed() ? encodeURIComponent(text) : '%ED%A0%80');

describe('requests generated from the document', () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startServer('pglite');
    await seedOneOfEach(s);
  });
  afterAll(() => s?.close());

  it(`never answer 5xx, answer 4xx in the error shape, and conform (seed ${SEED}, ${RUNS} runs)`, async () => {
    const reached = new Set<string>();
    await fc.assert(
      fc.asyncProperty(request, async ({ op, path, query, body, as }) => {
        const url = op.path.replace(/\{(\w+)\}/g, (_: string, name: string) =>
          encodePath(asText((path as Record<string, unknown>)[name]) || 'x'),
        );
        const search = new URLSearchParams();
        for (const [k, v] of Object.entries(query)) for (const item of [v].flat()) search.append(k, asText(item));
        const target = `${url === '/' ? '' : url}${search.size ? `?${search.toString()}` : ''}`;
        const r = await s.request(op.method, target, { as, ...(body !== undefined ? { body } : {}) });
        expect(r.status, `${op.method} ${target} ${JSON.stringify(body)?.slice(0, 300)}`).toBeLessThan(500);
        if (r.status >= 400) {
          expect(r.body, `${op.method} ${target}`).toMatchObject({
            code: expect.any(String),
            message: expect.any(String),
            data: { status: r.status },
          });
        } else {
          reached.add(op.id);
        }
      }),
      { seed: SEED, numRuns: RUNS },
    );
    // The generator is useful only if it gets past validation for a good share of the operations.
    expect(reached.size).toBeGreaterThan(operations.length / 4);
  }, 300_000);
});
