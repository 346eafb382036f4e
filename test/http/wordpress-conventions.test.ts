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
});
