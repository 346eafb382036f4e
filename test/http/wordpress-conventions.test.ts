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
    expect((await s.request('POST', `/venues?_method=TRACE`, { body: { venue: 'Traced' } })).status).toBe(201);
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
    expect(both.body).toEqual({ body: { id: created.body.body.id }, status: 200, headers: {} });
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
});
