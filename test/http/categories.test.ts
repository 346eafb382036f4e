import { beforeAll, describe, expect, it } from 'vitest';
import { insertEvent } from '../factories.js';
import { describeEachDatabase } from '../setup/each-database.js';

describeEachDatabase('categories', (s) => {
  const create = async (body: object) => {
    const r = await s.post('/categories', body);
    expect(r.status, JSON.stringify(r.body)).toBe(201);
    return r.body;
  };

  describe('create', () => {
    it('answers 201 with the term, its URLs and a Location, and stores it', async () => {
      const r = await s.post('/categories', { name: 'Concerts', description: 'Live music of every kind.' });
      expect(r.status).toBe(201);
      expect(r.headers.get('location')).toBe(`${s.base}/categories/${r.body.id}`);
      expect(r.body).toEqual({
        id: r.body.id,
        count: 0,
        description: 'Live music of every kind.',
        name: 'Concerts',
        slug: 'concerts',
        taxonomy: 'tribe_events_cat',
        parent: 0,
        meta: [],
        url: `${s.origin}/events/category/concerts/`,
        urls: { self: `${s.base}/categories/${r.body.id}`, collection: `${s.base}/categories` },
        _links: r.body._links,
      });
      expect(Object.keys(r.body)).toEqual([
        'id',
        'count',
        'description',
        'name',
        'slug',
        'taxonomy',
        'parent',
        'meta',
        'url',
        'urls',
        '_links',
      ]);
      const stored = await s.db.prisma.term.findUnique({ where: { id: r.body.id } });
      expect(stored).toMatchObject({
        name: 'Concerts',
        slug: 'concerts',
        taxonomy: 'tribe_events_cat',
        parentId: null,
      });
    });

    it('links a child to its parent in `parent`, `urls.up` and the permalink', async () => {
      const parent = await create({ name: 'Music' });
      const child = await create({ name: 'Jazz Fusion', parent: parent.id });
      expect(child.parent).toBe(parent.id);
      expect(child.urls.up).toBe(`${s.base}/categories/${parent.id}`);
      expect(child.url).toBe(`${s.origin}/events/category/music/jazz-fusion/`);
    });

    it('accepts a form-urlencoded body', async () => {
      const r = await s.request('POST', '/categories', { form: { name: 'Form Made', description: 'from a form' } });
      expect(r.status).toBe(201);
      expect(r.body).toMatchObject({ name: 'Form Made', slug: 'form-made', description: 'from a form' });
    });

    it('derives Unicode-aware slugs and numbers them to keep them unique', async () => {
      const a = await create({ name: 'Café Théâtre' });
      const b = await create({ name: 'Cafe Theatre!' });
      const c = await create({ name: '東京 ライブ' });
      expect([a.slug, b.slug, c.slug]).toEqual(['cafe-theatre', 'cafe-theatre-2', '東京-ライブ']);
    });

    it('sanitizes a given slug and refuses one already in use', async () => {
      const a = await create({ name: 'Open Air', slug: 'Open Air Stage' });
      expect(a.slug).toBe('open-air-stage');
      const r = await s.post('/categories', { name: 'Other', slug: 'open-air-stage' });
      expect(r.status).toBe(400);
      expect(r.body.code).toBe('duplicate_term_slug');
      expect(await s.db.prisma.term.count({ where: { name: 'Other' } })).toBe(0);
    });

    it('refuses a name already used by a sibling (any case) with term_exists naming it', async () => {
      const first = await create({ name: 'Workshops' });
      const r = await s.post('/categories', { name: 'workshops' });
      expect(r.status).toBe(400);
      expect(r.body).toMatchObject({ code: 'term_exists', data: { status: 400, term_id: first.id } });
      // LIKE wildcards are letters like any other: "W_rkshops" and "%" are names of their own.
      expect((await s.post('/categories', { name: 'W_rkshops' })).status).toBe(201);
      expect((await s.post('/categories', { name: '%' })).status).toBe(201);
    });

    it('allows the same name under another parent', async () => {
      const parent = await create({ name: 'Kids' });
      const child = await create({ name: 'Workshops', parent: parent.id });
      expect(child.slug).toBe('workshops-2');
    });

    it('names missing and invalid fields, and writes nothing', async () => {
      const before = await s.db.prisma.term.count();
      const missing = await s.post('/categories', { description: 'no name' });
      expect(missing.status).toBe(400);
      expect(missing.body).toEqual({
        code: 'rest_missing_callback_param',
        message: 'Missing parameter(s): name',
        data: { status: 400, params: ['name'] },
      });
      for (const body of [
        { name: 42 },
        { name: '   ' },
        { name: 'x', parent: 'abc' },
        { name: 'x', parent: -1 },
        { name: 'a\u0000b' },
        { name: 'x'.repeat(501) },
      ]) {
        const r = await s.post('/categories', body);
        expect(r.status, JSON.stringify(body)).toBe(400);
        expect(r.body.code).toBe('rest_invalid_param');
        expect(Object.keys(r.body.data.params).length).toBe(1);
      }
      const unknownParent = await s.post('/categories', { name: 'Orphan', parent: 999999 });
      expect(unknownParent.status).toBe(400);
      expect(unknownParent.body.data.params).toHaveProperty('parent');
      expect(await s.db.prisma.term.count()).toBe(before);
    });

    it('ignores unknown and read-only fields', async () => {
      const r = await create({ name: 'Ignored Extras', id: 5, count: 99, taxonomy: 'post_tag', colour: 'red' });
      expect(r).toMatchObject({ name: 'Ignored Extras', count: 0, taxonomy: 'tribe_events_cat' });
      expect(r.id).not.toBe(5);
    });
  });

  describe('read', () => {
    it('returns one category by ID', async () => {
      const c = await create({ name: 'Film' });
      const r = await s.get(`/categories/${c.id}`);
      expect(r.status).toBe(200);
      expect(r.body).toEqual(c);
    });

    it('answers 404 rest-category-not-found for an unknown ID, and for a tag ID', async () => {
      const tag = (await s.post('/tags', { name: 'Not a category' })).body;
      for (const id of [999999, tag.id]) {
        const r = await s.get(`/categories/${id}`);
        expect(r.status).toBe(404);
        expect(r.body.code).toBe('rest-category-not-found');
      }
    });

    it('answers 404 rest_no_route for an ID that is not all digits or out of range', async () => {
      for (const id of ['abc', '1.5', '-1', '99999999999999999999']) {
        const r = await s.get(`/categories/${id}`);
        expect(r.status, id).toBe(404);
        expect(r.body.code).toBe('rest_no_route');
      }
    });
  });

  describe('update', () => {
    it('changes only the fields sent, with POST, PUT and PATCH alike', async () => {
      const c = await create({ name: 'Lectures', description: 'Talks.' });
      const patched = await s.request('PATCH', `/categories/${c.id}`, { body: { description: 'Talks and readings.' } });
      expect(patched.status).toBe(200);
      expect(patched.body).toMatchObject({ name: 'Lectures', slug: 'lectures', description: 'Talks and readings.' });
      const put = await s.request('PUT', `/categories/${c.id}`, { body: { name: 'Lectures & Talks' } });
      expect(put.body).toMatchObject({
        name: 'Lectures & Talks',
        slug: 'lectures',
        description: 'Talks and readings.',
      });
      const post = await s.post(`/categories/${c.id}`, { slug: 'talks' });
      expect(post.body).toMatchObject({ name: 'Lectures & Talks', slug: 'talks' });
      const stored = await s.db.prisma.term.findUnique({ where: { id: c.id } });
      expect(stored).toMatchObject({ name: 'Lectures & Talks', slug: 'talks', description: 'Talks and readings.' });
    });

    it('moves a category under another, and refuses a cycle', async () => {
      const a = await create({ name: 'Arts' });
      const b = await create({ name: 'Crafts', parent: a.id });
      const moved = await s.request('PATCH', `/categories/${a.id}`, { body: { parent: b.id } });
      expect(moved.status).toBe(400);
      expect(moved.body.data.params).toHaveProperty('parent');
      const self = await s.request('PATCH', `/categories/${a.id}`, { body: { parent: a.id } });
      expect(self.status).toBe(400);
      const top = await s.request('PATCH', `/categories/${b.id}`, { body: { parent: 0 } });
      expect(top.body.parent).toBe(0);
      expect(top.body.urls.up).toBeUndefined();
    });

    it('nests categories 20 levels deep, and refuses one deeper, or a move that would take one deeper, naming the limit', async () => {
      const chain: { id: number }[] = [];
      for (let level = 1; level <= 20; level++) {
        chain.push(await create({ name: `Level ${level}`, parent: chain.at(-1)?.id ?? 0 }));
      }
      const deeper = await s.post('/categories', { name: 'Level 21', parent: chain[19].id });
      expect(deeper.status).toBe(400);
      expect(deeper.body.data.params.parent).toBe(
        'categories nest at most 20 levels: under this parent the category would be at level 21.',
      );
      // A category with a child, moved under level 19: the child would be at level 21.
      const top = await create({ name: 'Branch' });
      await create({ name: 'Twig', parent: top.id });
      const moved = await s.request('PATCH', `/categories/${top.id}`, { body: { parent: chain[18].id } });
      expect(moved.status).toBe(400);
      expect(moved.body.data.params.parent).toMatch(/^categories nest at most 20 levels: .* at level 21\.$/);
      expect((await s.request('PATCH', `/categories/${top.id}`, { body: { parent: chain[17].id } })).status).toBe(200);
      // A loop is still a loop, however deep.
      const loop = await s.request('PATCH', `/categories/${chain[0].id}`, { body: { parent: chain[15].id } });
      expect(loop.body.data.params.parent).toBe('parent would make the category its own ancestor.');
    });

    it('answers 404 for an unknown ID', async () => {
      const r = await s.request('PATCH', '/categories/999999', { body: { name: 'Ghost' } });
      expect(r.status).toBe(404);
      expect(r.body.code).toBe('rest-category-not-found');
    });
  });

  describe('delete', () => {
    it('deletes for good, answers with the term as it was, and moves its children up', async () => {
      const top = await create({ name: 'Outdoors' });
      const mid = await create({ name: 'Hiking', parent: top.id });
      const leaf = await create({ name: 'Night Hikes', parent: mid.id });
      const r = await s.request('DELETE', `/categories/${mid.id}`);
      expect(r.status).toBe(200);
      // The term as it was, without links to what is gone.
      const { _links: _gone, ...unlinked } = mid;
      expect(r.body).toEqual(unlinked);
      expect(await s.db.prisma.term.findUnique({ where: { id: mid.id } })).toBeNull();
      expect((await s.get(`/categories/${leaf.id}`)).body.parent).toBe(top.id);
      const again = await s.request('DELETE', `/categories/${mid.id}`);
      expect(again.status).toBe(404);
    });
  });

  describe('list', () => {
    let ids: Record<string, number>;
    let eventId: number;

    beforeAll(async () => {
      // A calendar of its own: these names are used by no other test of this file.
      const parent = await create({ name: 'Xq Festivals', description: 'big ones' });
      const child = await create({ name: 'Xq Folk', parent: parent.id });
      const empty = await create({ name: 'Xq Empty' });
      const draftOnly = await create({ name: 'Xq Drafts' });
      ids = { parent: parent.id, child: child.id, empty: empty.id, draftOnly: draftOnly.id };
      eventId = (await insertEvent(s.db, { termIds: [parent.id, child.id] })).id;
      await insertEvent(s.db, { termIds: [child.id] });
      await insertEvent(s.db, { status: 'draft', termIds: [draftOnly.id] });
    });

    const names = (r: { body: { categories: { name: string }[] } }) => r.body.categories.map((c) => c.name);

    it('hides terms no published event carries, unless hide_empty is false', async () => {
      const r = await s.get('/categories?search=Xq');
      expect(names(r)).toEqual(['Xq Festivals', 'Xq Folk']);
      expect(r.body.categories.map((c: { count: number }) => c.count)).toEqual([1, 2]);
      for (const flag of ['false', '0']) {
        expect(names(await s.get(`/categories?search=Xq&hide_empty=${flag}`))).toEqual([
          'Xq Drafts',
          'Xq Empty',
          'Xq Festivals',
          'Xq Folk',
        ]);
      }
    });

    it('answers with the envelope, totals in the body and in the headers', async () => {
      const r = await s.get('/categories?search=Xq&hide_empty=false&per_page=3');
      expect(Object.keys(r.body)).toEqual(['rest_url', 'total', 'total_pages', 'categories', 'next_rest_url']);
      expect(r.body).toMatchObject({ total: 4, total_pages: 2 });
      expect(r.headers.get('x-tec-total')).toBe('4');
      expect(r.headers.get('x-tec-totalpages')).toBe('2');
      expect(r.headers.get('x-wp-total')).toBe('4');
      expect(r.headers.get('x-wp-totalpages')).toBe('2');
      expect(r.headers.get('link')).toBe(
        `<${s.origin}/wp-json/>; rel="https://api.w.org/", <${r.body.next_rest_url}>; rel="next"`,
      );
      const next = new URL(r.body.next_rest_url);
      expect(Object.fromEntries(next.searchParams)).toMatchObject({
        page: '2',
        per_page: '3',
        search: 'Xq',
        hide_empty: 'false',
      });

      const page2 = await s.get(`/categories${next.search}`);
      expect(names(page2)).toEqual(['Xq Folk']);
      expect(page2.body.next_rest_url).toBeUndefined();
      expect(new URL(page2.body.previous_rest_url).searchParams.get('page')).toBeNull();
      expect(page2.headers.get('link')).toBe(
        `<${s.origin}/wp-json/>; rel="https://api.w.org/", <${page2.body.previous_rest_url}>; rel="prev"`,
      );
    });

    it('answers a page past the end with 200, an empty array and no next link', async () => {
      const r = await s.get('/categories?search=Xq&page=9');
      expect(r.status).toBe(200);
      expect(r.body.categories).toEqual([]);
      expect(r.body.total).toBe(2);
      expect(r.body.next_rest_url).toBeUndefined();
    });

    it('clamps per_page to 50 and refuses page or per_page below 1 or not integers', async () => {
      expect(new URL((await s.get('/categories?per_page=500')).body.rest_url).searchParams.get('per_page')).toBe('50');
      for (const q of ['page=0', 'per_page=0', 'per_page=-3', 'page=abc', 'per_page=1.5']) {
        const r = await s.get(`/categories?${q}`);
        expect(r.status, q).toBe(400);
        expect(r.body.code).toBe('rest_invalid_param');
        expect(Object.keys(r.body.data.params)).toEqual([q.split('=')[0]]);
      }
    });

    it('filters by include and exclude, as lists or repeated keys', async () => {
      const { parent, child, empty } = ids;
      expect(names(await s.get(`/categories?hide_empty=0&include=${parent},${empty}`))).toEqual([
        'Xq Empty',
        'Xq Festivals',
      ]);
      expect(names(await s.get(`/categories?hide_empty=0&include[]=${parent}&include[]=${child}`))).toEqual([
        'Xq Festivals',
        'Xq Folk',
      ]);
      expect(names(await s.get(`/categories?search=Xq&exclude=${child}`))).toEqual(['Xq Festivals']);
    });

    it('orders by the attribute and direction asked, or by the include list', async () => {
      const { parent, child, empty } = ids;
      expect(names(await s.get('/categories?search=Xq&order=desc'))).toEqual(['Xq Folk', 'Xq Festivals']);
      expect(names(await s.get('/categories?search=Xq&orderby=count&order=desc'))).toEqual(['Xq Folk', 'Xq Festivals']);
      expect(
        names(await s.get(`/categories?hide_empty=0&include=${empty},${child},${parent}&orderby=include`)),
      ).toEqual(['Xq Empty', 'Xq Folk', 'Xq Festivals']);
      const bad = await s.get('/categories?orderby=colour');
      expect(bad.status).toBe(400);
      expect(bad.body.data.params).toHaveProperty('orderby');
    });

    it('filters by parent, slug and search', async () => {
      expect(names(await s.get(`/categories?parent=${ids.parent}`))).toEqual(['Xq Folk']);
      expect(names(await s.get('/categories?slug=xq-folk'))).toEqual(['Xq Folk']);
      expect(names(await s.get('/categories?slug=xq-folk,xq-festivals'))).toEqual(['Xq Festivals', 'Xq Folk']);
      expect(names(await s.get('/categories?search=FOLK'))).toEqual(['Xq Folk']);
      expect((await s.get('/categories?search=')).status).toBe(400);
    });

    it('filters by the terms of an event with post or its alias event', async () => {
      expect(names(await s.get(`/categories?post=${eventId}`))).toEqual(['Xq Festivals', 'Xq Folk']);
      expect(names(await s.get(`/categories?event=${eventId}`))).toEqual(['Xq Festivals', 'Xq Folk']);
      const unknown = await s.get('/categories?event=999999');
      expect(unknown.status).toBe(400);
      expect(unknown.body.data.params).toHaveProperty('event');
    });

    it('answers the same under a locale segment, with links in that locale', async () => {
      const r = await s.get('/categories?search=Xq', { locale: '/fr' });
      expect(r.status).toBe(200);
      expect(names(r)).toEqual(['Xq Festivals', 'Xq Folk']);
      expect(r.body.rest_url.startsWith(`${s.origin}/fr/wp-json/calendar/events/v1/categories/?`)).toBe(true);
    });
  });
});
