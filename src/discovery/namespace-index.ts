// The namespace index (docs/decisions.md, "Discovery (namespace index)"), derived from the OpenAPI document rather than kept by
// hand: every path becomes a route keyed by its full pattern, every operation an endpoint with its
// arguments (path, query and body fields) and their JSON-schema keywords. Defaults that depend on
// the moment of the request are filled in as values.
import type { Document } from 'openapi-backend';
import type { OpenAPIV3_1 } from 'openapi-types';
import type { Urls } from '../http/urls.js';
import { NAMESPACE } from '../http/urls.js';
import { formatDateTime } from '../lib/dates.js';
import { defaultWindow } from '../services/event-list.js';

type Schema = OpenAPIV3_1.SchemaObject & { $ref?: string };
type Parameter = OpenAPIV3_1.ParameterObject;

export interface Arg {
  default?: unknown;
  description?: string;
  type?: string | string[];
  format?: string;
  enum?: unknown[];
  items?: Omit<Arg, 'required'>;
  minimum?: number;
  maximum?: number;
  required: boolean;
}

export interface Endpoint {
  methods: string[];
  args: Record<string, Arg> | [];
}

export interface Route {
  namespace: string;
  methods: string[];
  endpoints: Endpoint[];
  _links?: { self: { href: string }[] };
}

const METHODS = ['get', 'post', 'put', 'patch', 'delete'] as const;
const KEYWORDS = ['default', 'description', 'type', 'format', 'enum', 'minimum', 'maximum'] as const;

/** Resolves a local `$ref` (`#/components/...`), keeping the sibling keywords of the reference. */
function resolve<T extends object>(document: Document, node: T & { $ref?: string }): T {
  if (!node.$ref) return node;
  const target = node.$ref
    .slice(2)
    .split('/')
    .reduce<unknown>(
      (at, key) => (at as Record<string, unknown>)[key.replace(/~1/g, '/').replace(/~0/g, '~')],
      document,
    ) as T & { $ref?: string };
  const { $ref: _ignored, ...siblings } = node;
  return { ...resolve(document, target), ...siblings };
}

/** The JSON-schema keywords of an argument, as the modelled service lists them. */
function describeSchema(document: Document, raw: Schema, description?: string): Omit<Arg, 'required'> {
  const schema = resolve(document, raw);
  const arg: Record<string, unknown> = {};
  for (const keyword of KEYWORDS) if (schema[keyword] !== undefined) arg[keyword] = schema[keyword];
  // A query flag (a boolean, or `1` or `0`: schemas/QueryFlag.yaml) is a boolean argument, as
  // WordPress lists one, which takes those words too.
  const branches = (schema.anyOf ?? []).map((branch) => resolve(document, branch as Schema));
  if (arg.type === undefined && branches.some((branch) => branch.type === 'boolean')) arg.type = 'boolean';
  if (description) arg.description = description;
  // OpenAPI 3.1 schemas (JSON Schema) may have an array type without `items`, whatever openapi-types says.
  const items = (schema as { items?: Schema }).items;
  if (schema.type === 'array' && items) arg.items = describeSchema(document, items);
  return arg;
}

/** The properties and required names of a body schema, through `allOf`. */
function bodyFields(document: Document, raw: Schema): { properties: Record<string, Schema>; required: string[] } {
  const schema = resolve(document, raw);
  const parts = (schema.allOf ?? []).map((part) => bodyFields(document, part as Schema));
  return {
    properties: Object.assign({}, ...parts.map((p) => p.properties), schema.properties ?? {}) as Record<string, Schema>,
    required: [...parts.flatMap((p) => p.required), ...(schema.required ?? [])],
  };
}

/** An operation's arguments as WordPress lists them: its path and query parameters, then its body's fields. */
function operationArgs(
  document: Document,
  pathItem: OpenAPIV3_1.PathItemObject,
  operation: OpenAPIV3_1.OperationObject,
) {
  const args = parameterArgs(document, pathItem, operation);
  // Partial: the document is parsed YAML, nothing guarantees its request bodies a `content`.
  const body =
    operation.requestBody && resolve(document, operation.requestBody as Partial<OpenAPIV3_1.RequestBodyObject>);
  const schema = body?.content?.['application/json']?.schema;
  if (schema) addBodyArgs(document, args, schema, operation);
  return args;
}

/** The path and query parameters of an operation (and of its path) as arguments. */
function parameterArgs(
  document: Document,
  pathItem: OpenAPIV3_1.PathItemObject,
  operation: OpenAPIV3_1.OperationObject,
): Record<string, Arg> {
  const args: Record<string, Arg> = {};
  const parameters = [...(pathItem.parameters ?? []), ...(operation.parameters ?? [])].map((p) =>
    resolve(document, p as Parameter),
  );
  for (const parameter of parameters) {
    if (parameter.in !== 'path' && parameter.in !== 'query') continue;
    // WordPress's global parameters (`_fields`, `_envelope`, `context`) work on every route and, as
    // there, are not listed as the route's arguments.
    if ((parameter as { 'x-wp-global'?: boolean })['x-wp-global']) continue;
    args[parameter.name] = {
      ...describeSchema(document, parameter.schema as Schema, parameter.description),
      required: parameter.required ?? false,
    };
  }
  return args;
}

/** Adds the fields of an operation's JSON body to its arguments. */
function addBodyArgs(
  document: Document,
  args: Record<string, Arg>,
  schema: Schema,
  operation: OpenAPIV3_1.OperationObject,
): void {
  const { properties, required } = bodyFields(document, schema);
  const bodyArgs = (operation as { 'x-index-body-args'?: string[] })['x-index-body-args'] ?? [];
  for (const [name, property] of Object.entries(properties)) {
    // A path parameter of the same name (by-slug updates) is the one listed, unless the operation
    // names the body's field instead (`x-index-body-args`: by-slug event updates, whose new slug
    // is optional).
    if (Object.hasOwn(args, name) && !bodyArgs.includes(name)) continue;
    const raw = property;
    args[name] = { ...describeSchema(document, raw, raw.description), required: required.includes(name) };
  }
}

/** The namespace of a path: ours, unless the path item names WordPress's own (`x-wp-namespace`: the batch route). */
export const namespaceOf = (pathItem: OpenAPIV3_1.PathItemObject): string | undefined =>
  (pathItem as { 'x-wp-namespace'?: string })['x-wp-namespace'];

/** `/events/{id}` → `/calendar/events/v1/events/(?P<id>\d+)`, as WordPress writes route patterns. */
function routePattern(document: Document, path: string, pathItem: OpenAPIV3_1.PathItemObject): string {
  // A route of another namespace is written from the REST root already (`/batch/v1`).
  if (namespaceOf(pathItem)) return path;
  const pattern = path.replace(/\{([^{}]+)\}/g, (_, name: string) => {
    const parameter = (pathItem.parameters ?? [])
      .map((p) => resolve(document, p as Parameter))
      .find((p) => p.name === name);
    const schema = parameter?.schema && resolve(document, parameter.schema as Schema);
    return `(?P<${name}>${schema?.type === 'integer' ? '\\d+' : '[^/]+'})`;
  });
  return `/${NAMESPACE}${pattern === '/' ? '' : pattern}`;
}

/** The routes of one document (one language), without request-time values; computed once each. */
const cache = new WeakMap<Document, [string, Route, OpenAPIV3_1.PathItemObject][]>();

function staticRoutes(document: Document) {
  let routes = cache.get(document);
  if (routes) return routes;
  routes = Object.entries(document.paths ?? {}).map(([path, item]) => {
    const pathItem = item as OpenAPIV3_1.PathItemObject;
    const endpoints: Endpoint[] = [];
    let previous = '';
    for (const method of METHODS) {
      const operation = pathItem[method];
      if (!operation) continue;
      const args = operationArgs(document, pathItem, operation);
      const key = JSON.stringify(args);
      // Operations that take the same arguments share an endpoint (`POST, PUT, PATCH`).
      if (key === previous) endpoints[endpoints.length - 1].methods.push(method.toUpperCase());
      else endpoints.push({ methods: [method.toUpperCase()], args: Object.keys(args).length ? args : [] });
      previous = key;
    }
    const route: Route = {
      namespace: namespaceOf(pathItem) ?? NAMESPACE,
      methods: endpoints.flatMap((e) => e.methods),
      endpoints,
    };
    return [routePattern(document, path, pathItem), route, pathItem] as [string, Route, OpenAPIV3_1.PathItemObject];
  });
  cache.set(document, routes);
  return routes;
}

/**
 * The route of one path of the document (`/events/{id}`), as the index shows it: what OPTIONS on
 * that route answers, as WordPress does.
 */
export function routeOfPath(
  document: Document,
  path: string,
  urls: Urls,
  siteZone: string,
  now: Date,
): Route | undefined {
  const pathItem = document.paths?.[path];
  const index = staticRoutes(document).findIndex(([, , item]) => item === pathItem);
  if (index < 0) return undefined;
  return Object.values(namespaceRoutes(document, urls, siteZone, now))[index];
}

/**
 * Every route of the namespace, with request-time defaults and links for this request. `now` is the
 * request's time as services read it (ServiceContext.now), which marks a kept answer as one of its
 * second (http/answer-cache.ts): the list window's defaults change with it.
 */
export function namespaceRoutes(document: Document, urls: Urls, siteZone: string, now: Date): Record<string, Route> {
  const window = defaultWindow(now);
  const requestDefaults: Record<string, string> = {
    start_date: formatDateTime(window.start, siteZone),
    end_date: formatDateTime(window.end, siteZone),
  };
  const routes: Record<string, Route> = {};
  for (const [pattern, route, pathItem] of staticRoutes(document)) {
    const endpoints = route.endpoints.map((endpoint, i) => {
      const listsEvents = pathItem.get?.operationId === 'listEvents' && i === 0;
      if (!listsEvents || Array.isArray(endpoint.args)) return endpoint;
      const args = Object.fromEntries(
        Object.entries(endpoint.args).map(([name, arg]) => [
          name,
          name in requestDefaults ? { default: requestDefaults[name], ...arg } : arg,
        ]),
      );
      return { ...endpoint, args };
    });
    routes[pattern] = {
      ...route,
      endpoints,
      ...(pattern.includes('(?P<') ? {} : { _links: { self: [{ href: `${urls.root}${pattern}` }] } }),
    };
  }
  return routes;
}
