// The per-object rules behind the role minimums, shown on venues (organizers share the code):
// contributors work on their own unpublished items, authors publish their own, editors do all.
import { expect, it } from 'vitest';
import { describeEachDatabase } from '../setup/each-database.js';

describeEachDatabase('ownership and status rules', (s) => {
  let n = 0;
  const make = async (as: 'administrator' | 'editor' | 'author' | 'contributor', body: object = {}) => {
    const r = await s.post('/venues', { venue: `Owned ${++n}`, ...body }, { as });
    expect(r.status, JSON.stringify(r.body)).toBe(201);
    return r.body;
  };

  it('gives contributors drafts, and pending when they ask to publish', async () => {
    expect((await make('contributor')).status).toBe('draft');
    expect((await make('contributor', { status: 'publish' })).status).toBe('pending');
    expect((await make('contributor', { status: 'private' })).status).toBe('pending');
    expect((await make('author')).status).toBe('publish');
    expect((await make('author', { status: 'draft' })).status).toBe('draft');
  });

  it('lets contributors change and trash their own drafts only', async () => {
    const own = await make('contributor');
    expect((await s.post(`/venues/${own.id}`, { city: 'Lyon' }, { as: 'contributor' })).status).toBe(200);
    const published = await s.post(`/venues/${own.id}`, { status: 'publish' }, { as: 'contributor' });
    expect(published.body.status).toBe('pending');
    await s.post(`/venues/${own.id}`, { status: 'publish' }, { as: 'editor' });
    const afterPublish = await s.post(`/venues/${own.id}`, { city: 'Nice' }, { as: 'contributor' });
    expect(afterPublish.status).toBe(403);
    expect((await s.request('DELETE', `/venues/${own.id}`, { as: 'contributor' })).status).toBe(403);

    const second = await make('contributor');
    expect((await s.request('DELETE', `/venues/${second.id}`, { as: 'contributor' })).body.status).toBe('trash');
    const othersDraft = await make('author', { status: 'draft' });
    expect((await s.post(`/venues/${othersDraft.id}`, { city: 'X' }, { as: 'contributor' })).status).toBe(403);
  });

  it('lets authors publish, change and trash their own items, but not others', async () => {
    const own = await make('author');
    expect((await s.post(`/venues/${own.id}`, { city: 'Oslo' }, { as: 'author' })).body.city).toBe('Oslo');
    const others = await make('editor');
    expect((await s.post(`/venues/${others.id}`, { city: 'Oslo' }, { as: 'author' })).status).toBe(403);
    expect((await s.request('DELETE', `/venues/${others.id}`, { as: 'author' })).status).toBe(403);
    expect((await s.request('DELETE', `/venues/${own.id}`, { as: 'author' })).body.status).toBe('trash');
    const forced = await s.request('DELETE', `/venues/${own.id}?force=true`, { as: 'author' });
    expect(forced.status).toBe(403);
    expect(await s.db.prisma.venue.findUnique({ where: { id: own.id } })).not.toBeNull();
  });

  it('hides unpublished items from those who may not edit them, in lists and single reads', async () => {
    const draft = await make('contributor', { venue: 'Secret draft place' });
    const q = '/venues?search=Secret%20draft';
    expect((await s.get(q, { as: 'contributor' })).body.total).toBe(1);
    for (const as of [null, 'subscriber', 'author'] as const) {
      expect((await s.get(q, { as })).body.total, String(as)).toBe(0);
      const single = await s.get(`/venues/${draft.id}`, { as });
      expect(single.status).toBe(403);
      expect(single.body.code).toBe('venue-not-accessible');
      expect(single.text).not.toContain('Secret');
    }
    expect((await s.get(`/venues/by-slug/${draft.slug}`, { as: 'editor' })).status).toBe(200);
    expect((await s.get(q, { as: 'editor' })).body.total).toBe(1);
  });

  it('makes the caller the author; only editors may name another user', async () => {
    const byEditor = await make('editor', { author: s.users.author.id });
    expect(byEditor.author).toBe(String(s.users.author.id));
    const refused = await s.post(
      '/venues',
      { venue: `Other author ${++n}`, author: s.users.editor.id },
      { as: 'author' },
    );
    expect(refused.status).toBe(403);
    expect(refused.body.code).toBe('rest_forbidden');
    const self = await make('author', { author: s.users.author.id });
    expect(self.author).toBe(String(s.users.author.id));
    const unknown = await s.post('/venues', { venue: `Ghost author ${++n}`, author: 999999 }, { as: 'editor' });
    expect(unknown.status).toBe(400);
    expect(unknown.body.data.params).toHaveProperty('author');
  });
});
