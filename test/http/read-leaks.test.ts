// What callers who may not read an object learn of it through lists, filters and counts: nothing.
// An object they may not read answers as one that does not exist. Also: naming a new term in an
// event creates it only for callers who may create terms, and IDs beyond PostgreSQL integers are 400s.
import { beforeAll, expect, it } from 'vitest';
import type { Role } from '../../src/auth/roles.js';
import { describeEachDatabase } from '../setup/each-database.js';
import { storedRows } from '../setup/stored-rows.js';

const MISSING = 2_000_000_000;

describeEachDatabase('what unreadable objects leak', (s) => {
  let draft: any;
  let privateEvent: any;
  let draftVenue: any;
  const readers: (Role | null)[] = [null, 'subscriber', 'contributor'];

  beforeAll(async () => {
    const times = { start_date: '2035-05-05 10:00', end_date: '2035-05-05 11:00' };
    draft = (
      await s.post('/events', {
        title: 'Secret draft',
        status: 'draft',
        ...times,
        categories: ['Secret category'],
        tags: ['secret-tag'],
        venue: { venue: 'Draft-linked hall' },
        organizer: { organizer: 'Draft-linked host' },
      })
    ).body;
    privateEvent = (
      await s.post('/events', {
        title: 'Private party',
        status: 'private',
        ...times,
        venue: { venue: 'Private hall' },
        organizer: { organizer: 'Private host' },
      })
    ).body;
    draftVenue = (await s.post('/venues', { venue: 'Unpublished hall', status: 'draft' })).body;
    await s.post('/events', { title: 'Public show', ...times, venue: { venue: 'Public hall' } });
  });

  const answer = async (path: string, as: Role | null) => {
    const r = await s.get(path, { as });
    return { status: r.status, body: r.body };
  };

  it('answers term, venue and organizer lists filtered by an unreadable event as for a missing one', async () => {
    for (const as of readers) {
      for (const path of [
        '/categories?event=',
        '/categories?post=',
        '/tags?event=',
        '/tags?post=',
        '/venues?event=',
        '/organizers?event=',
      ]) {
        for (const event of [draft, privateEvent]) {
          const leaked = await answer(`${path}${event.id}`, as);
          const missing = await answer(`${path}${MISSING}`, as);
          expect({ as, path, ...leaked }).toEqual({ as, path, ...missing });
          expect(leaked.status).toBe(400);
        }
      }
    }
    // Those who may read the event still get its terms.
    expect(
      (await s.get(`/categories?event=${draft.id}&hide_empty=false`, { as: 'editor' })).body.categories.map(
        (c: any) => c.name,
      ),
    ).toEqual(['Secret category']);
  });

  it('answers event lists filtered by an unreadable venue or parent as for a missing one', async () => {
    for (const as of readers) {
      const leaked = await s.get(`/events?venue=${draftVenue.id}`, { as });
      const missing = await s.get(`/events?venue=${MISSING}`, { as });
      expect([leaked.status, leaked.body.code]).toEqual([missing.status, missing.body.code]);
      const parent = await s.get(`/events?post_parent=${privateEvent.id}`, { as });
      const noParent = await s.get(`/events?post_parent=${MISSING}`, { as });
      expect([parent.status, parent.body.code, parent.body.message]).toEqual([
        noParent.status,
        noParent.body.code,
        noParent.body.message,
      ]);
    }
    expect((await s.get(`/events?venue=${draftVenue.id}`, { as: 'editor' })).status).toBe(200);
  });

  it('counts only readable events for has_events and only_with_upcoming', async () => {
    for (const [collection, name] of [
      ['venues', 'venue'],
      ['organizers', 'organizer'],
    ] as const) {
      for (const as of readers) {
        for (const query of ['has_events=true', 'only_with_upcoming=true']) {
          const names = (await s.get(`/${collection}?${query}&per_page=50`, { as })).body[collection].map(
            (v: any) => v[name],
          );
          expect(names).not.toContain(`Private ${collection === 'venues' ? 'hall' : 'host'}`);
          expect(names).not.toContain(`Draft-linked ${collection === 'venues' ? 'hall' : 'host'}`);
        }
      }
      // To an editor, who may read the private event, its venue and organizer have events.
      const names = (await s.get(`/${collection}?has_events=true&per_page=50`, { as: 'editor' })).body[collection].map(
        (v: any) => v[name],
      );
      expect(names).toContain(`Private ${collection === 'venues' ? 'hall' : 'host'}`);
    }
    const withoutEvents = (await s.get('/venues?has_events=false&per_page=50', { as: null })).body.venues.map(
      (v: any) => v.venue,
    );
    expect(withoutEvents).toContain('Draft-linked hall');
    expect(withoutEvents).not.toContain('Public hall');
  });

  it('places events only by venues the caller may read (geoloc, geoloc_lat/geoloc_lng)', async () => {
    const hidden = (
      await s.post(
        '/venues',
        { venue: 'Hidden hall', status: 'draft', geo_lat: 48.85, geo_lng: 2.35 },
        { as: 'author' },
      )
    ).body;
    const shown = (
      await s.post(
        '/events',
        {
          title: 'Public show at a hidden hall',
          start_date: '2035-08-08 10:00',
          end_date: '2035-08-08 11:00',
          venue: hidden.id,
        },
        { as: 'author' },
      )
    ).body;
    const titles = async (query: string, as: Role | null) =>
      (await s.get(`/events?start_date=2035-08-01&end_date=2035-08-31&${query}`, { as })).body.events.map(
        (e: any) => e.title,
      );
    for (const as of readers) {
      expect(await titles('geoloc_lat=48.85&geoloc_lng=2.35', as)).toEqual([]);
      expect(await titles('geoloc=true', as)).toEqual([]);
      // As they see it, the event has no venue.
      expect(await titles('geoloc=false', as)).toEqual([shown.title]);
    }
    for (const as of ['author', 'editor'] as const) {
      expect(await titles('geoloc_lat=48.85&geoloc_lng=2.35', as)).toEqual([shown.title]);
      expect(await titles('geoloc=true', as)).toEqual([shown.title]);
    }
  });

  it('shows term counts of published events only, to everyone', async () => {
    for (const as of [...readers, 'editor'] as const) {
      const secret = (await s.get('/categories?hide_empty=false&search=Secret', { as })).body.categories[0];
      expect(secret.count).toBe(0);
      expect((await s.get('/categories?hide_empty=true&search=Secret', { as })).body.categories).toEqual([]);
    }
  });

  it('creates a term named in an event only for callers who may create it, and writes nothing otherwise', async () => {
    const times = { start_date: '2035-06-06 10:00', end_date: '2035-06-06 11:00' };
    for (const [as, field, value] of [
      ['contributor', 'categories', 'Contributed category'],
      ['contributor', 'tags', 'contributed-tag'],
      ['author', 'tags', 'authored-tag'],
    ] as const) {
      const before = await storedRows(s.db);
      const r = await s.post('/events', { title: `Naming ${value}`, ...times, [field]: [value] }, { as });
      expect(r.status).toBe(403);
      expect(r.body.data.params).toHaveProperty(field);
      expect(await storedRows(s.db)).toBe(before);
    }
    // Existing terms may be named by anyone who may write the event; authors may create categories.
    const ok = await s.post(
      '/events',
      { title: 'Naming existing', ...times, tags: ['secret-tag'], categories: ['Authored category'] },
      { as: 'author' },
    );
    expect(ok.status).toBe(201);
    expect(ok.body.categories.map((c: any) => c.name)).toEqual(['Authored category']);
  });

  it('answers 400 naming the field for IDs beyond PostgreSQL integers in an event body', async () => {
    const times = { start_date: '2035-07-07 10:00', end_date: '2035-07-07 11:00' };
    for (const body of [
      { categories: ['99999999999'] },
      { tags: '99999999999' },
      { categories: [2147483648] },
      { venue: '99999999999' },
      { organizer: [{ id: 99999999999 }] },
    ]) {
      const r = await s.post('/events', { title: 'Too large', ...times, ...body });
      expect(r.status).toBe(400);
      expect(Object.keys(r.body.data.params)).toEqual(Object.keys(body));
    }
  });
});
