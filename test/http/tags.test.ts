import { expect, it } from 'vitest';
import { insertEvent } from '../factories.js';
import { describeEachDatabase } from '../setup/each-database.js';

describeEachDatabase('tags', (s) => {
  it('creates a tag in the tag representation (no parent), with a Location', async () => {
    const r = await s.post('/tags', { name: 'Live music', description: 'Events with live performers.' });
    expect(r.status).toBe(201);
    expect(r.headers.get('location')).toBe(`${s.base}/tags/${r.body.id}`);
    expect(r.body).toEqual({
      id: r.body.id,
      count: 0,
      description: 'Events with live performers.',
      name: 'Live music',
      slug: 'live-music',
      taxonomy: 'post_tag',
      meta: [],
      url: `${s.origin}/tag/live-music/`,
      urls: { self: `${s.base}/tags/${r.body.id}`, collection: `${s.base}/tags` },
      _links: r.body._links,
    });
    expect(Object.keys(r.body).at(-1)).toBe('_links');
  });

  it('ignores a parent sent for a tag', async () => {
    const r = await s.post('/tags', { name: 'Outdoor', parent: 1 });
    expect(r.status).toBe(201);
    expect(r.body).not.toHaveProperty('parent');
    expect((await s.db.prisma.term.findUnique({ where: { id: r.body.id } }))?.parentId).toBeNull();
  });

  it('keeps tag and category slugs apart', async () => {
    const category = await s.post('/categories', { name: 'Indoor' });
    const tag = await s.post('/tags', { name: 'Indoor' });
    expect([category.body.slug, tag.body.slug]).toEqual(['indoor', 'indoor']);
    expect((await s.get(`/tags/${category.body.id}`)).body.code).toBe('rest-tag-not-found');
  });

  it('updates partially and deletes for good', async () => {
    const t = (await s.post('/tags', { name: 'Temporary', description: 'soon gone' })).body;
    const patched = await s.request('PATCH', `/tags/${t.id}`, { form: { name: 'Short-lived' } });
    expect(patched.body).toMatchObject({ name: 'Short-lived', slug: 'temporary', description: 'soon gone' });
    const deleted = await s.request('DELETE', `/tags/${t.id}`);
    expect(deleted.status).toBe(200);
    // Deleted for good: the term as it was, without links to what is gone.
    const { _links: links, ...unlinked } = patched.body;
    expect(links.self[0].href).toBe(`${s.base}/tags/${t.id}`);
    expect(deleted.body).toEqual(unlinked);
    expect((await s.get(`/tags/${t.id}`)).status).toBe(404);
  });

  it('lists tags with counts of published events, hiding empty ones by default', async () => {
    const kids = (await s.post('/tags', { name: 'Kids' })).body;
    await insertEvent(s.db, { termIds: [kids.id] });
    await insertEvent(s.db, { status: 'trash', termIds: [kids.id] });
    const r = await s.get('/tags');
    expect(r.body.tags.map((t: { name: string; count: number }) => [t.name, t.count])).toEqual([['Kids', 1]]);
    expect(Object.keys(r.body)).toEqual(['rest_url', 'total', 'total_pages', 'tags']);
    const all = await s.get('/tags?hide_empty=false&orderby=slug&order=desc');
    expect(all.body.tags.map((t: { slug: string }) => t.slug)).toEqual(['outdoor', 'live-music', 'kids', 'indoor']);
  });

  it('ignores parent in a tag list, as tags have no parents', async () => {
    const all = await s.get('/tags?hide_empty=false');
    const r = await s.get('/tags?hide_empty=false&parent=abc');
    expect(r.status).toBe(200);
    expect(r.body.tags).toEqual(all.body.tags);
  });

  it('settles concurrent creates: distinct derived slugs, and one winner for one name', async () => {
    const names = ['Rock', 'Rock!', 'rock?', 'ROCK.', 'Rock…'];
    const created = await Promise.all(names.map((name) => s.post('/tags', { name })));
    expect(created.map((r) => r.status)).toEqual([201, 201, 201, 201, 201]);
    expect(created.map((r) => r.body.slug).sort()).toEqual(['rock', 'rock-2', 'rock-3', 'rock-4', 'rock-5']);
    const same = await Promise.all(Array.from({ length: 5 }, () => s.post('/tags', { name: 'Jazz Club' })));
    expect(same.filter((r) => r.status === 201).length).toBe(1);
    expect(same.filter((r) => r.status === 400).every((r) => r.body.code === 'term_exists')).toBe(true);
    expect(await s.db.prisma.term.count({ where: { name: { equals: 'Jazz Club', mode: 'insensitive' } } })).toBe(1);
  });
});
