// Discovery over HTTP: the namespace index checked route by route against the bundled document,
// the REST root, /doc as JSON and as a page, the `servers` URL under locales, prefixes and proxies,
// and the translated descriptions with their fallbacks.
import http from 'node:http';
import { DateTime } from 'luxon';
import PO from 'pofile';
import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadDocument } from '../../src/openapi.js';
import { startServer, type TestServer } from '../setup/server.js';

const bundle = loadDocument() as any;
const METHODS = ['get', 'post', 'put', 'patch', 'delete'];
const ref = (node: any): any =>
  node?.$ref
    ? {
        ...ref(
          node.$ref
            .slice(2)
            .split('/')
            .reduce((at: any, k: string) => at[k], bundle),
        ),
        ...node,
        $ref: undefined,
      }
    : node;
const french = new Map(
  PO.parse(fs.readFileSync('openapi/locales/fr.po', 'utf8')).items.map((i) => [i.msgid, i.msgstr[0]]),
);

/** What the document says a route's endpoint takes: path and query parameter names (not headers), then body fields. */
function documentedArgs(pathItem: any, operation: any): string[] {
  const params = [...(pathItem.parameters ?? []), ...(operation.parameters ?? [])]
    .map(ref)
    // WordPress's global parameters (`x-wp-global`) work on every route and are not its arguments.
    .filter((p: any) => p.in !== 'header' && !p['x-wp-global'])
    .map((p: any) => p.name);
  const body = ref(operation.requestBody)?.content?.['application/json']?.schema;
  const fields = (schema: any): string[] => {
    const s = ref(schema);
    return [...(s.allOf ?? []).flatMap(fields), ...Object.keys(s.properties ?? {})];
  };
  return [...new Set([...params, ...(body ? fields(body) : [])])];
}

/**
 * A path's route key as WordPress writes route patterns: each path parameter a named group that its
 * schema allows (digits for an integer, else one segment), read from the path item's parameters, where
 * a route's parameters belong (src/discovery/namespace-index.ts); a path of WordPress's own namespaces
 * (the batch route) is written from the REST root.
 */
function routeKey(path: string): string {
  const pathItem = bundle.paths[path];
  if (pathItem['x-wp-namespace']) return path;
  const pattern = path.replace(/\{([^{}]+)\}/g, (_, name: string) => {
    const parameter = (pathItem.parameters ?? []).map(ref).find((p: any) => p.in === 'path' && p.name === name);
    expect(parameter, `${path} declares {${name}} for every method`).toBeDefined();
    return `(?P<${name}>${ref(parameter.schema).type === 'integer' ? '\\d+' : '[^/]+'})`;
  });
  return `/calendar/events/v1${pattern === '/' ? '' : pattern}`;
}

describe('discovery', () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startServer('pglite', { SITE_TIMEZONE: 'America/New_York' });
  });
  afterAll(() => s?.close());

  it('describes every path of the document as a route, with its methods, endpoints and arguments', async () => {
    const r = await s.get('', { as: null });
    expect(r.status).toBe(200);
    expect(r.headers.get('content-language')).toBe('en');
    expect(Object.keys(r.body)).toEqual(['namespace', 'routes', '_links']);
    expect(r.body.namespace).toBe('calendar/events/v1');
    expect(r.body._links).toEqual({ up: [{ href: `${s.origin}/wp-json/` }] });

    const paths = Object.keys(bundle.paths);
    const expectedKeys = paths.map(routeKey);
    expect(expectedKeys).toContain('/calendar/events/v1/events/(?P<id>\\d+)/rsvps/(?P<rsvp_id>\\d+)');
    expect(expectedKeys).toContain('/calendar/events/v1/events/by-slug/(?P<slug>[^/]+)');
    expect(Object.keys(r.body.routes)).toEqual(expectedKeys);

    paths.forEach((path, i) => {
      const pathItem = bundle.paths[path];
      const route = r.body.routes[expectedKeys[i]];
      const operations = METHODS.filter((m) => pathItem[m]);
      expect(route.namespace).toBe(pathItem['x-wp-namespace'] ?? 'calendar/events/v1');
      expect(route.methods, path).toEqual(operations.map((m) => m.toUpperCase()));
      expect(
        route.endpoints.flatMap((e: any) => e.methods),
        path,
      ).toEqual(route.methods);
      for (const endpoint of route.endpoints) {
        for (const method of endpoint.methods) {
          const operation = pathItem[method.toLowerCase()];
          const args = Array.isArray(endpoint.args) ? [] : Object.keys(endpoint.args);
          expect(args, `${method} ${path}`).toEqual(documentedArgs(pathItem, operation));
        }
      }
      if (path.includes('{')) expect(route).not.toHaveProperty('_links');
      else expect(route._links).toEqual({ self: [{ href: `${s.origin}/wp-json${expectedKeys[i]}` }] });
    });

    // Keywords and descriptions come from the document.
    const list = r.body.routes['/calendar/events/v1/events'].endpoints[0].args;
    expect(list.per_page).toEqual({
      default: 12,
      type: 'integer',
      minimum: 1,
      maximum: 1000000,
      description: ref(bundle.components.parameters.PerPage).description,
      required: false,
    });
    expect(list.status.items.enum).toEqual(['publish', 'future', 'draft', 'pending', 'private', 'trash']);
    const create = r.body.routes['/calendar/events/v1/events'].endpoints[1];
    expect(create.methods).toEqual(['POST']);
    expect(create.args.title).toMatchObject({ type: 'string', required: true });
    expect(create.args.cost.required).toBe(false);
    const single = r.body.routes['/calendar/events/v1/events/(?P<id>\\d+)'];
    expect(single.endpoints.map((e: any) => e.methods)).toEqual([['GET'], ['POST', 'PUT', 'PATCH'], ['DELETE']]);
    expect(single.endpoints[2].args.force).toMatchObject({ default: false, type: 'boolean', required: false });
    // On by-slug updates of venues the slug listed is the path's; on those of events it is the
    // body's new slug, which is optional (as the specification and the modelled service have it).
    expect(r.body.routes['/calendar/events/v1/venues/by-slug/(?P<slug>[^/]+)'].endpoints[1].args.slug.required).toBe(
      true,
    );
    const bySlug = r.body.routes['/calendar/events/v1/events/by-slug/(?P<slug>[^/]+)'].endpoints;
    expect(bySlug.map((e: any) => [e.methods, e.args.slug.required])).toEqual([
      [['GET'], true],
      [['POST', 'PUT', 'PATCH'], false],
      [['DELETE'], true],
    ]);
    // The newer list filters of the modelled service are declared.
    const listArgs = r.body.routes['/calendar/events/v1/events'].endpoints[0].args;
    for (const name of ['starts_before', 'starts_after', 'ends_before', 'ends_after']) {
      expect(listArgs[name], name).toMatchObject({ type: ['string', 'integer'], required: false });
    }
    expect(listArgs.strict_dates).toMatchObject({ type: 'boolean', default: false, required: false });
    expect(listArgs.ticketed).toMatchObject({ type: 'boolean', required: false });
  });

  it('shows the event list date defaults as values of the request time, in the site zone', async () => {
    const before = DateTime.now().setZone('America/New_York').set({ millisecond: 0 });
    const args = (await s.get('')).body.routes['/calendar/events/v1/events'].endpoints[0].args;
    const start = DateTime.fromFormat(args.start_date.default, 'yyyy-MM-dd HH:mm:ss', { zone: 'America/New_York' });
    const end = DateTime.fromFormat(args.end_date.default, 'yyyy-MM-dd HH:mm:ss', { zone: 'America/New_York' });
    expect(Math.abs(start.diff(before, 'seconds').seconds)).toBeLessThan(5);
    expect(end.diff(start, 'years').years).toBe(2);
  });

  it('answers 404 rest_invalid_namespace for another namespace', async () => {
    expect((await s.get('?namespace=calendar/events/v1')).status).toBe(200);
    const r = await s.get('?namespace=wp/v2');
    expect(r.status).toBe(404);
    expect(r.body.code).toBe('rest_invalid_namespace');
    expect((await s.get('?context=nonsense')).status).toBe(400);
  });

  it('serves descriptions in the language of the locale segment, falling back to English', async () => {
    const english = (await s.get('')).body.routes['/calendar/events/v1/events'].endpoints[0].args.search.description;
    for (const [locale, language] of [
      ['/fr', 'fr'],
      ['/fr-CA', 'fr'],
      ['/fr_FR', 'fr'],
      ['/de', 'de'],
      ['/es', 'es'],
      ['/pt-br', 'en'],
      ['/it', 'en'],
    ]) {
      const r = await s.get('', { locale });
      expect(r.headers.get('content-language'), locale).toBe(language);
      const search = r.body.routes['/calendar/events/v1/events'].endpoints[0].args.search.description;
      if (language === 'en') expect(search, locale).toBe(english);
      else expect(search, locale).not.toBe(english);
      // Shapes are the same in every language.
      expect(Object.keys(r.body.routes)).toHaveLength(Object.keys(bundle.paths).length);
    }
    expect(
      (await s.get('', { locale: '/fr' })).body.routes['/calendar/events/v1/events'].endpoints[0].args.search
        .description,
    ).toBe(french.get(english));

    const doc = await s.get('/doc', { locale: '/fr' });
    expect(doc.headers.get('content-language')).toBe('fr');
    expect(doc.body.paths['/events'].get.summary).toBe('Lister les événements');
    expect(doc.body.paths['/events'].get.operationId).toBe('listEvents');
    expect(doc.body.components.schemas.Event.properties.url.description).toBe(
      french.get(bundle.components.schemas.Event.properties.url.description),
    );
    const english_doc = await s.get('/doc', { locale: '/pt-br' });
    expect(english_doc.body.paths['/events'].get.summary).toBe('List events');
  });

  it('points /doc servers at the base URL of the request: locale, prefix, and forwarded headers only when trusted', async () => {
    expect((await s.get('/doc')).body.servers).toEqual([{ url: `${s.origin}/wp-json/calendar/events/v1` }]);
    expect((await s.get('/doc', { locale: '/de' })).body.servers).toEqual([
      { url: `${s.origin}/de/wp-json/calendar/events/v1` },
    ]);
    const forwarded = { 'x-forwarded-proto': 'https', 'x-forwarded-host': 'calendar.example.org' };
    expect((await s.get('/doc', { headers: forwarded })).body.servers).toEqual([
      { url: `${s.origin}/wp-json/calendar/events/v1` },
    ]);

    const proxied = await startServer('pglite', { REST_PREFIX: '/api', TRUST_PROXY: '1' });
    try {
      const r = await fetch(`${proxied.origin}/es/api/calendar/events/v1/doc`, { headers: forwarded });
      expect(((await r.json()) as any).servers).toEqual([
        { url: 'https://calendar.example.org/es/api/calendar/events/v1' },
      ]);
    } finally {
      await proxied.close();
    }
  });

  it('gives browsers the rendered page, self-contained, in their language, with the request base URL', async () => {
    const r = await fetch(`${s.base.replace('/wp-json', '/fr/wp-json')}/doc`, {
      headers: { accept: 'text/html,application/xhtml+xml,*/*;q=0.8' },
    });
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toMatch(/^text\/html/);
    expect(r.headers.get('content-language')).toBe('fr');
    expect(r.headers.get('content-security-policy')).toContain("default-src 'none'");
    const page = await r.text();
    expect(page).toMatch(/^<!DOCTYPE html>\s*<html lang="fr">/);
    expect(page).toContain(`${s.origin}/fr/wp-json/calendar/events/v1`);
    expect(page).not.toContain('calendar-events.invalid');
    expect(page).not.toMatch(/<script[^>]+src=|<link[^>]+href=["']https?:/);
    // JSON stays the default for clients that do not ask for HTML.
    expect((await fetch(`${s.base}/doc`, { headers: { accept: '*/*' } })).headers.get('content-type')).toMatch(
      /^application\/json/,
    );
  });

  it('keeps a hostile Host header inert in the page', async () => {
    const page = await new Promise<string>((resolve, reject) => {
      const url = new URL(`${s.base}/doc`);
      const req = http.request(
        {
          host: url.hostname,
          port: url.port,
          path: url.pathname,
          headers: { host: 'evil"</script><script>alert(1)</script>', accept: 'text/html' },
        },
        (res) => {
          let text = '';
          res.setEncoding('utf8');
          res.on('data', (chunk) => (text += String(chunk)));
          res.on('end', () => {
            resolve(`${res.statusCode} ${text}`);
          });
        },
      );
      req.on('error', reject);
      req.end();
    });
    if (page.startsWith('200')) {
      expect(page).not.toContain('<script>alert(1)');
      expect(page).not.toContain('evil"');
    } else {
      expect(page).toMatch(/^400/); // Node refused the header itself
    }
  });

  it('lists the namespace at the REST root, in every locale', async () => {
    for (const locale of ['', '/de']) {
      const r = await fetch(`${s.origin}${locale}/wp-json/`);
      expect(r.status).toBe(200);
      const body = (await r.json()) as any;
      expect(body.namespaces).toEqual(['calendar/events/v1', 'batch/v1']);
      expect(body).toMatchObject({ url: s.origin, home: s.origin, timezone_string: 'America/New_York' });
      expect([-5, -4]).toContain(body.gmt_offset);
      expect(Object.keys(body.routes)).toHaveLength(Object.keys(bundle.paths).length);
      expect(r.headers.get('content-language')).toBe(locale ? 'de' : 'en');
    }
    expect((await fetch(`${s.origin}/wp-json`)).status).toBe(200);
    const post = await fetch(`${s.origin}/wp-json/`, { method: 'POST' });
    expect(post.status).toBe(405);
    expect(post.headers.get('allow')).toBe('OPTIONS, GET, HEAD');
  });
});
