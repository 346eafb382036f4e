// The conventions of WordPress's REST API that clients of the modelled service lean on: the API
// root on every response, method override, ?rest_route=, _envelope, _fields, context, OPTIONS.
import { expect, it } from 'vitest';
import { describeEachDatabase } from '../setup/each-database.js';

describeEachDatabase('WordPress REST conventions', (s) => {
  const apiRoot = () => `<${s.origin}/wp-json/>; rel="https://api.w.org/"`;

  it('names the API root in a Link header on every response: reads, lists with pages, errors', async () => {
    await s.post('/tags', { name: 'Linked one' });
    await s.post('/tags', { name: 'Linked two' });
    const single = await s.get('/doc');
    expect(single.headers.get('link')).toBe(apiRoot());
    const paged = await s.get('/tags?per_page=1&hide_empty=false');
    expect(paged.headers.get('link')).toContain(apiRoot());
    expect(paged.headers.get('link')).toContain('rel="next"');
    const missing = await s.get('/events/999999');
    expect(missing.status).toBe(404);
    expect(missing.headers.get('link')).toBe(apiRoot());
    const localized = await s.get('/doc', { locale: '/fr' });
    expect(localized.headers.get('link')).toBe(`<${s.origin}/fr/wp-json/>; rel="https://api.w.org/"`);
    const root = await fetch(`${s.origin}/wp-json`);
    expect(root.headers.get('link')).toBe(apiRoot());
  });

  it('answers malformed JSON with the JSON error code and message, as WordPress does', async () => {
    const broken = await s.request('POST', '/tags', { raw: { contentType: 'application/json', data: '{"name": ' } });
    expect(broken.status).toBe(400);
    expect(broken.body.code).toBe('rest_invalid_json');
    expect(broken.body.data).toMatchObject({ status: 400, json_error_code: 4 });
    expect(typeof broken.body.data.json_error_message).toBe('string');
    const deep = await s.request('POST', '/tags', {
      raw: { contentType: 'application/json', data: `${'['.repeat(100)}${']'.repeat(100)}` },
    });
    expect(deep.body.data).toMatchObject({ status: 400, json_error_code: 1 });
  });

  it('takes another method from _method or X-HTTP-Method-Override on a POST: a delete deletes', async () => {
    const tag = (await s.post('/tags', { name: `Override ${Math.random()}` })).body;
    const deleted = await s.request('POST', `/tags/${tag.id}?_method=DELETE`);
    expect(deleted.status).toBe(200);
    expect((await s.get(`/tags/${tag.id}`)).status).toBe(404);

    const venue = (await s.post('/venues', { venue: `Override hall ${Math.random()}` })).body;
    const patched = await s.request('POST', `/venues/${venue.id}`, {
      body: { city: 'Lyon' },
      headers: { 'x-http-method-override': 'PATCH' },
    });
    expect(patched.status).toBe(200);
    expect(patched.body.city).toBe('Lyon');
    const trashed = await s.request('POST', `/venues/${venue.id}`, { headers: { 'x-http-method-override': 'delete' } });
    expect(trashed.status).toBe(200);
    expect(trashed.body.status).toBe('trash');
    // Only a POST is overridden, and only to a method a route can have.
    expect((await s.request('GET', `/venues/${venue.id}?_method=DELETE`)).body.status).toBe('trash');
    // A method no route has finds no route, as in WordPress, rather than passing as the POST.
    expect((await s.request('POST', `/venues?_method=TRACE`, { body: { venue: 'Traced' } })).status).toBe(404);
  });

  it('routes ?rest_route= on the site root as the path under the REST prefix', async () => {
    await s.post('/categories', { name: `Plain URLs ${Math.random()}` });
    const viaQuery = await fetch(`${s.origin}/?rest_route=/calendar/events/v1/categories&hide_empty=false&per_page=2`);
    const viaPath = await s.get('/categories?hide_empty=false&per_page=2', { as: null });
    expect(viaQuery.status).toBe(200);
    const body = (await viaQuery.json()) as { categories: unknown[] };
    expect(body.categories).toEqual(viaPath.body.categories);
    const index = await fetch(`${s.origin}/index.php?rest_route=%2Fcalendar%2Fevents%2Fv1`);
    expect(((await index.json()) as { namespace: string }).namespace).toBe('calendar/events/v1');
    const missing = await fetch(`${s.origin}/?rest_route=/calendar/events/v1/nowhere`);
    expect(missing.status).toBe(404);
    expect(((await missing.json()) as { code: string }).code).toBe('rest_no_route');
  });

  it('answers only the fields _fields names, nested ones too, on single objects and on each item of a list', async () => {
    const venue = (await s.post('/venues', { venue: `Fields hall ${Math.random()}`, city: 'Lyon' })).body;
    const event = (
      await s.post('/events', {
        title: 'Fielded',
        start_date: '2032-04-01 10:00',
        end_date: '2032-04-01 12:00',
        venue: venue.id,
      })
    ).body;
    const single = await s.get(`/events/${event.id}?_fields=id,title,start_date,venue.venue,venue.city`);
    expect(single.status).toBe(200);
    expect(single.body).toEqual({
      id: event.id,
      title: 'Fielded',
      start_date: '2032-04-01 10:00:00',
      venue: { venue: venue.venue, city: 'Lyon' },
    });
    const list = await s.get('/events?start_date=2032-04-01&end_date=2032-04-01&_fields=id,title');
    expect(list.body.events).toEqual([{ id: event.id, title: 'Fielded' }]);
    expect(list.body).toMatchObject({ total: 1, total_pages: 1 });
    expect(list.body.rest_url).toContain('/events/');
    // Writes answer with the fields named too; the write itself is whole.
    const updated = await s.request('PATCH', `/events/${event.id}?_fields=id,description`, {
      body: { description: 'Whole' },
    });
    expect(updated.body).toEqual({ id: event.id, description: 'Whole' });
    expect((await s.get(`/events/${event.id}`)).body.title).toBe('Fielded');
    // Unknown fields give an empty object, as WordPress does; a field name that is no name is a 400.
    expect((await s.get(`/events/${event.id}?_fields=nothing`)).body).toEqual({});
    expect((await s.get(`/events/${event.id}?_fields=a%20b`)).status).toBe(400);
  });

  it('wraps the answer in {body, status, headers} with status 200 when _envelope is present', async () => {
    const created = await s.request('POST', '/tags?_envelope', { body: { name: `Enveloped ${Math.random()}` } });
    expect(created.status).toBe(200);
    expect(created.body.status).toBe(201);
    expect(created.body.body.name).toMatch(/^Enveloped/);
    expect(created.body.headers.Location).toBe(created.body.body.urls.self);
    const missing = await s.get('/tags/999999?_envelope=1');
    expect(missing.status).toBe(200);
    expect(missing.body).toMatchObject({ status: 404, body: { code: 'rest-tag-not-found' } });
    const both = await s.get(`/tags/${created.body.body.id}?_envelope&_fields=id`);
    expect(both.body).toEqual({
      body: { id: created.body.body.id },
      status: 200,
      headers: { Allow: 'GET, POST, PUT, PATCH, DELETE', Link: `<${s.origin}/wp-json/>; rel="https://api.w.org/"` },
    });
    // A list's envelope names its pages beside the API root.
    const paged = await s.get('/tags?per_page=1&hide_empty=false&_envelope');
    expect(paged.body.headers.Link).toContain('rel="https://api.w.org/"');
    expect(paged.body.headers.Link).toContain('rel="next"');
    expect(paged.body.headers['X-WP-Total']).toBeDefined();
  });

  it('takes context view, embed or edit on every read, and refuses any other', async () => {
    const tag = (await s.post('/tags', { name: `Context ${Math.random()}` })).body;
    for (const context of ['view', 'embed', 'edit']) {
      expect((await s.get(`/tags/${tag.id}?context=${context}`)).status, context).toBe(200);
    }
    const refused = await s.get(`/tags/${tag.id}?context=raw`);
    expect(refused.status).toBe(400);
    expect(refused.body.data.params).toHaveProperty('context');
    expect((await s.get('/events?context=edit')).status).toBe(200);
  });

  it('answers OPTIONS on a route with its endpoints and their arguments, as the index shows it, and Allow', async () => {
    const index = (await s.get('')).body.routes;
    for (const [path, pattern] of [
      ['/events', '/calendar/events/v1/events'],
      ['/events/7', '/calendar/events/v1/events/(?P<id>\\d+)'],
      ['/venues/by-slug/hall', '/calendar/events/v1/venues/by-slug/(?P<slug>[^/]+)'],
      ['/tags/3', '/calendar/events/v1/tags/(?P<id>\\d+)'],
    ]) {
      const r = await fetch(`${s.base}${path}`, { method: 'OPTIONS' });
      expect(r.status, path).toBe(200);
      const route = (await r.json()) as { namespace: string; methods: string[]; endpoints: unknown[] };
      // The request-time defaults of the event list (start_date, end_date) move with the clock.
      const { endpoints, ...rest } = route;
      const { endpoints: indexed, ...indexedRest } = index[pattern];
      expect(rest, path).toEqual(indexedRest);
      expect(JSON.stringify(endpoints).replace(/\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}/g, 'T')).toBe(
        JSON.stringify(indexed).replace(/\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}/g, 'T'),
      );
      expect(r.headers.get('allow'), path).toMatch(/^OPTIONS, GET/);
    }
    const localized = await fetch(`${s.origin}/fr/wp-json/calendar/events/v1/tags`, { method: 'OPTIONS' });
    const french = (await localized.json()) as { endpoints: { args: Record<string, { description?: string }> }[] };
    expect(french.endpoints[0].args.page.description).not.toBe(
      index['/calendar/events/v1/tags'].endpoints[0].args.page.description,
    );
  });
  it("takes the modelled service's event password on the event's routes, which changes nothing here", async () => {
    const index = (await s.get('')).body.routes['/calendar/events/v1/events/(?P<id>\\d+)'];
    for (const endpoint of index.endpoints) expect(endpoint.args.password?.type, endpoint.methods[0]).toBe('string');
    const event = (
      await s.post('/events', { title: 'Open rehearsal', start_date: '2031-02-01 10:00', end_date: '2031-02-01 11:00' })
    ).body;
    const read = await s.get(`/events/${event.id}?password=whatever`, { as: null });
    expect(read.status).toBe(200);
    expect(read.body.title).toBe('Open rehearsal');
    const changed = await s.request('PATCH', `/events/${event.id}?password=whatever`, {
      body: { title: 'Open rehearsal (full)' },
    });
    expect(changed.status).toBe(200);
    expect((await s.get(`/events/${event.id}?password=${'x'.repeat(256)}`)).status).toBe(400);
  });

  it('says in the Allow of OPTIONS only the methods this caller may use, and lists every endpoint', async () => {
    const allowOf = async (path: string, headers: Record<string, string> = {}) => {
      const r = await fetch(`${s.base}${path}`, { method: 'OPTIONS', headers });
      expect(r.status, path).toBe(200);
      const route = (await r.json()) as { methods: string[] };
      expect(route.methods, path).toContain('DELETE'); // the description is the route's, whoever asks
      return r.headers.get('allow');
    };
    const as = (role: keyof typeof s.users) => ({ authorization: `Bearer ${s.users[role].appPassword}` });
    expect(await allowOf('/events/7')).toBe('OPTIONS, GET, HEAD');
    expect(await allowOf('/events/7', as('subscriber'))).toBe('OPTIONS, GET, HEAD');
    expect(await allowOf('/events/7', as('contributor'))).toBe('OPTIONS, GET, POST, PUT, PATCH, DELETE, HEAD');
    expect(await allowOf('/tags/3', as('author'))).toBe('OPTIONS, GET, HEAD');
    expect(await allowOf('/tags/3', as('editor'))).toBe('OPTIONS, GET, POST, PUT, PATCH, DELETE, HEAD');
    // Wrong credentials are refused here as on every route.
    const wrong = await fetch(`${s.base}/events/7`, { method: 'OPTIONS', headers: { authorization: 'Bearer nope' } });
    expect(wrong.status).toBe(401);
  });

  it('takes any field name in _fields as a name, never as a way into the process (__proto__, constructor)', async () => {
    const tag = (await s.post('/tags', { name: `Guarded ${Math.random()}` })).body;
    for (const fields of ['__proto__.polluted,id', 'constructor.prototype.polluted,id', 'prototype.x,id']) {
      const r = await s.get(`/tags/${tag.id}?_fields=${fields}`, { as: null });
      expect(r.status, fields).toBe(200);
      expect(r.body, fields).toEqual({ id: tag.id });
    }
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    // The process goes on answering as before, reads and authenticated writes alike.
    expect((await s.get(`/tags/${tag.id}?x=1`, { as: null })).status).toBe(200);
    expect((await s.get('/events')).status).toBe(200);
    // WordPress's relation names carry a colon.
    const event = (
      await s.post('/events', {
        title: 'Colon',
        start_date: '2033-01-01 10:00',
        end_date: '2033-01-01 11:00',
        tags: [tag.id],
      })
    ).body;
    const narrowed = await s.get(`/events/${event.id}?_embed&_fields=id,_embedded.wp:term,_links.wp:term`);
    expect(narrowed.status).toBe(200);
    expect(Object.keys(narrowed.body)).toEqual(['id', '_links', '_embedded']);
    expect(Object.keys(narrowed.body._links)).toEqual(['wp:term']);
    expect(narrowed.body._embedded['wp:term'][1].map((t: any) => t.id)).toEqual([tag.id]);
  });

  it('overrides a POST to any method: HEAD reads as GET with its body, a method no route has is 404', async () => {
    const tag = (await s.post('/tags', { name: `Methods ${Math.random()}` })).body;
    const head = await s.request('POST', `/tags/${tag.id}?_method=HEAD`);
    expect(head.status).toBe(200);
    expect(head.body.id).toBe(tag.id);
    for (const wanted of ['delte', 'TRACE']) {
      const r = await s.request('POST', `/tags/${tag.id}?_method=${wanted}`, { body: { name: 'Changed' } });
      expect(r.status, wanted).toBe(404);
      expect(r.body.code, wanted).toBe('rest_no_route');
    }
    const viaHeader = await s.request('POST', `/tags/${tag.id}`, {
      body: { name: 'Changed' },
      headers: { 'x-http-method-override': 'CONNECT' },
    });
    expect(viaHeader.status).toBe(404);
    expect((await s.get(`/tags/${tag.id}`)).body.name).toBe(tag.name);
  });

  it("says in Allow which of a route's methods the caller may use, on answers and errors alike", async () => {
    expect((await s.get('/categories', { as: null })).headers.get('allow')).toBe('GET');
    expect((await s.get('/categories')).headers.get('allow')).toBe('GET, POST');
    expect((await s.get('/tags', { as: 'author' })).headers.get('allow')).toBe('GET');
    const refused = await s.post('/tags', { name: 'Not yours' }, { as: 'author' });
    expect(refused.status).toBe(403);
    expect(refused.headers.get('allow')).toBe('GET');
    const tag = (await s.post('/tags', { name: `Allowed ${Math.random()}` })).body;
    expect((await s.get(`/tags/${tag.id}`)).headers.get('allow')).toBe('GET, POST, PUT, PATCH, DELETE');
    // OPTIONS on a path that is no route is no route, as for every other method.
    const bad = await fetch(`${s.base}/events/abc`, { method: 'OPTIONS' });
    expect(bad.status).toBe(404);
    expect(((await bad.json()) as { code: string }).code).toBe('rest_no_route');
  });

  it('names the API root on every response: preflights, probes, unknown paths, the REST root', async () => {
    const apiRoot = `<${s.origin}/wp-json/>; rel="https://api.w.org/"`;
    const preflight = await fetch(`${s.base}/events`, {
      method: 'OPTIONS',
      headers: { origin: 'https://app.example', 'access-control-request-method': 'POST' },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('link')).toBe(apiRoot);
    for (const path of ['/healthz', '/readyz', '/nowhere', '/wp-json/']) {
      expect((await fetch(`${s.origin}${path}`)).headers.get('link'), path).toBe(apiRoot);
    }
    const options = await fetch(`${s.origin}/wp-json/`, { method: 'OPTIONS' });
    expect(options.status).toBe(200);
    expect(options.headers.get('allow')).toBe('OPTIONS, GET, HEAD');
    expect(((await options.json()) as { methods: string[] }).methods).toEqual(['GET']);
    const fielded = await fetch(`${s.origin}/wp-json/?_fields=namespaces`);
    expect(await fielded.json()).toEqual({ namespaces: ['calendar/events/v1', 'batch/v1'] });
  });

  it('takes the route of ?rest_route= as a path: escapes stay escapes, after a locale segment too', async () => {
    const injected = await fetch(`${s.origin}/?rest_route=/calendar/events/v1/events%3Fper_page=1`);
    expect(injected.status).toBe(404);
    const percent = await fetch(`${s.origin}/?rest_route=/calendar/events/v1/events/by-slug/%25`);
    expect(((await percent.json()) as { code: string }).code).toBe('rest-event-not-found');
    const localized = await fetch(`${s.origin}/fr/?rest_route=/calendar/events/v1/tags`);
    expect(localized.status).toBe(200);
    expect(localized.headers.get('link')).toBe(`<${s.origin}/fr/wp-json/>; rel="https://api.w.org/"`);
  });
});
