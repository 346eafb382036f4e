// Turns the raw query string into the values the document declares, before validation: array
// parameters accept a comma-separated list, repeated keys and `key[]`; booleans accept 1/0 as well
// as true/false; parameters the operation does not declare are dropped, as the modelled service ignores
// them. The document stays the only validator: this only decodes what a URL can carry.
import type { OpenAPIV3_1 } from 'openapi-types';

type Parameter = OpenAPIV3_1.ParameterObject;
export type RawQuery = Record<string, string | string[]>;

// A Map: `constructor` or `__proto__` in a query or form is a word like any other, not a boolean.
const BOOLEAN_WORDS = new Map([
  ['1', 'true'],
  ['0', 'false'],
  ['true', 'true'],
  ['false', 'false'],
]);

export function normalizeQuery(search: string, parameters: Parameter[] = []): RawQuery {
  const values = new Map<string, string[]>();
  for (const [rawKey, value] of new URLSearchParams(search)) {
    const key = rawKey.replace(/\[\d*\]$/, '');
    values.set(key, [...(values.get(key) ?? []), value]);
  }
  const query: RawQuery = {};
  for (const [key, list] of values) {
    const declared = parameters.find((p) => p.in === 'query' && p.name === key);
    if (!declared) continue; // undeclared parameters (cache busters, other APIs' options) are ignored
    const schema = declared.schema as OpenAPIV3_1.SchemaObject | undefined;
    if (schema?.type === 'array') {
      query[key] = list
        .flatMap((v) => v.split(','))
        .map((v) => v.trim())
        .filter((v) => v !== '');
    } else {
      const last = list[list.length - 1];
      query[key] = isFlag(schema) ? (BOOLEAN_WORDS.get(last.toLowerCase()) ?? last) : last;
    }
  }
  return query;
}

/** A boolean, or the document's query flag (a boolean, or `1` or `0`: openapi/components/schemas/QueryFlag.yaml). */
const isFlag = (schema: OpenAPIV3_1.SchemaObject | undefined) =>
  schema?.type === 'boolean' ||
  (schema?.anyOf ?? []).some((branch) => (branch as OpenAPIV3_1.SchemaObject).type === 'boolean');

/**
 * The flags of a validated query as booleans: validation leaves a flag's `true` a string, as Ajv
 * coerces no value inside an anyOf (domain/query-flags.ts: the code reads booleans).
 */
export function decodeFlags<Q extends Record<string, unknown>>(query: Q, parameters: Parameter[] = []): Q {
  const decoded: Record<string, unknown> = { ...query };
  for (const parameter of parameters) {
    const value = decoded[parameter.name];
    if (parameter.in === 'query' && isFlag(parameter.schema as OpenAPIV3_1.SchemaObject) && value !== undefined) {
      decoded[parameter.name] = value === true || value === 'true' || value === '1';
    }
  }
  return decoded as Q;
}

/**
 * A form body carries only strings; a JSON body may carry "5" or "true" where a number or boolean is
 * declared (as the modelled service accepts). Converts such top-level values to the declared type;
 * anything that does not convert is left for validation to reject.
 */
export function coerceBodyScalars(body: Record<string, unknown>, schema: OpenAPIV3_1.SchemaObject | undefined): void {
  const properties = collectProperties(schema);
  for (const [key, value] of Object.entries(body)) {
    const property = Object.hasOwn(properties, key) ? properties[key] : undefined;
    if (typeof value !== 'string' || !property) continue;
    const types = scalarTypes(property);
    const type = formScalarType(types);
    const word = BOOLEAN_WORDS.get(value.toLowerCase());
    if (type === 'boolean' && word !== undefined) {
      body[key] = word === 'true';
    } else if (
      (type === 'integer' && /^-?\d{1,15}$/.test(value)) ||
      (type === 'number' && /^-?\d+(\.\d+)?$/.test(value))
    ) {
      body[key] = Number(value);
    }
  }
}

/**
 * The one scalar type a form value is converted to, if any: a field that takes a number or an
 * object (an event's `venue`) is still a number in a form.
 */
function formScalarType(types: Set<string>): string | undefined {
  if (types.size === 1) return [...types][0];
  return types.has('integer') && !types.has('string') ? 'integer' : undefined;
}

/** The scalar types a schema accepts, through anyOf, oneOf and allOf. */
function scalarTypes(schema: OpenAPIV3_1.SchemaObject, depth = 0): Set<string> {
  const own = [schema.type ?? []].flat().filter((t) => t !== 'object' && t !== 'array');
  const nested = depth > 5 ? [] : [...(schema.anyOf ?? []), ...(schema.oneOf ?? []), ...(schema.allOf ?? [])];
  return new Set([...own, ...nested.flatMap((s) => [...scalarTypes(s as OpenAPIV3_1.SchemaObject, depth + 1)])]);
}

function collectProperties(
  schema: OpenAPIV3_1.SchemaObject | undefined,
): Partial<Record<string, OpenAPIV3_1.SchemaObject>> {
  if (!schema) return {};
  const own = (schema.properties ?? {}) as Record<string, OpenAPIV3_1.SchemaObject>;
  const inherited = (schema.allOf ?? []).map((s) => collectProperties(s as OpenAPIV3_1.SchemaObject));
  return Object.assign({}, ...inherited, own) as Partial<Record<string, OpenAPIV3_1.SchemaObject>>;
}

/**
 * Top-level fields of a body holding text that is not well-formed Unicode (a lone surrogate from
 * a `\ud800` escape): valid JSON, but no database or client can store or show it.
 */
export function illFormedFields(body: unknown): string[] {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) return holdsIllFormedText(body) ? ['body'] : [];
  return Object.entries(body)
    .filter(([k, v]) => !k.isWellFormed() || holdsIllFormedText(v))
    .map(([k]) => (k.isWellFormed() ? k : 'body'));
}

/** Whether a value holds text that is not well-formed Unicode: a string, or in an item, a key or a field. */
function holdsIllFormedText(value: unknown): boolean {
  if (typeof value === 'string') return !value.isWellFormed();
  if (Array.isArray(value)) return value.some(holdsIllFormedText);
  return (
    value !== null &&
    typeof value === 'object' &&
    Object.entries(value).some(([k, v]) => !k.isWellFormed() || holdsIllFormedText(v))
  );
}
