// Data kept by triggers instead of being computed on every read: a term's count (migration
// term_event_count) and the listed start each link carries (migration link_listed_start). After
// every kind of write, they must equal what recomputing them from the stored rows gives.
import { expect, it } from 'vitest';
import { describeEachDatabase } from '../setup/each-database.js';

describeEachDatabase('derived data', (s) => {
  /** Every term's count as the API shows it, and as a recount of published events finds it. */
  async function counts() {
    const shown = new Map<number, number>();
    for (const collection of ['categories', 'tags']) {
      const r = await s.get(`/${collection}?hide_empty=false&per_page=100`);
      for (const term of r.body[collection]) shown.set(term.id, term.count);
    }
    const rows = await s.db.prisma.term.findMany({
      select: { id: true, events: { where: { event: { status: 'publish' } }, select: { eventId: true } } },
    });
    const recount = new Map(rows.map((row) => [row.id, row.events.length]));
    return { shown, recount };
  }

  async function expectExact() {
    const { shown, recount } = await counts();
    expect(shown).toEqual(recount);
    for (const table of ['event_venues', 'event_organizers', 'event_terms']) {
      const [{ wrong }] = await s.db.prisma.$queryRawUnsafe<{ wrong: number }[]>(
        `SELECT count(*)::int AS wrong FROM ${table} l JOIN events e ON e.id = l.event_id
         WHERE l.listed_start_utc IS DISTINCT FROM CASE WHEN e.status = 'publish' AND NOT e.hide_from_listings THEN e.start_utc END`,
      );
      expect(wrong, table).toBe(0);
    }
    return shown;
  }

  it('follows links and statuses through creation, updates, trash and deletion', async () => {
    const jazz = (await s.post('/categories', { name: 'Jazz' })).body.id;
    const folk = (await s.post('/categories', { name: 'Folk' })).body.id;
    const free = (await s.post('/tags', { name: 'Free' })).body.id;
    const event = (body: object) =>
      s.post('/events', { start_date: '2030-05-01 19:00', end_date: '2030-05-01 21:00', ...body });

    const a = (await event({ title: 'A', categories: [jazz], tags: [free] })).body;
    const b = (await event({ title: 'B', categories: [jazz, folk], status: 'draft' })).body;
    expect((await expectExact()).get(jazz)).toBe(1);

    await s.post(`/events/${b.id}`, { status: 'publish' });
    expect((await expectExact()).get(jazz)).toBe(2);

    await s.post(`/events/${a.id}`, { categories: [folk], tags: ['New Tag'] });
    let shown = await expectExact();
    expect([shown.get(jazz), shown.get(folk), shown.get(free)]).toEqual([1, 2, 0]);

    await s.post(`/events/${a.id}`, {
      start_date: '2030-05-02 19:00',
      end_date: '2030-05-02 21:00',
      venue: { venue: 'Moved Hall' },
      organizer: [{ organizer: 'Moved Org' }],
    });
    await s.post(`/events/${a.id}`, { hide_from_listings: true });
    await expectExact();
    await s.post(`/events/${a.id}`, { hide_from_listings: false });
    await s.request('DELETE', `/events/${b.id}`); // to the trash: no longer published
    shown = await expectExact();
    expect([shown.get(jazz), shown.get(folk)]).toEqual([0, 1]);

    await s.post(`/events/${b.id}`, { status: 'publish' });
    expect((await expectExact()).get(jazz)).toBe(1);

    await s.request('DELETE', `/events/${b.id}?force=true`);
    await s.request('DELETE', `/events/${a.id}?force=true`);
    shown = await expectExact();
    expect([shown.get(jazz), shown.get(folk)]).toEqual([0, 0]);
  });

  it('stays exact when many events with the same terms are written at once', async () => {
    const shared = [
      (await s.post('/categories', { name: 'Crowded' })).body.id,
      (await s.post('/categories', { name: 'Busy' })).body.id,
    ];
    const writes = Array.from({ length: 16 }, (_, i) =>
      s.post('/events', {
        title: `Concurrent ${i}`,
        start_date: '2030-06-01 10:00',
        end_date: '2030-06-01 11:00',
        categories: i % 2 ? shared : [...shared].reverse(),
        tags: ['Shared Tag'],
      }),
    );
    const statuses = (await Promise.all(writes)).map((r) => r.status);
    expect(statuses).toEqual(statuses.map(() => 201));
    const shown = await expectExact();
    expect(shared.map((id) => shown.get(id))).toEqual([16, 16]);
  });

  it('orders by the count it shows, and hides only terms without published events', async () => {
    const rare = (await s.post('/tags', { name: 'Zz Rare' })).body.id;
    const common = (await s.post('/tags', { name: 'Zz Common' })).body.id;
    const event = (tags: number[], status = 'publish') =>
      s.post('/events', {
        title: 'Tagged',
        start_date: '2030-07-01 10:00',
        end_date: '2030-07-01 11:00',
        tags,
        status,
      });
    await event([rare, common]);
    await event([common]);
    await event([rare], 'draft');
    await event([rare], 'draft');
    const r = await s.get('/tags?search=Zz&orderby=count&order=desc');
    expect(r.body.tags.map((t: { name: string; count: number }) => [t.name, t.count])).toEqual([
      ['Zz Common', 2],
      ['Zz Rare', 1],
    ]);
    const only = (await s.post('/tags', { name: 'Zz Drafts Only' })).body.id;
    await event([only], 'draft');
    expect((await s.get('/tags?search=Zz')).body.tags.map((t: { id: number }) => t.id)).not.toContain(only);
  });
});
