// Event reads go through one hand-written SQL statement (queries/event-rows.ts) and public list
// totals through the day counts (migration listed_events_per_day). Both must give exactly what the
// plain way gives: Prisma's include for the rows, a count of the events for the totals.
import fc from 'fast-check';
import { expect, it } from 'vitest';
import { Prisma } from '../../generated/prisma/client.js';
import { eventInclude, ORGANIZER, VENUE } from '../../src/domain/records.js';
import { selectEvents } from '../../src/queries/event-rows.js';
import { selectVenuesOrOrganizers } from '../../src/queries/venue-organizer-list.js';
import { listScope } from '../../src/auth/permissions.js';
import { describeEachDatabase } from '../setup/each-database.js';

describeEachDatabase('event reads', (s) => {
  it('loads every field and link exactly as Prisma does', async () => {
    const venue = (await s.post('/venues', { venue: 'Hall', city: 'Lyon', geo_lat: 45.76, geo_lng: 4.83 })).body.id;
    const organizers = [
      (await s.post('/organizers', { organizer: 'Zed' })).body.id,
      (await s.post('/organizers', { organizer: 'Amy', email: 'a@example.org' })).body.id,
    ];
    const parent = (await s.post('/categories', { name: 'Music' })).body.id;
    await s.post('/categories', { name: 'Jazz', parent });
    const events = [
      {
        title: 'Full',
        start_date: '2030-03-30 22:00',
        end_date: '2030-03-31 04:00',
        timezone: 'Europe/Paris',
        venue,
        organizer: organizers,
        categories: ['Jazz', 'Music'],
        tags: ['Late', 'Loud'],
        cost: ['€5', '€10'],
        website: 'https://example.org/full',
        featured: true,
        sticky: true,
        image: 'https://example.org/i.png',
      },
      { title: 'Bare', start_date: '2030-01-01', end_date: '2030-01-01', all_day: true, status: 'draft' },
      {
        title: 'Offset',
        start_date: '2030-06-01 10:00:00',
        end_date: '2030-06-01 12:30:00',
        timezone: 'UTC+5:30',
        cost: 12.5,
        hide_from_listings: true,
        description: '<p>“Quotes” & ünïcode 🎷</p>',
      },
      {
        title: 'Free',
        start_date: '2030-07-01 10:00',
        end_date: '2030-07-01 11:00',
        cost: 'Free',
        venue: { venue: 'New Place', address: '1 Road' },
        show_map: true,
        show_map_link: true,
      },
    ];
    for (const event of events) expect((await s.post('/events', event)).status).toBe(201);

    // The RSVP counts are this read's own (Prisma has no sum of guests to compare): none here, all zero.
    const byTerm = (rows: { terms: { termId: number }[]; rsvpCounts?: unknown }[]) =>
      rows.map(({ rsvpCounts, ...row }) => {
        if (rsvpCounts !== undefined) expect(rsvpCounts).toEqual({ going: 0, waiting: 0, checked_in: 0 });
        return { ...row, terms: [...row.terms].sort((a, b) => a.termId - b.termId) };
      });
    const expected = await s.db.prisma.event.findMany({ include: eventInclude, orderBy: { id: 'asc' } });
    const actual = await selectEvents(s.db.prisma, { where: Prisma.sql`TRUE`, orderBy: Prisma.sql`ORDER BY e.id` });
    expect(expected.length).toBe(events.length);
    expect(byTerm(actual)).toEqual(byTerm(expected));
    expect(actual[0].startLocal).toBeInstanceOf(Date);
    // Outside a transaction the statement runs on the driver; inside one, through Prisma: the same rows.
    const inTransaction = await s.db.prisma.$transaction((tx) =>
      selectEvents(tx, { where: Prisma.sql`TRUE`, orderBy: Prisma.sql`ORDER BY e.id` }),
    );
    expect(byTerm(inTransaction)).toEqual(byTerm(expected));
  });

  it('totals the public list over any window exactly as counting its events would', async () => {
    // Events on day boundaries and in between, some hidden, drafts or trashed.
    const base = Date.UTC(2031, 0, 1);
    const hour = 3_600_000;
    const starts = [0, 1, 23, 24, 24.5, 47.99, 48, 72, 95, 96, 120, 121, 150].map((h) => new Date(base + h * hour));
    for (const [i, start] of starts.entries()) {
      const status = boundaryStatus(i);
      const date = start.toISOString().slice(0, 19).replace('T', ' ');
      const r = await s.post('/events', {
        title: `Boundary ${i}`,
        start_date: date,
        end_date: date,
        timezone: 'UTC',
        status,
        hide_from_listings: i % 4 === 2,
      });
      expect(r.status).toBe(201);
    }
    // And one moved to another day and unhidden, and one deleted for good, after creation.
    const moved = (await s.get('/events?start_date=2031-01-01&end_date=2031-01-31&per_page=1')).body.events[0].id;
    await s.post(`/events/${moved}`, {
      start_date: '2031-01-06 00:00:00',
      end_date: '2031-01-06 01:00:00',
      hide_from_listings: false,
    });

    const instant = fc.integer({ min: -24, max: 170 * 60 }).map((minutes) => new Date(base + minutes * 60_000));
    await fc.assert(
      fc.asyncProperty(instant, instant, async (from, to) => {
        const format = (d: Date) => d.toISOString().slice(0, 19).replace('T', ' ');
        const r = await s.get(
          `/events?start_date=${encodeURIComponent(format(from))}&end_date=${encodeURIComponent(format(to))}&per_page=1`,
          { as: null },
        );
        const counted = await s.db.prisma.event.count({
          where: { status: 'publish', hideFromListings: false, startUtc: { gte: from, lte: to } },
        });
        expect(r.body.total).toBe(counted);
      }),
      { numRuns: 60 },
    );
  });
});

describeEachDatabase('venue and organizer lists', (s) => {
  it('read venues and organizers exactly as Prisma does', async () => {
    await s.post('/venues', {
      venue: 'Hall A',
      city: 'Lyon',
      geo_lat: 45.76,
      geo_lng: 4.83,
      phone: '+33 1',
      website: 'https://a.example.org',
    });
    await s.post('/venues', { venue: 'Hall B', status: 'draft', address: '2 Rue', zip: '69001' });
    await s.post('/organizers', { organizer: 'Org', email: 'o@example.org', date: '2020-02-02 10:00:00' });
    const editor = { id: s.users.editor.id, login: 'editor', role: 'editor' as const };
    for (const [linked, rows] of [
      [VENUE, await s.db.prisma.venue.findMany({ orderBy: [{ publishedAt: 'desc' }, { id: 'desc' }] })],
      [ORGANIZER, await s.db.prisma.organizer.findMany({ orderBy: [{ publishedAt: 'desc' }, { id: 'desc' }] })],
    ] as const) {
      const scope = listScope(editor, undefined);
      const listed = await selectVenuesOrOrganizers(
        s.db.prisma,
        linked,
        { scope, readableEvents: scope },
        { take: 50, skip: 0 },
      );
      expect(listed.items).toEqual(rows);
      expect(listed.total).toBe(rows.length);
    }
  });
});

/** A mix of statuses over the boundary events: some drafts, some in the trash, the rest published. */
function boundaryStatus(i: number): 'draft' | 'trash' | 'publish' {
  if (i % 5 === 3) return 'draft';
  return i % 7 === 6 ? 'trash' : 'publish';
}
