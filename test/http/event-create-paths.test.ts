// An event is created by one function (src/services/events/create.ts insertEvent) in one of two
// transactions: the driver's for the common case (no series, links by ID), Prisma's for any other
// (and the importer's). The statements are the same text in both, but the two transactions pass
// parameters through different code (the driver's own types, Prisma's driver adapter): this test
// writes the same events in both and compares every stored column and link.
import { expect, it } from 'vitest';
import { insertEvent } from '../../src/services/events/create.js';
import { inTransaction } from '../../src/services/retry.js';
import { describeEachDatabase } from '../setup/each-database.js';

describeEachDatabase('an event created in either transaction', (s, kind) => {
  /** The stored row and links of an event, without what differs by nature (ID, slug, times of writing). */
  const stored = async (id: number) => {
    const [row] = await s.db.prisma.$queryRawUnsafe<Record<string, unknown>[]>(
      `SELECT to_jsonb(e) - 'id' - 'slug' - 'modified_at' - 'published_at' - 'search_vector' AS row,
         (SELECT jsonb_agg(jsonb_build_array(venue_id, position) ORDER BY position) FROM event_venues WHERE event_id = e.id) AS venues,
         (SELECT jsonb_agg(jsonb_build_array(organizer_id, position) ORDER BY position) FROM event_organizers WHERE event_id = e.id) AS organizers,
         (SELECT jsonb_agg(term_id ORDER BY term_id) FROM event_terms WHERE event_id = e.id) AS terms
       FROM events e WHERE e.id = $1`,
      id,
    );
    return row;
  };

  it('stores the same columns and links whichever transaction writes them', async () => {
    const venue = (await s.post('/venues', { venue: `Paths venue ${kind}` })).body;
    const organizers = await Promise.all(
      [1, 2].map(async (n) => (await s.post('/organizers', { organizer: `Paths organizer ${kind} ${n}` })).body),
    );
    const category = (await s.post('/categories', { name: `Paths category ${kind}` })).body;
    const tag = (await s.post('/tags', { name: `Paths tag ${kind}` })).body;
    const inputs = [
      {
        title: '  Paths, every field  ',
        description: '<p>All of it.</p>',
        excerpt: 'Short',
        start_date: '2031-06-01 19:30:00',
        end_date: '2031-06-01 22:00:00',
        timezone: 'Europe/Paris',
        cost: '10 – 25',
        website: 'https://example.org/paths',
        image: 'https://example.org/paths.png',
        show_map: false,
        show_map_link: false,
        hide_from_listings: true,
        sticky: true,
        featured: true,
        status: 'publish',
        venue: venue.id,
        organizer: [organizers[1].id, organizers[0].id],
        categories: [category.id],
        tags: [tag.id],
      },
      { title: 'Paths, all day', start_date: '2031-06-02', end_date: '2031-06-03', all_day: true, status: 'draft' },
      { title: 'Paths, the least', start_date: '2031-06-04 10:00', end_date: '2031-06-04 11:00', cost: '' },
    ];
    const admin = { id: s.users.administrator.id, login: 'administrator', role: 'administrator' as const };
    const ctx = { db: s.db.prisma, caller: admin, siteZone: 'UTC', now: new Date() };
    for (const input of inputs) {
      const created = await s.post('/events', input);
      expect(created.status).toBe(201);
      const throughPrisma = await inTransaction(ctx, (tx) => insertEvent(tx, ctx, input as never));
      expect(await stored(throughPrisma), input.title).toEqual(await stored(created.body.id as number));
    }
  });
});
