// How the service answers bad and unusual requests, whatever the route.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from '../setup/server.js';

describe('the HTTP pipeline', () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startServer('pglite');
  });
  afterAll(() => s?.close());

  const errorOf = (r: { status: number; body: { code: string; data: { status: number } } }) => [
    r.status,
    r.body.code,
    r.body.data.status,
  ];

  it('answers an unknown path with 404 rest_no_route, inside and outside the namespace', async () => {
    expect(errorOf(await s.get('/nowhere'))).toEqual([404, 'rest_no_route', 404]);
    const outside = await fetch(`${s.origin}/no/such/thing`);
    expect(outside.status).toBe(404);
    expect(((await outside.json()) as { code: string }).code).toBe('rest_no_route');
  });

  it('answers a known path with a wrong method with 405 and Allow', async () => {
    const r = await s.request('DELETE', '/categories');
    expect(errorOf(r)).toEqual([405, 'rest_method_not_allowed', 405]);
    expect(r.headers.get('allow')).toBe('GET, POST');
    const single = await s.request('PATCH', '/doc');
    expect(single.headers.get('allow')).toBe('GET');
  });

  it('answers malformed JSON with 400 rest_invalid_json', async () => {
    const r = await s.request('POST', '/categories', {
      raw: { contentType: 'application/json', data: '{"name": "x",' },
    });
    expect(errorOf(r)).toEqual([400, 'rest_invalid_json', 400]);
  });

  it('refuses text that is not valid Unicode (a lone surrogate) with 400 naming the field', async () => {
    for (const [path, data] of [
      ['/venues', '{"venue": "Hall \\ud800"}'],
      ['/organizers', '{"organizer": "Ana", "phone": ["\\udfff"]}'],
      ['/categories', '{"name": "ok", "\\ud800": 1}'],
    ]) {
      const r = await s.request('POST', path, { raw: { contentType: 'application/json', data } });
      expect(errorOf(r), data).toEqual([400, 'rest_invalid_param', 400]);
    }
    expect(await s.db.prisma.venue.count()).toBe(0);
  });

  it('answers a JSON body that is not an object with 400', async () => {
    for (const data of ['[1,2]', '"name"', 'null']) {
      const r = await s.request('POST', '/categories', { raw: { contentType: 'application/json', data } });
      expect(r.status, data).toBe(400);
    }
  });

  it('answers a body over 1 MiB with 413', async () => {
    const r = await s.post('/categories', { name: 'big', description: 'x'.repeat(1024 * 1024 + 10) });
    expect(errorOf(r)).toEqual([413, 'rest_payload_too_large', 413]);
  });

  it('answers a body of another media type with 415', async () => {
    const r = await s.request('POST', '/categories', { raw: { contentType: 'text/plain', data: 'name=x' } });
    expect(errorOf(r)).toEqual([415, 'rest_unsupported_media_type', 415]);
  });

  it('treats a write without a body as one without fields', async () => {
    const r = await s.request('POST', '/categories');
    expect(errorOf(r)).toEqual([400, 'rest_missing_callback_param', 400]);
  });

  it('survives hostile strings and stores them as given', async () => {
    const name = `'; DROP TABLE terms; -- <script>alert(1)</script> \u202e ${'🎉'.repeat(10)}`;
    const r = await s.post('/tags', { name });
    expect(r.status).toBe(201);
    expect(r.body.name).toBe(name);
    expect((await s.get(`/tags/${r.body.id}`)).body.name).toBe(name);
  });

  it('serves every route under a locale segment and without one', async () => {
    for (const locale of ['/fr', '/pt-br', '/pt_BR', '/de']) {
      const r = await s.get('/categories', { locale });
      expect(r.status, locale).toBe(200);
    }
  });

  it('serves the document at /doc with servers pointing at the base URL of the request', async () => {
    const r = await s.get('/doc', { locale: '/es' });
    expect(r.status).toBe(200);
    expect(r.body.openapi).toBe('3.1.0');
    expect(r.body.servers).toEqual([{ url: `${s.origin}/es/wp-json/calendar/events/v1` }]);
  });
});
