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
    const viaPath = await s.get('/categories?hide_empty=false&per_page=2');
    expect(viaQuery.status).toBe(200);
    const body = (await viaQuery.json()) as { categories: unknown[] };
    expect(body.categories).toEqual(viaPath.body.categories);
    const index = await fetch(`${s.origin}/index.php?rest_route=%2Fcalendar%2Fevents%2Fv1`);
    expect(((await index.json()) as { namespace: string }).namespace).toBe('calendar/events/v1');
    const missing = await fetch(`${s.origin}/?rest_route=/calendar/events/v1/nowhere`);
    expect(missing.status).toBe(404);
    expect(((await missing.json()) as { code: string }).code).toBe('rest_no_route');
  });
});
