// The event list over HTTP on both databases: the default window, every query parameter of the
// specification, visibility, order, paging and the links that carry the filters. Tests other than
// the default-window one each work in a year of their own, so they cannot see each other's events.
import { DateTime } from 'luxon';
import pg from 'pg';
import { expect, it } from 'vitest';
import type { Role } from '../../src/auth/roles.js';
import { describeEachDatabase, itOnPostgres } from '../setup/each-database.js';

describeEachDatabase('the event list', (s, dbKind) => {
  let n = 0;
  const create = async (body: Record<string, unknown>, as: Role = 'administrator') => {
    const r = await s.post('/events', { title: `Listed ${++n}`, ...body }, { as });
    expect(r.status, JSON.stringify(r.body)).toBe(201);
    return r.body;
  };
  /** An event on a day of `year` (day 1 to 300), one hour long, in UTC. */
  const on = (year: number, day: number, body: Record<string, unknown> = {}) => {
    const start = DateTime.utc(year, 1, 1, 10).plus({ days: day - 1 });
    return create({
      start_date: start.toFormat('yyyy-MM-dd HH:mm'),
      end_date: start.plus({ hours: 1 }).toFormat('yyyy-MM-dd HH:mm'),
      ...body,
    });
  };
  const inYear = (year: number, query = '', as: Role | null = 'administrator') =>
    s.get(`/events?start_date=${year}-01-01&end_date=${year}-12-31${query}`, { as });
  const ids = (r: { body: { events: { id: number }[] } }) => r.body.events.map((e) => e.id);

  it('lists by default events that start from now until two years ahead, in start order, hidden ones never', async () => {
    const now = DateTime.utc();
    const at = (t: DateTime) => t.toFormat('yyyy-MM-dd HH:mm:ss');
    const started = await create({ start_date: at(now.minus({ hours: 2 })), end_date: at(now.plus({ days: 3 })) });
    const soon = await create({ start_date: at(now.plus({ days: 2 })), end_date: at(now.plus({ days: 2, hours: 1 })) });
    const sooner = await create({
      start_date: at(now.plus({ days: 1 })),
      end_date: at(now.plus({ days: 1, hours: 1 })),
    });
    const sameStart = await create({
      start_date: at(now.plus({ days: 1 })),
      end_date: at(now.plus({ days: 1, hours: 5 })),
    });
    const nearEnd = await create({
      start_date: at(now.plus({ years: 2, days: -2 })),
      end_date: at(now.plus({ years: 2, days: -1 })),
    });
    const tooFar = await create({
      start_date: at(now.plus({ years: 2, days: 2 })),
      end_date: at(now.plus({ years: 2, days: 3 })),
    });
    const hidden = await create({
      start_date: at(now.plus({ days: 3 })),
      end_date: at(now.plus({ days: 3, hours: 1 })),
      hide_from_listings: true,
    });

    const r = await s.get('/events', { as: null });
    expect(r.status).toBe(200);
    expect(Object.keys(r.body)).toEqual(['events', 'rest_url', 'total', 'total_pages']);
    expect(ids(r)).toEqual([sooner.id, sameStart.id, soon.id, nearEnd.id]);
    expect(ids(r)).not.toContain(started.id);
    expect(ids(r)).not.toContain(tooFar.id);
    expect(ids(r)).not.toContain(hidden.id);
    expect(r.body).toMatchObject({ total: 4, total_pages: 1 });
    const restUrl = new URL(r.body.rest_url);
    expect(restUrl.origin + restUrl.pathname).toBe(`${s.base}/events/`);
    expect(restUrl.searchParams.get('per_page')).toBe('12');
    expect(restUrl.searchParams.get('start_date')).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/);
    // Hidden events stay readable by ID.
    expect((await s.get(`/events/${hidden.id}`, { as: null })).body.hide_from_listings).toBe(true);
  });

  it('pages with totals in the body and headers, links that keep every filter, and an empty page past the end', async () => {
    const category = (await s.post('/categories', { name: 'Paged' })).body;
    const tag = (await s.post('/tags', { name: 'Paged tag' })).body;
    const events = [];
    for (let day = 1; day <= 5; day++) events.push(await on(2040, day, { categories: [category.id], tags: [tag.id] }));
    await on(2040, 6); // not in the category

    const query = `&categories=${category.slug}&tags=${tag.id}&per_page=2`;
    const first = await inYear(2040, query);
    expect(ids(first)).toEqual([events[0].id, events[1].id]);
    expect(Object.keys(first.body)).toEqual(['events', 'rest_url', 'next_rest_url', 'total', 'total_pages']);
    expect(first.body).toMatchObject({ total: 5, total_pages: 3 });
    expect(first.headers.get('x-tec-total')).toBe('5');
    expect(first.headers.get('x-tec-totalpages')).toBe('3');
    expect(first.headers.get('x-wp-total')).toBe('5');
    expect(first.headers.get('x-wp-totalpages')).toBe('3');
    expect(first.headers.get('link')).toBe(
      `<${s.origin}/wp-json/>; rel="https://api.w.org/", <${first.body.next_rest_url}>; rel="next"`,
    );

    const next = new URL(first.body.next_rest_url);
    expect(next.searchParams.get('categories')).toBe(category.slug);
    expect(next.searchParams.get('tags')).toBe(String(tag.id));
    const second = await s.get(first.body.next_rest_url.slice(s.base.length));
    expect(ids(second)).toEqual([events[2].id, events[3].id]);
    expect(Object.keys(second.body)).toEqual([
      'events',
      'rest_url',
      'next_rest_url',
      'previous_rest_url',
      'total',
      'total_pages',
    ]);
    expect(new URL(second.body.previous_rest_url).searchParams.has('page')).toBe(false);
    const third = await s.get(second.body.next_rest_url.slice(s.base.length));
    expect(ids(third)).toEqual([events[4].id]);
    expect(third.body).not.toHaveProperty('next_rest_url');
    expect(third.headers.get('link')).toBe(
      `<${s.origin}/wp-json/>; rel="https://api.w.org/", <${third.body.previous_rest_url}>; rel="prev"`,
    );

    const past = await inYear(2040, `${query}&page=9`);
    expect(past.status).toBe(200);
    expect(past.body).toMatchObject({ events: [], total: 5, total_pages: 3 });
    expect(past.body).not.toHaveProperty('next_rest_url');

    expect((await inYear(2040, '&per_page=500')).body.rest_url).toContain('per_page=50');
    for (const bad of ['per_page=0', 'per_page=abc', 'page=0', 'page=-1', 'page=1.5']) {
      const r = await inYear(2040, `&${bad}`);
      expect(r.status, bad).toBe(400);
      expect(r.body.code).toBe('rest_invalid_param');
    }
  });

  it('reads the date window in the site zone, with a bare end date meaning the whole day', async () => {
    const late = await create({ start_date: '2041-03-10 23:30', end_date: '2041-03-10 23:45' });
    const nextDay = await create({ start_date: '2041-03-11 00:00', end_date: '2041-03-11 01:00' });
    expect(ids(await s.get('/events?start_date=2041-03-10&end_date=2041-03-10'))).toEqual([late.id]);
    expect(ids(await s.get('/events?start_date=2041-03-10 23:31&end_date=2041-03-11'))).toEqual([nextDay.id]);
    expect(ids(await s.get('/events?start_date=2041-03-10T23:30:00Z&end_date=2041-03-11T00:00:00Z'))).toEqual([
      late.id,
      nextDay.id,
    ]);
    expect(
      ids(await s.get(`/events?start_date=${Date.UTC(2041, 2, 10, 23, 30) / 1000}&end_date=2041-03-10 23:59:59`)),
    ).toEqual([late.id]);
    for (const bad of ['start_date=soon', 'end_date=2041-02-30', 'start_date=']) {
      const r = await s.get(`/events?${bad}`);
      expect(r.status, bad).toBe(400);
      expect(r.body.code).toBe('rest_invalid_param');
    }
  });

  it('takes the newer date filters: strict bounds on start and end, day-snapped unless strict_dates', async () => {
    const event = (start: string, end: string) => create({ start_date: start, end_date: end });
    const a = await event('2051-05-09 10:00', '2051-05-09 11:00');
    const b = await event('2051-05-10 10:00', '2051-05-12 10:00');
    const c = await event('2051-05-10 22:00', '2051-05-10 23:00');
    const d = await event('2051-05-11 09:00', '2051-05-11 10:00');
    const e = await event('2051-05-13 10:00', '2051-05-13 11:00');
    const list = async (query: string) => {
      const r = await s.get(`/events?${query}`);
      expect(r.status, `${query} ${JSON.stringify(r.body)}`).toBe(200);
      return ids(r);
    };
    // Any of them replaces the default window (2051 is far beyond it): nothing before the day's end.
    expect(await list('starts_after=2051-05-09')).toEqual([b.id, c.id, d.id, e.id]);
    expect(await list('starts_after=2051-05-08&starts_before=2051-05-10')).toEqual([a.id, b.id, c.id]);
    expect(await list('starts_after=2051-05-09&ends_before=2051-05-11')).toEqual([c.id, d.id]);
    expect(await list('starts_after=2051-05-01&ends_after=2051-05-11')).toEqual([b.id, e.id]);
    // Strict: the time counts, and the bounds themselves are out.
    expect(await list('starts_after=2051-05-10 10:00&starts_before=2051-05-11 09:00&strict_dates=true')).toEqual([
      c.id,
    ]);
    expect(await list('ends_after=2051-05-10T22:59:59Z&ends_before=2051-05-11 10:00&strict_dates=1')).toEqual([c.id]);
    // start_date and end_date still apply when given with them.
    expect(await list('start_date=2051-05-10 12:00&starts_before=2051-05-12')).toEqual([c.id, d.id]);
    expect(await list('end_date=2051-05-10 10:00&starts_after=2051-05-08')).toEqual([a.id, b.id]);
    // A bare end_date covers its day, unless the dates are strict: then it is its midnight.
    expect(await list('start_date=2051-05-10&end_date=2051-05-10')).toEqual([b.id, c.id]);
    expect(await list('start_date=2051-05-09&end_date=2051-05-10&strict_dates=true')).toEqual([a.id]);
    // include still drops every date filter.
    expect(await list(`include=${a.id}&starts_after=2051-06-01`)).toEqual([a.id]);
    // The links carry them as given.
    const r = await s.get('/events?starts_after=2051-05-09&strict_dates=true&per_page=1');
    const next = new URL(r.body.next_rest_url as string);
    expect(next.searchParams.get('starts_after')).toBe('2051-05-09');
    expect(next.searchParams.get('strict_dates')).toBe('true');
    expect(next.searchParams.get('start_date')).toBeNull();
    for (const bad of ['starts_before=soon', 'ends_after=2051-02-30', 'strict_dates=maybe', 'ticketed=perhaps']) {
      const refused = await s.get(`/events?${bad}`);
      expect(refused.status, bad).toBe(400);
      expect(refused.body.code).toBe('rest_invalid_param');
      expect(Object.keys(refused.body.data.params)).toEqual([bad.split('=')[0]]);
    }
  });

  it('takes ticketed: an event not open to RSVP is not ticketed', async () => {
    const event = await on(2050, 20);
    expect(ids(await inYear(2050, '&ticketed=true'))).toEqual([]);
    expect((await inYear(2050, '&ticketed=true')).body.total).toBe(0);
    expect(ids(await inYear(2050, '&ticketed=false'))).toEqual([event.id]);
    expect(ids(await inYear(2050))).toEqual([event.id]);
  });

  it('searches title and description without case, taking % and _ literally within words', async () => {
    const title = await on(2042, 1, { title: 'Pottery for Beginners' });
    const description = await on(2042, 2, { title: 'Wheel night', description: '<p>Bring your own POTTERY tools</p>' });
    await on(2042, 3, { title: 'Jazz' });
    const percent = await on(2042, 4, { title: '100% fun' });
    await on(2042, 5, { title: '100 percent fun' });
    expect(ids(await inYear(2042, '&search=pottery'))).toEqual([title.id, description.id]);
    expect(ids(await inYear(2042, '&search=100%25'))).toEqual([percent.id]);
    expect(ids(await inYear(2042, '&search=_'))).toEqual([]);
    // Punctuation alone begins no word (docs/decisions.md): nothing, without reading every text.
    expect(ids(await inYear(2042, '&search=%25'))).toEqual([]);
    expect((await inYear(2042, '&search=')).status).toBe(400);
  });

  it('filters by categories (with every category below them) and tags by slug or ID: OR within, AND across', async () => {
    const concerts = (await s.post('/categories', { name: 'Concerts 2043' })).body;
    const jazz = (await s.post('/categories', { name: 'Jazz 2043', parent: concerts.id })).body;
    const bebop = (await s.post('/categories', { name: 'Bebop 2043', parent: jazz.id })).body;
    const workshops = (await s.post('/categories', { name: 'Workshops 2043' })).body;
    const live = (await s.post('/tags', { name: 'Live 2043' })).body;
    const a = await on(2043, 1, { categories: [concerts.id], tags: [live.id] });
    const b = await on(2043, 2, { categories: [jazz.id] });
    const c = await on(2043, 3, { categories: [workshops.id], tags: [live.id] });
    await on(2043, 4);
    const d = await on(2043, 5, { categories: [bebop.id] });

    expect(ids(await inYear(2043, `&categories=${concerts.slug}`))).toEqual([a.id, b.id, d.id]);
    expect(ids(await inYear(2043, `&categories=${jazz.id}`))).toEqual([b.id, d.id]);
    expect(ids(await inYear(2043, `&categories=${bebop.id}`))).toEqual([d.id]);
    expect(ids(await inYear(2043, `&categories=${jazz.slug},${workshops.id}`))).toEqual([b.id, c.id, d.id]);
    expect(ids(await inYear(2043, `&categories[]=${jazz.slug}&categories[]=${workshops.slug}`))).toEqual([
      b.id,
      c.id,
      d.id,
    ]);
    expect(ids(await inYear(2043, `&tags=${live.slug}`))).toEqual([a.id, c.id]);
    expect(ids(await inYear(2043, `&categories=${concerts.id}&tags=${live.id}`))).toEqual([a.id]);
    // A reference is a slug before it is an ID: a category whose slug is another's ID wins.
    const named = (await s.post('/categories', { name: 'Numbered 2043', slug: String(workshops.id) })).body;
    expect(named.slug).toBe(String(workshops.id));
    const e = await on(2043, 6, { categories: [named.id] });
    expect(ids(await inYear(2043, `&categories=${workshops.id}`))).toEqual([e.id]);
    for (const bad of [
      'categories=no-such-category',
      `categories=${live.id}`,
      'categories=9999999999',
      'tags=99999',
      `tags=${concerts.slug}`,
    ]) {
      const r = await inYear(2043, `&${bad}`);
      expect(r.status, bad).toBe(400);
      expect(r.body.code).toBe('rest_invalid_param');
      expect(Object.keys(r.body.data.params)).toEqual([bad.split('=')[0]]);
    }
  });

  it('filters by venue and organizer IDs, and by featured', async () => {
    const v1 = (await s.post('/venues', { venue: 'Venue 2044 A' })).body;
    const v2 = (await s.post('/venues', { venue: 'Venue 2044 B' })).body;
    const o1 = (await s.post('/organizers', { organizer: 'Organizer 2044' })).body;
    const a = await on(2044, 1, { venue: v1.id, organizer: [o1.id], featured: true });
    const b = await on(2044, 2, { venue: v2.id });
    const c = await on(2044, 3);
    expect(ids(await inYear(2044, `&venue=${v1.id}`))).toEqual([a.id]);
    expect(ids(await inYear(2044, `&venue=${v1.id},${v2.id}`))).toEqual([a.id, b.id]);
    expect(ids(await inYear(2044, `&organizer=${o1.id}`))).toEqual([a.id]);
    expect(ids(await inYear(2044, `&venue=${v2.id}&organizer=${o1.id}`))).toEqual([]);
    expect(ids(await inYear(2044, '&featured=true'))).toEqual([a.id]);
    expect(ids(await inYear(2044, '&featured=0'))).toEqual([b.id, c.id]);
    for (const bad of [`venue=${o1.id}`, 'venue=999999', `organizer=${v1.id}`, 'venue=abc', 'featured=maybe']) {
      const r = await inYear(2044, `&${bad}`);
      expect(r.status, bad).toBe(400);
    }
  });

  it('lists by status as the caller may: published for anyone, drafts for those who may edit them', async () => {
    const published = await on(2045, 1);
    const adminDraft = await on(2045, 2, { status: 'draft' });
    const ownDraft = await create({ start_date: '2045-01-03 10:00', end_date: '2045-01-03 11:00' }, 'contributor');
    expect(ids(await inYear(2045, '', null))).toEqual([published.id]);
    expect(ids(await inYear(2045, '&status=publish', null))).toEqual([published.id]);
    expect((await inYear(2045, '&status=draft', null)).status).toBe(400);
    expect((await inYear(2045, '&status=draft', 'subscriber')).status).toBe(400);
    expect(ids(await inYear(2045))).toEqual([published.id, adminDraft.id, ownDraft.id]);
    expect(ids(await inYear(2045, '&status=draft'))).toEqual([adminDraft.id, ownDraft.id]);
    expect(ids(await inYear(2045, '', 'contributor'))).toEqual([published.id, ownDraft.id]);
    expect((await inYear(2045, '&status=published')).status).toBe(400);
    await s.request('DELETE', `/events/${adminDraft.id}`);
    expect(ids(await inYear(2045))).toEqual([published.id, ownDraft.id]);
    expect(ids(await inYear(2045, '&status=trash'))).toEqual([adminDraft.id]);
  });

  it('takes include without date filters, and post_parent among existing events', async () => {
    const far = await create({ start_date: '2090-01-01 10:00', end_date: '2090-01-01 11:00' });
    const past = await create({ start_date: '2001-01-01 10:00', end_date: '2001-01-01 11:00' });
    const hidden = await create({
      start_date: '2046-01-01 10:00',
      end_date: '2046-01-01 11:00',
      hide_from_listings: true,
    });
    const r = await s.get(`/events?include=${far.id},${past.id},${hidden.id}`);
    expect(ids(r)).toEqual([past.id, far.id]);
    expect(new URL(r.body.rest_url).searchParams.has('start_date')).toBe(false);
    expect(ids(await s.get(`/events?include=${far.id}&start_date=2091-01-01`))).toEqual([far.id]);

    const parent = await on(2046, 2);
    const child = await on(2046, 3);
    await on(2046, 4);
    await s.db.prisma.event.update({ where: { id: child.id }, data: { parentId: parent.id } });
    expect(ids(await inYear(2046, `&post_parent=${parent.id}`))).toEqual([child.id]);
    const venue = (await s.post('/venues', { venue: 'Not an event 2046' })).body;
    for (const bad of [
      'post_parent=99999999',
      `post_parent=${venue.id}`,
      'post_parent=abc',
      'include=abc',
      'include=0',
    ]) {
      const r = await s.get(`/events?${bad}`);
      expect(r.status, bad).toBe(400);
    }
  });

  it('filters by venue coordinates: whether they exist, and within 25 miles of a point', async () => {
    // No venue of this server has coordinates yet: a point search matches nothing.
    const noCoordinates = (await s.post('/venues', { venue: 'Unmapped 2047' })).body;
    const unmapped = await on(2047, 1, { venue: noCoordinates.id });
    expect(ids(await inYear(2047, '&geoloc_lat=40.73&geoloc_lng=-73.99'))).toEqual([]);

    const manhattan = (await s.post('/venues', { venue: 'Village hall 2047', geo_lat: 40.7306, geo_lng: -73.9866 }))
      .body;
    const brooklyn = (await s.post('/venues', { venue: 'Brooklyn hall 2047', geo_lat: 40.6782, geo_lng: -73.9442 }))
      .body;
    const boston = (await s.post('/venues', { venue: 'Boston hall 2047', geo_lat: 42.3601, geo_lng: -71.0589 })).body;
    const a = await on(2047, 2, { venue: manhattan.id });
    const b = await on(2047, 3, { venue: brooklyn.id });
    const c = await on(2047, 4, { venue: boston.id });
    const none = await on(2047, 5);

    expect(ids(await inYear(2047, '&geoloc=true'))).toEqual([a.id, b.id, c.id]);
    expect(ids(await inYear(2047, '&geoloc=false'))).toEqual([unmapped.id, none.id]);
    expect(ids(await inYear(2047, '&geoloc_lat=40.7128&geoloc_lng=-74.0060'))).toEqual([a.id, b.id]);
    expect(ids(await inYear(2047, '&geoloc_lat=42.35&geoloc_lng=-71.06'))).toEqual([c.id]);
    for (const bad of [
      'geoloc_lat=40.7',
      'geoloc_lng=-74',
      'geoloc_lat=91&geoloc_lng=0',
      'geoloc_lat=0&geoloc_lng=181',
      'geoloc_lat=x&geoloc_lng=1',
      'geoloc=maybe',
    ]) {
      const r = await inYear(2047, `&${bad}`);
      expect(r.status, bad).toBe(400);
      expect(r.body.code).toBe('rest_invalid_param');
    }
  });

  it('embeds only the venues and organizers the caller may read', async () => {
    const draftVenue = (await s.post('/venues', { venue: 'Secret venue 2048', status: 'draft' })).body;
    const event = await on(2048, 1, { venue: draftVenue.id });
    expect((await inYear(2048, '', null)).body.events[0].venue).toEqual([]);
    expect((await inYear(2048)).body.events[0].venue.id).toBe(draftVenue.id);
    expect((await s.get(`/events/${event.id}`, { as: null })).body.venue).toEqual([]);
  });

  itOnPostgres(
    dbKind,
    'loads a page with the same number of queries whatever its size (no N+1)',
    'it counts the queries of the pg driver',
    async () => {
      const venue = (await s.post('/venues', { venue: 'Counted venue 2049' })).body;
      for (let day = 1; day <= 6; day++) {
        await on(2049, day, {
          venue: venue.id,
          organizer: [{ organizer: `Counted organizer ${day}` }],
          categories: [`Counted ${day}`],
          tags: [`Counted tag ${day}`],
        });
      }
      // eslint-disable-next-line @typescript-eslint/unbound-method -- called below with the client as `this`
      const query = pg.Client.prototype.query;
      let count = 0;
      pg.Client.prototype.query = function (this: unknown, ...args: unknown[]) {
        // The rate limits' counts go to the store once per key and interval, not per request
        // (http/batched-counts.ts): they are no query of the page's.
        const [sent] = args as [string | { text?: string } | undefined];
        const text = typeof sent === 'string' ? sent : (sent?.text ?? '');
        if (!text.includes('rate_limits')) count += 1;
        return (query as (...a: unknown[]) => unknown).apply(this, args);
      } as typeof query;
      try {
        const counted = async (perPage: number) => {
          count = 0;
          const r = await inYear(2049, `&per_page=${perPage}`);
          expect(r.body.events).toHaveLength(perPage);
          return count;
        };
        const one = await counted(1);
        expect(await counted(6)).toBe(one);
        // The counter sees the queries: the credentials' one (with their throttle) and the page's.
        expect(one).toBeGreaterThanOrEqual(2);
        expect(one).toBeLessThan(20);
      } finally {
        pg.Client.prototype.query = query;
      }
    },
  );
});

describeEachDatabase(
  'the event list in a site zone west of UTC',
  (s) => {
    it('refuses with 400 a date whose end of day is past the year 9999 in UTC, where the database cannot follow', async () => {
      for (const query of [
        'starts_after=9999-12-31',
        'ends_before=9999-12-31',
        'end_date=9999-12-31',
        'starts_before=253402300799',
      ]) {
        const r = await s.get(`/events?${query}`);
        expect(r.status, query).toBe(400);
        expect(r.body.code, query).toBe('rest_invalid_param');
        expect(Object.keys(r.body.data.params), query).toEqual([query.split('=')[0]]);
      }
      expect((await s.get('/events?starts_after=9999-12-30')).status).toBe(200);
    });
  },
  { env: { SITE_TIMEZONE: 'Pacific/Pago_Pago' } },
);
