import { describe, expect, it } from 'vitest';
import { insertEvent } from '../factories.js';
import { describeEachDatabase } from '../setup/each-database.js';

// What venues and organizers share, run for both.
const kinds = [
  { collection: 'venues', type: 'venue', name: 'venue', link: 'eventVenue', column: 'venueId' },
  { collection: 'organizers', type: 'organizer', name: 'organizer', link: 'eventOrganizer', column: 'organizerId' },
] as const;

describeEachDatabase('venues and organizers', (s) => {
  describe.each(kinds)('$collection', (k) => {
    let n = 0;
    const unique = (label: string) => `${label} ${k.type} ${++n}`;
    const create = async (
      body: Record<string, unknown> = {},
      as: 'administrator' | 'author' | 'contributor' = 'administrator',
    ) => {
      const r = await s.post(`/${k.collection}`, { [k.name]: unique('Item'), ...body }, { as });
      expect(r.status, JSON.stringify(r.body)).toBe(201);
      return r.body;
    };
    const link = (eventId: number, id: number) =>
      (s.db.prisma[k.link] as any).create({ data: { eventId, [k.column]: id } });

    it('creates with 201, a Location, the reference fields in order, and a derived slug', async () => {
      const r = await s.post(`/${k.collection}`, {
        [k.name]: `Café ${k.type} Élan`,
        description: 'Plain words.',
        website: 'https://example.com/x',
      });
      expect(r.status).toBe(201);
      expect(r.headers.get('location')).toBe(`${s.base}/${k.collection}/${r.body.id}`);
      const keys = Object.keys(r.body);
      expect(keys.slice(0, 10)).toEqual([
        'id',
        'author',
        'status',
        'date',
        'date_utc',
        'modified',
        'modified_utc',
        'url',
        'rest_url',
        k.name,
      ]);
      expect(keys.slice(-3)).toEqual(['global_id', 'global_id_lineage', '_links']);
      expect(r.body).toMatchObject({
        author: String(s.users.administrator.id),
        status: 'publish',
        slug: `cafe-${k.type}-elan`,
        url: `${s.origin}/${k.type}/cafe-${k.type}-elan/`,
        rest_url: `${s.base}/${k.collection}/${r.body.id}`,
        global_id: `${new URL(s.origin).host}?id=${r.body.id}`,
        global_id_lineage: [`${new URL(s.origin).host}?id=${r.body.id}`],
        website: 'https://example.com/x',
      });
      expect(r.body.date).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/);
      expect(r.body).not.toHaveProperty('json_ld');
      expect(r.body).not.toHaveProperty('excerpt'); // empty fields are left out
      expect(r.body).not.toHaveProperty('phone');
    });

    it('numbers slugs to keep them unique, and keeps an explicit free slug', async () => {
      const name = unique('Twin');
      const a = await create({ [k.name]: name, phone: '1' });
      const b = await create({ [k.name]: name, phone: '2' });
      expect(b.slug).toBe(`${a.slug}-2`);
      const chosen = `Chosen ${k.type} ${n}`;
      const c = await create({ slug: chosen });
      expect(c.slug).toBe(`chosen-${k.type}-${n - 1}`);
    });

    it('returns the existing item for a duplicate create, whatever the case', async () => {
      const name = unique('Dup');
      const a = await create({ [k.name]: name, phone: '+1 555' });
      const r = await s.post(`/${k.collection}`, { [k.name]: name.toUpperCase(), phone: '+1 555' });
      expect(r.status).toBe(201);
      expect(r.body.id).toBe(a.id);
      const other = await create({ [k.name]: name, phone: '+1 556' });
      expect(other.id).not.toBe(a.id);
      // LIKE wildcards are letters like any other: "D_p%" is no duplicate of "Dup…".
      const wild = await create({ [k.name]: 'D_p%', phone: '+1 555' });
      expect(wild.id).not.toBe(a.id);
      expect(
        (await s.get(`/${k.collection}?search=${encodeURIComponent('_p%')}`)).body[k.collection].map((i: any) => i.id),
      ).toEqual([wild.id]);
    });

    it('reads by ID and by slug, with json_ld, also anonymously when published', async () => {
      const a = await create({ description: '<b>Bold</b> words', phone: '+33 1 23' });
      const byId = await s.get(`/${k.collection}/${a.id}`, { as: null });
      expect(byId.status).toBe(200);
      expect(byId.body.json_ld).toMatchObject({
        '@type': k.type === 'venue' ? 'Place' : 'Person',
        name: a[k.name],
        description: 'Bold words',
        telephone: '+33 1 23',
      });
      const bySlug = await s.get(`/${k.collection}/by-slug/${encodeURIComponent(a.slug)}`, { as: null });
      expect(bySlug.body).toEqual(byId.body);
    });

    it('answers 404 rest-<type>-not-found for an unknown ID or slug, and 404 rest_no_route for a non-numeric ID', async () => {
      for (const path of [`/${k.collection}/999999`, `/${k.collection}/by-slug/no-such-thing`]) {
        for (const method of ['GET', 'POST', 'PUT', 'PATCH', 'DELETE']) {
          const r = await s.request(
            method,
            path,
            method === 'GET' || method === 'DELETE' ? {} : { body: { description: 'x' } },
          );
          expect(r.status, `${method} ${path}`).toBe(404);
          expect(r.body.code).toBe(`rest-${k.type}-not-found`);
        }
      }
      expect((await s.get(`/${k.collection}/abc`)).body.code).toBe('rest_no_route');
    });

    it('updates only the fields sent, with POST, PUT and PATCH, by ID and by slug', async () => {
      const a = await create({ description: 'Keep me', phone: '111', website: 'https://keep.example' });
      for (const [method, path] of [
        ['POST', `/${k.collection}/${a.id}`],
        ['PUT', `/${k.collection}/${a.id}`],
        ['PATCH', `/${k.collection}/by-slug/${a.slug}`],
      ] as const) {
        const r = await s.request(method, path, { body: { phone: `${method}-phone` } });
        expect(r.status, method).toBe(200);
        expect(r.body).toMatchObject({
          description: 'Keep me',
          phone: `${method}-phone`,
          website: 'https://keep.example',
          status: 'publish',
          slug: a.slug,
        });
      }
      const renamed = await s.request('PATCH', `/${k.collection}/by-slug/${a.slug}`, {
        body: { slug: `${a.slug}-moved`, [k.name]: 'New Name' },
      });
      expect(renamed.body).toMatchObject({
        slug: `${a.slug}-moved`,
        [k.name]: 'New Name',
        url: `${s.origin}/${k.type}/${a.slug}-moved/`,
      });
      expect((await s.get(`/${k.collection}/by-slug/${a.slug}-moved`)).body.id).toBe(a.id);
      const cleared = await s.request('PATCH', `/${k.collection}/${a.id}`, { body: { website: '', description: '' } });
      expect(cleared.body).not.toHaveProperty('website');
      expect(cleared.body).not.toHaveProperty('description');
    });

    it('refuses an invalid website, image, date or author with 400 naming the field, and stores nothing', async () => {
      const a = await create({ phone: 'before' });
      for (const [body, param] of [
        [{ website: 'foo', phone: 'after' }, 'website'],
        [{ image: 42, phone: 'after' }, 'image'],
        [{ image: 'not a url', phone: 'after' }, 'image'],
        [{ date: 'next blue moon', phone: 'after' }, 'date'],
        [{ author: 999999, phone: 'after' }, 'author'],
        [{ status: 'archived', phone: 'after' }, 'status'],
      ] as const) {
        const r = await s.post(`/${k.collection}/${a.id}`, body);
        expect(r.status, JSON.stringify(body)).toBe(400);
        expect(Object.keys(r.body.data.params), JSON.stringify(r.body)).toContain(param);
      }
      expect((await s.get(`/${k.collection}/${a.id}`)).body.phone).toBe('before');
    });

    it('accepts dates in the documented forms and an image URL', async () => {
      const a = await create({ date_utc: '2025-03-04 05:06:07', image: 'https://img.example/poster.JPG' });
      expect(a).toMatchObject({
        date_utc: '2025-03-04 05:06:07',
        date: '2025-03-04 05:06:07',
        image: { url: 'https://img.example/poster.JPG', extension: 'jpg' },
      });
      const b = await create({ date: '2025-03-04T05:06:07+02:00' });
      expect(b.date_utc).toBe('2025-03-04 03:06:07');
      const removed = await s.post(`/${k.collection}/${a.id}`, { image: '' });
      expect(removed.body).not.toHaveProperty('image');
    });

    it('moves to the trash on delete, answers 410 the second time, and deletes for good with force', async () => {
      const a = await create();
      const first = await s.request('DELETE', `/${k.collection}/${a.id}`);
      expect(first.status).toBe(200);
      expect(first.body).toMatchObject({ id: a.id, status: 'trash' });
      const second = await s.request('DELETE', `/${k.collection}/by-slug/${a.slug}`);
      expect(second.status).toBe(410);
      expect(second.body.code).toBe(`${k.type}-is-in-trash`);
      const forced = await s.request('DELETE', `/${k.collection}/${a.id}?force=true`);
      expect(forced.status).toBe(200);
      expect(forced.body.id).toBe(a.id);
      expect((await s.get(`/${k.collection}/${a.id}`)).status).toBe(404);
    });

    it('lists newest first with the envelope, headers and links, and keeps filters in the links', async () => {
      const search = `Pager${k.type}`;
      const made = [];
      for (let i = 0; i < 5; i++)
        made.push(await create({ [k.name]: `${search} ${i}`, date_utc: `2024-01-0${i + 1} 00:00:00` }));
      const page1 = await s.get(`/${k.collection}?search=${search}&per_page=2`);
      expect(page1.status).toBe(200);
      expect(Object.keys(page1.body)).toEqual([k.collection, 'rest_url', 'next_rest_url', 'total', 'total_pages']);
      expect(page1.body[k.collection].map((v: any) => v.id)).toEqual([made[4].id, made[3].id]);
      expect(page1.body).toMatchObject({ total: 5, total_pages: 3 });
      expect(page1.headers.get('x-tec-total')).toBe('5');
      expect(page1.headers.get('x-wp-totalpages')).toBe('3');
      expect(page1.body.next_rest_url).toBe(`${s.base}/${k.collection}/?page=2&per_page=2&search=${search}`);
      const page3 = await s.get(
        new URL(page1.body.next_rest_url).search.replace('page=2', 'page=3').replace(/^/, `/${k.collection}`),
      );
      expect(page3.body[k.collection].map((v: any) => v.id)).toEqual([made[0].id]);
      expect(page3.body).not.toHaveProperty('next_rest_url');
      expect(page3.body.previous_rest_url).toBe(`${s.base}/${k.collection}/?page=2&per_page=2&search=${search}`);
      expect(page3.headers.get('link')).toContain('rel="prev"');
      const past = await s.get(`/${k.collection}?search=${search}&per_page=2&page=9`);
      expect(past.status).toBe(200);
      expect(past.body[k.collection]).toEqual([]);
      expect((await s.get(`/${k.collection}?per_page=500`)).body.rest_url).toContain('per_page=50');
      expect((await s.get(`/${k.collection}`)).body.rest_url).toContain('per_page=12');
      expect((await s.get(`/${k.collection}?per_page=0`)).status).toBe(400);
      expect((await s.get(`/${k.collection}?page=x`)).status).toBe(400);
    });

    it('searches the name, description and the contact fields, without case', async () => {
      const marker = `zq${k.type}${n}`;
      const byDescription = await create({ description: `About ${marker.toUpperCase()}` });
      const byPhone = await create({ phone: `${marker}-phone` });
      await create();
      const r = await s.get(`/${k.collection}?search=${marker}`);
      expect(r.body[k.collection].map((v: any) => v.id).sort()).toEqual([byDescription.id, byPhone.id].sort());
      expect((await s.get(`/${k.collection}?search=nothing-like-this-${marker}`)).body).toMatchObject({
        total: 0,
        total_pages: 0,
      });
    });

    it('filters by event, has_events and only_with_upcoming', async () => {
      const marker = `Linkfilter ${k.type}`;
      const withPast = await create({ [k.name]: `${marker} past` });
      const withFuture = await create({ [k.name]: `${marker} future` });
      const withDraft = await create({ [k.name]: `${marker} draft` });
      const lonely = await create({ [k.name]: `${marker} lonely` });
      const past = await insertEvent(s.db, { start: new Date('2020-01-01T10:00:00Z') });
      const future = await insertEvent(s.db, { start: new Date('2035-01-01T10:00:00Z') });
      const draft = await insertEvent(s.db, { status: 'draft', start: new Date('2035-01-01T10:00:00Z') });
      await link(past.id, withPast.id);
      await link(future.id, withFuture.id);
      await link(draft.id, withDraft.id);
      const ids = async (query: string) =>
        (await s.get(`/${k.collection}?search=${encodeURIComponent(marker)}&${query}`, { as: null })).body[k.collection]
          .map((v: any) => v.id)
          .sort();
      expect(await ids(`event=${future.id}`)).toEqual([withFuture.id]);
      expect(await ids('has_events=true')).toEqual([withPast.id, withFuture.id].sort());
      expect(await ids('has_events=yes')).toEqual([withPast.id, withFuture.id].sort());
      // The draft event is not the anonymous caller's to know of: to it, withDraft has no events.
      expect(await ids('has_events=false')).toEqual([withDraft.id, lonely.id].sort());
      expect(await ids('only_with_upcoming=1')).toEqual([withFuture.id]);
      expect(await ids('only_with_upcoming=false')).toHaveLength(4);
      const unknown = await s.get(`/${k.collection}?event=999999`);
      expect(unknown.status).toBe(400);
      expect(unknown.body.data.params).toHaveProperty('event');
    });

    it('filters by status; anonymous callers see published items only and may ask for nothing else', async () => {
      const marker = `Statusfilter ${k.type}`;
      const pub = await create({ [k.name]: `${marker} pub` });
      const draft = await create({ [k.name]: `${marker} draft`, status: 'draft' });
      const q = `/${k.collection}?search=${encodeURIComponent(marker)}`;
      const ids = (r: any) => r.body[k.collection].map((v: any) => v.id).sort();
      expect(ids(await s.get(q, { as: null }))).toEqual([pub.id]);
      expect(ids(await s.get(q, { as: 'subscriber' }))).toEqual([pub.id]);
      expect(ids(await s.get(q))).toEqual([pub.id, draft.id].sort());
      expect(ids(await s.get(`${q}&status=draft`))).toEqual([draft.id]);
      expect(ids(await s.get(`${q}&status=draft,publish`))).toEqual([pub.id, draft.id].sort());
      expect((await s.get(`${q}&status=draft`, { as: null })).status).toBe(400);
      expect(ids(await s.get(`${q}&status=publish`, { as: null }))).toEqual([pub.id]);
      const single = await s.get(`/${k.collection}/${draft.id}`, { as: null });
      expect(single.status).toBe(403);
      expect(single.body.code).toBe(`${k.type}-not-accessible`);
    });

    it('never answers 5xx to hostile bodies and writes nothing for them', async () => {
      const a = await create({ phone: 'steady' });
      const hostile: unknown[] = [
        { [k.name]: '' },
        { [k.name]: '   ' },
        { [k.name]: 'a\u0000b' },
        { [k.name]: 'x'.repeat(100_000) },
        { [k.name]: ['array'] },
        { [k.name]: { nested: true } },
        { phone: 2 ** 64 },
        { author: -1 },
        { author: 'me' },
        { date: { $gt: 1 } },
        { status: 'publish\u0000' },
        { slug: '../../etc/passwd', phone: 'x'.repeat(10_000) },
        { image: 'javascript:alert(1)' },
        ...(k.type === 'venue' ? [{ show_map: { a: 1 } }, { geo_lat: 'north' }] : [{ email: 'a@b@c' }]),
        [1, 2, 3],
        'just a string',
        null,
      ];
      for (const body of hostile) {
        const r = await s.request('POST', `/${k.collection}/${a.id}`, {
          raw: { contentType: 'application/json', data: JSON.stringify(body) },
        });
        expect(r.status, JSON.stringify(body).slice(0, 80)).toBeGreaterThanOrEqual(400);
        expect(r.status).toBeLessThan(500);
      }
      expect((await s.get(`/${k.collection}/${a.id}`)).body.phone).toBe('steady');
      const sql = await s.post(`/${k.collection}`, { [k.name]: "Robert'); DROP TABLE venues;--" });
      expect(sql.status).toBe(201);
      expect(sql.body[k.name]).toBe("Robert'); DROP TABLE venues;--");
    });
  });

  describe('venue specifics', () => {
    it('reads show_map and show_map_link as truthy words, default true, and keeps them on update', async () => {
      const d = await s.post('/venues', { venue: 'Map Default' });
      expect(d.body).toMatchObject({ show_map: true, show_map_link: true });
      for (const [word, expected] of [
        ['yes', true],
        ['Enabled', true],
        ['Y', true],
        ['on', true],
        ['1', true],
        ['no', false],
        ['off', false],
        ['anything', false],
        [false, false],
        [true, true],
      ] as const) {
        const r = await s.post(`/venues/${d.body.id}`, { show_map: word });
        expect(r.body.show_map, String(word)).toBe(expected);
        expect(r.body.show_map_link).toBe(true);
      }
      const form = await s.request('POST', '/venues', {
        form: { venue: 'Form Venue', show_map: 'false', show_map_link: 'TRUE' },
      });
      expect(form.body).toMatchObject({ show_map: false, show_map_link: true });
    });

    it('fills stateprovince from state in the US and from province elsewhere, unless it was set', async () => {
      const us = await s.post('/venues', {
        venue: 'US Hall',
        state: 'NY',
        province: 'ignored',
        country: 'United States',
      });
      expect(us.body.stateprovince).toBe('NY');
      const ca = await s.post('/venues', { venue: 'Salle', state: 'ignored', province: 'Québec', country: 'Canada' });
      expect(ca.body.stateprovince).toBe('Québec');
      const moved = await s.post(`/venues/${us.body.id}`, { state: 'CA' });
      expect(moved.body.stateprovince).toBe('CA');
      const own = await s.post(`/venues/${us.body.id}`, { stateprovince: 'Golden State' });
      const kept = await s.post(`/venues/${us.body.id}`, { state: 'OR' });
      expect([own.body.stateprovince, kept.body.stateprovince]).toEqual(['Golden State', 'Golden State']);
    });

    it('stores coordinates and shows them with json_ld geo', async () => {
      const v = await s.post('/venues', {
        venue: 'Geo Place',
        geo_lat: 45.52,
        geo_lng: -73.58,
        address: '1 Rue',
        city: 'Montréal',
        country: 'Canada',
        province: 'QC',
      });
      expect(v.body).toMatchObject({ geo_lat: 45.52, geo_lng: -73.58 });
      const got = await s.get(`/venues/${v.body.id}`);
      expect(got.body.json_ld).toMatchObject({
        '@type': 'Place',
        address: {
          '@type': 'PostalAddress',
          streetAddress: '1 Rue',
          addressLocality: 'Montréal',
          addressRegion: 'QC',
          addressCountry: 'Canada',
        },
        geo: { '@type': 'GeoCoordinates', latitude: 45.52, longitude: -73.58 },
      });
      expect((await s.post('/venues', { venue: 'Off the globe', geo_lat: 91 })).status).toBe(400);
    });
  });

  describe('json_ld as the plugin writes it (samples/venue-get.json, organizer-get.json)', () => {
    it('writes a venue as a Place: url always empty, address, telephone and sameAs, no @context', async () => {
      const v = await s.post('/venues', {
        venue: 'Blue Note Hall LD',
        description: '<p>Intimate jazz club in Greenwich Village.</p>',
        address: '131 W 3rd St',
        city: 'New York',
        state: 'NY',
        zip: '10012',
        country: 'United States',
        phone: '+1 212-555-0148',
        website: 'https://bluenotehall.example.com',
      });
      const ld = (await s.get(`/venues/${v.body.id}`)).body.json_ld;
      const expected = {
        '@type': 'Place',
        name: 'Blue Note Hall LD',
        description: 'Intimate jazz club in Greenwich Village.',
        url: '',
        address: {
          '@type': 'PostalAddress',
          streetAddress: '131 W 3rd St',
          addressLocality: 'New York',
          addressRegion: 'NY',
          postalCode: '10012',
          addressCountry: 'United States',
        },
        telephone: '+1 212-555-0148',
        sameAs: 'https://bluenotehall.example.com',
      };
      expect(ld).toStrictEqual(expected);
      expect(Object.keys(ld)).toEqual(Object.keys(expected));
      expect(Object.keys(ld.address)).toEqual(Object.keys(expected.address));

      const bare = await s.post('/venues', { venue: 'Bare Hall LD' });
      expect((await s.get(`/venues/${bare.body.id}`)).body.json_ld).toStrictEqual({
        '@type': 'Place',
        name: 'Bare Hall LD',
        description: '',
        url: '',
        address: { '@type': 'PostalAddress' },
        telephone: '',
        sameAs: '',
      });
    });

    it('writes an organizer as a Person: url and sameAs its website, empty strings when unknown', async () => {
      const o = await s.post('/organizers', {
        organizer: 'Harbor Arts LD',
        description: '<p>Non-profit presenting live music.</p>',
        phone: '+1 212-555-0199',
        website: 'https://harborarts.example.com',
        email: 'hello@harborarts.example.com',
      });
      const ld = (await s.get(`/organizers/${o.body.id}`)).body.json_ld;
      const expected = {
        '@type': 'Person',
        name: 'Harbor Arts LD',
        description: 'Non-profit presenting live music.',
        url: 'https://harborarts.example.com',
        telephone: '+1 212-555-0199',
        email: 'hello@harborarts.example.com',
        sameAs: 'https://harborarts.example.com',
      };
      expect(ld).toStrictEqual(expected);
      expect(Object.keys(ld)).toEqual(Object.keys(expected));

      const bare = await s.post('/organizers', { organizer: 'Bare Person LD' });
      expect((await s.get(`/organizers/${bare.body.id}`)).body.json_ld).toStrictEqual({
        '@type': 'Person',
        name: 'Bare Person LD',
        description: '',
        url: '',
        telephone: '',
        email: '',
        sameAs: '',
      });
    });
  });

  describe('organizer specifics', () => {
    it('validates the e-mail address and shows it in json_ld', async () => {
      expect((await s.post('/organizers', { organizer: 'Bad Mail', email: 'not-an-address' })).status).toBe(400);
      const o = await s.post('/organizers', { organizer: 'Good Mail', email: 'ana@example.org' });
      expect(o.body.email).toBe('ana@example.org');
      expect((await s.get(`/organizers/${o.body.id}`)).body.json_ld).toMatchObject({
        '@type': 'Person',
        email: 'ana@example.org',
      });
    });
  });
});
