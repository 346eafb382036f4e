// Creating, reading, updating and deleting events over HTTP, on both databases: the reference's
// representation, links given every way the reference allows, true partial updates, and writes
// that fail leaving nothing behind.
import { expect, it } from 'vitest';
import type { Role } from '../../src/auth/roles.js';
import { describeEachDatabase } from '../setup/each-database.js';
import { storedRows } from '../setup/stored-rows.js';

const EVENT_KEYS = [
  'id',
  'global_id',
  'global_id_lineage',
  'author',
  'status',
  'date',
  'date_utc',
  'modified',
  'modified_utc',
  'url',
  'rest_url',
  'title',
  'description',
  'excerpt',
  'slug',
  'image',
  'all_day',
  'start_date',
  'start_date_details',
  'end_date',
  'end_date_details',
  'utc_start_date',
  'utc_start_date_details',
  'utc_end_date',
  'utc_end_date_details',
  'timezone',
  'timezone_abbr',
  'cost',
  'cost_details',
  'website',
  'show_map',
  'show_map_link',
  'hide_from_listings',
  'sticky',
  'featured',
  'categories',
  'tags',
  'venue',
  'organizer',
  'custom_fields',
  'recurrence',
  'recurring_event_id',
  'original_start_date',
  'event_status',
  'event_status_reason',
  'is_virtual',
  'is_hybrid',
  'virtual_url',
  'rsvp',
];

describeEachDatabase('event writes and reads', (s) => {
  let n = 0;
  const unique = (label: string) => `${label} ${++n}`;
  const create = async (body: Record<string, unknown> = {}, as: Role = 'administrator') => {
    const r = await s.post(
      '/events',
      { title: unique('Event'), start_date: '2031-05-01 10:00', end_date: '2031-05-01 12:00', ...body },
      { as },
    );
    expect(r.status, JSON.stringify(r.body)).toBe(201);
    return r.body;
  };

  it('creates with 201, Location and every field of the reference in its order', async () => {
    const r = await s.post('/events', {
      title: 'Autumn Craft Fair',
      description: '<p>Forty local makers.</p>',
      start_date: '2027-10-02 10:00:00',
      end_date: '2027-10-02 17:00:00',
      timezone: 'America/New_York',
      cost: '5$',
    });
    expect(r.status).toBe(201);
    expect(r.headers.get('location')).toBe(`${s.base}/events/${r.body.id}`);
    expect(Object.keys(r.body)).toEqual([...EVENT_KEYS, '_links']);
    const host = new URL(s.origin).host;
    expect(r.body).toMatchObject({
      global_id: `${host}?id=${r.body.id}`,
      global_id_lineage: [`${host}?id=${r.body.id}`],
      author: String(s.users.administrator.id),
      status: 'publish',
      url: `${s.origin}/event/autumn-craft-fair/`,
      rest_url: `${s.base}/events/${r.body.id}`,
      title: 'Autumn Craft Fair',
      description: '<p>Forty local makers.</p>',
      excerpt: '',
      slug: 'autumn-craft-fair',
      image: false,
      all_day: false,
      start_date: '2027-10-02 10:00:00',
      start_date_details: { year: '2027', month: '10', day: '02', hour: '10', minutes: '00', seconds: '00' },
      end_date: '2027-10-02 17:00:00',
      utc_start_date: '2027-10-02 14:00:00',
      utc_end_date: '2027-10-02 21:00:00',
      utc_end_date_details: { year: '2027', month: '10', day: '02', hour: '21', minutes: '00', seconds: '00' },
      timezone: 'America/New_York',
      timezone_abbr: 'EDT',
      cost: '5$',
      cost_details: { currency_symbol: '$', currency_code: '', currency_position: 'postfix', values: ['5'] },
      website: `${s.origin}/event/autumn-craft-fair/`,
      show_map: false,
      show_map_link: false,
      hide_from_listings: false,
      sticky: false,
      featured: false,
      categories: [],
      tags: [],
      venue: [],
      organizer: [],
      custom_fields: [],
    });
    expect(r.body.date).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/);
    expect(r.body).not.toHaveProperty('json_ld');
  });

  it('links venues and organizers given inline, by ID and as {id}, and terms by ID, name or slug', async () => {
    const existingVenue = (await s.post('/venues', { venue: unique('Hall'), city: 'Montréal' })).body;
    const existingOrganizer = (await s.post('/organizers', { organizer: unique('Guild') })).body;
    const family = (await s.post('/categories', { name: unique('Family'), slug: unique('family-friendly') })).body;
    const outdoor = (await s.post('/tags', { name: unique('Outdoor') })).body;
    const newTag = unique('Crafts');
    const inlineVenue = unique('Old Mill');
    const event = await create({
      venue: {
        venue: inlineVenue,
        address: '12 Mill Street',
        city: 'Beacon',
        state: 'NY',
        geo_lat: 41.5,
        geo_lng: -73.97,
      },
      organizer: [{ organizer: unique('Makers'), email: 'info@makers.example.com' }, existingOrganizer.id],
      categories: [family.name.toUpperCase()],
      tags: [outdoor.name, newTag, outdoor.id],
    });
    expect(event.venue).toMatchObject({
      venue: inlineVenue,
      city: 'Beacon',
      geo_lat: 41.5,
      rest_url: expect.stringMatching(/\/venues\/\d+$/),
    });
    expect(event.venue).not.toHaveProperty('json_ld');
    expect(event.organizer.map((o: any) => o.organizer)).toEqual([
      expect.stringMatching(/^Makers/),
      existingOrganizer.organizer,
    ]);
    expect(event.categories.map((t: any) => t.id)).toEqual([family.id]);
    // An existing tag's name is that tag (not a new tag named after its ID, as the reference does).
    expect(event.tags.map((t: any) => t.name).sort()).toEqual([newTag, outdoor.name].sort());
    expect(event.tags.find((t: any) => t.name === outdoor.name)).toEqual({
      name: outdoor.name,
      slug: outdoor.slug,
      term_group: 0,
      term_taxonomy_id: outdoor.id,
      taxonomy: 'post_tag',
      description: '',
      parent: 0,
      count: 1,
      filter: 'raw',
      id: outdoor.id,
      urls: { self: `${s.base}/tags/${outdoor.id}`, collection: `${s.base}/tags` },
    });
    const created = (await s.get(`/tags?search=${encodeURIComponent(newTag)}`)).body.tags;
    expect(created.map((t: any) => t.name)).toEqual([newTag]);

    // The same inline venue again is the same venue (duplicate avoidance), not a second one.
    const again = await create({ venue: { venue: inlineVenue, address: '12 Mill Street', city: 'Beacon' } });
    expect(again.venue.id).toBe(event.venue.id);

    // Several venues are an array; `{id}` names an existing one.
    const two = await create({ venue: [{ id: existingVenue.id }, event.venue.id] });
    expect(two.venue.map((v: any) => v.id)).toEqual([existingVenue.id, event.venue.id]);
    // Form bodies carry IDs as text.
    const form = await s.request('POST', '/events', {
      form: {
        title: unique('Form'),
        start_date: '2031-05-01 10:00',
        end_date: '2031-05-01 11:00',
        venue: String(existingVenue.id),
        categories: `${family.slug},${unique('Brand new')}`,
        featured: '1',
      },
    });
    expect(form.status, JSON.stringify(form.body)).toBe(201);
    expect(form.body.venue.id).toBe(existingVenue.id);
    expect(form.body.featured).toBe(true);
    expect(form.body.categories).toHaveLength(2);
  });

  // The plugin's JSON-LD (samples/event-get.json): these keys, in this order; `location`, `organizer` and
  // `offers` only when the event has a venue, an organizer, a cost.
  const EVENT_LD_KEYS = [
    '@context',
    '@type',
    'name',
    'description',
    'url',
    'eventAttendanceMode',
    'eventStatus',
    'startDate',
    'endDate',
    'location',
    'organizer',
    'offers',
    'performer',
  ];
  const OFFER_LD_KEYS = ['@type', 'price', 'priceCurrency', 'url', 'category', 'availability', 'validFrom'];
  // What the plugin writes that schema.org does not define (see schemaOrgEventProblems).
  const PLUGIN_AVAILABILITY = 'offers.availability: "inStock" is not a schema.org ItemAvailability';
  const validFrom = (event: { date: string }) => `${event.date.slice(0, 10)}T00:00:00+00:00`;

  it('reads by ID and by slug with the json_ld the plugin writes: one venue, one organizer, a cost of 10', async () => {
    const event = await create({
      title: 'Winter Jazz Night',
      excerpt: '<p>Standards and new work.</p>',
      description: '<p>Long text</p>',
      timezone: 'America/New_York',
      start_date: '2030-12-12 19:30:00',
      end_date: '2030-12-12 22:30:00',
      cost: '10',
      venue: {
        venue: unique('Blue Note'),
        description: '<p>Intimate jazz club.</p>',
        address: '131 W 3rd St',
        city: 'New York',
        state: 'NY',
        zip: '10012',
        country: 'United States',
        phone: '+1 212-555-0148',
        website: 'https://bluenotehall.example.com',
      },
      organizer: [{ organizer: unique('Harbor Arts'), phone: '+1 212', website: 'https://harborarts.example.com' }],
    });
    const byId = await s.get(`/events/${event.id}`, { as: null });
    expect(byId.status).toBe(200);
    expect(Object.keys(byId.body)).toEqual([...EVENT_KEYS, 'json_ld', '_links']);
    const place = {
      '@type': 'Place',
      name: event.venue.venue,
      description: 'Intimate jazz club.',
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
    const person = {
      '@type': 'Person',
      name: event.organizer[0].organizer,
      description: '',
      url: 'https://harborarts.example.com',
      telephone: '+1 212',
      email: '',
      sameAs: 'https://harborarts.example.com',
    };
    const ld = byId.body.json_ld;
    expect(ld).toStrictEqual({
      '@context': 'http://schema.org',
      '@type': 'Event',
      name: 'Winter Jazz Night',
      description: 'Standards and new work.',
      url: event.url,
      eventAttendanceMode: 'https://schema.org/OfflineEventAttendanceMode',
      eventStatus: 'https://schema.org/EventScheduled',
      startDate: '2030-12-12T19:30:00-05:00',
      endDate: '2030-12-12T22:30:00-05:00',
      location: place,
      organizer: person,
      offers: {
        '@type': 'Offer',
        price: '10',
        priceCurrency: 'USD',
        url: event.url,
        category: 'primary',
        availability: 'inStock',
        validFrom: validFrom(event),
      },
      performer: 'Organization',
    });
    expect(Object.keys(ld)).toEqual(EVENT_LD_KEYS);
    expect(Object.keys(ld.location)).toEqual(Object.keys(place));
    expect(Object.keys(ld.organizer)).toEqual(Object.keys(person));
    expect(Object.keys(ld.offers)).toEqual(OFFER_LD_KEYS);
    // The embedded venue and organizer carry the same objects, without `@context`.
    expect(byId.body.venue.json_ld).toStrictEqual(place);
    expect(byId.body.organizer[0].json_ld).toStrictEqual(person);
    expect(schemaOrgEventProblems(ld)).toEqual([PLUGIN_AVAILABILITY]);
    expect(byId.body.timezone_abbr).toBe('EST');
    const bySlug = await s.get(`/events/by-slug/${event.slug}`, { as: null });
    expect(bySlug.body).toEqual(byId.body);
  });

  it('writes a cost range as one Offer with the range as its price, and the first of several organizers', async () => {
    const event = await create({
      timezone: 'Europe/Paris',
      start_date: '2030-07-14 21:00:00',
      end_date: '2030-07-14 23:00:00',
      // One euro symbol per entry: a single string such as "10 – 25€" has no symbol of its own.
      cost: ['10€', '25€'],
      organizer: [{ organizer: unique('First') }, { organizer: unique('Second'), email: 'second@example.org' }],
    });
    const ld = (await s.get(`/events/${event.id}`)).body.json_ld;
    expect(Object.keys(ld)).toEqual(EVENT_LD_KEYS.filter((key) => key !== 'location'));
    expect(ld.startDate).toBe('2030-07-14T21:00:00+02:00');
    expect(ld.organizer).toStrictEqual({
      '@type': 'Person',
      name: event.organizer[0].organizer,
      description: '',
      url: '',
      telephone: '',
      email: '',
      sameAs: '',
    });
    expect(ld.offers).toStrictEqual({
      '@type': 'Offer',
      price: '10 – 25',
      priceCurrency: 'EUR',
      url: event.url,
      category: 'primary',
      availability: 'inStock',
      validFrom: validFrom(event),
    });
    // The plugin's range is Text, which schema.org's `price` allows but search engines do not read as a number.
    expect(schemaOrgEventProblems(ld)).toEqual([
      'offers.price: "10 – 25" is not a number with "." as its decimal separator',
      PLUGIN_AVAILABILITY,
    ]);
  });

  it('writes Free as a price of 0, and a UTC event with +00:00', async () => {
    const event = await create({ cost: 'Free', start_date: '2030-01-02 03:04:05', end_date: '2030-01-02 04:00:00' });
    const ld = (await s.get(`/events/${event.id}`)).body.json_ld;
    expect(ld.offers).toMatchObject({ '@type': 'Offer', price: '0', priceCurrency: 'USD' });
    expect([ld.startDate, ld.endDate]).toEqual(['2030-01-02T03:04:05+00:00', '2030-01-02T04:00:00+00:00']);
    expect(schemaOrgEventProblems(ld)).toEqual([PLUGIN_AVAILABILITY]);
  });

  it('writes no location, organizer or offers for an event with none, and an empty description', async () => {
    const event = await create({
      title: 'Bare Event',
      start_date: '2030-03-03 18:00:00',
      end_date: '2030-03-03 20:00',
    });
    const ld = (await s.get(`/events/${event.id}`)).body.json_ld;
    expect(ld).toStrictEqual({
      '@context': 'http://schema.org',
      '@type': 'Event',
      name: 'Bare Event',
      description: '',
      url: event.url,
      eventAttendanceMode: 'https://schema.org/OfflineEventAttendanceMode',
      eventStatus: 'https://schema.org/EventScheduled',
      startDate: '2030-03-03T18:00:00+00:00',
      endDate: '2030-03-03T20:00:00+00:00',
      performer: 'Organization',
    });
    expect(Object.keys(ld)).toEqual(EVENT_LD_KEYS.filter((key) => !['location', 'organizer', 'offers'].includes(key)));
    expect(schemaOrgEventProblems(ld)).toEqual([]);
  });

  it('answers 404 rest-event-not-found for unknown IDs and slugs, and 404 rest_no_route for a non-numeric ID', async () => {
    for (const path of ['/events/99999999', '/events/by-slug/no-such-event']) {
      for (const method of ['GET', 'PATCH', 'DELETE']) {
        const r = await s.request(method, path, method === 'PATCH' ? { body: { title: 'x' } } : {});
        expect(r.status, `${method} ${path}`).toBe(404);
        expect(r.body.code).toBe('rest-event-not-found');
      }
    }
    const r = await s.get('/events/abc');
    expect(r.status).toBe(404);
    expect(r.body.code).toBe('rest_no_route');
  });

  it('keeps drafts from those who may not read them: 403 event-not-accessible', async () => {
    const draft = await create({}, 'contributor');
    expect(draft.status).toBe('draft');
    for (const as of [null, 'subscriber', 'author'] as const) {
      const r = await s.get(`/events/${draft.id}`, { as });
      expect(r.status, String(as)).toBe(403);
      expect(r.body.code).toBe('event-not-accessible');
    }
    expect((await s.get(`/events/${draft.id}`, { as: 'contributor' })).status).toBe(200);
    expect((await s.get(`/events/${draft.id}`, { as: 'editor' })).status).toBe(200);
    // Contributors cannot publish: asking for it gets `pending`.
    expect(
      (await s.request('PATCH', `/events/${draft.id}`, { body: { status: 'publish' }, as: 'contributor' })).body.status,
    ).toBe('pending');
  });

  it('refuses bad input with 400 naming the field, and stores nothing', async () => {
    const venues = (await s.post('/venues', { venue: unique('Unused') })).body;
    const cases: [Record<string, unknown>, string, string][] = [
      [{ title: undefined }, 'rest_missing_callback_param', 'title'],
      [{ start_date: 'not a date' }, 'rest_invalid_param', 'start_date'],
      [{ end_date: '2031-13-45' }, 'rest_invalid_param', 'end_date'],
      [{ end_date: '2031-05-01 09:59' }, 'rest_invalid_param', 'end_date'],
      [{ timezone: 'Mars/Olympus' }, 'rest_invalid_param', 'timezone'],
      [{ timezone: 'UTC+15' }, 'rest_invalid_param', 'timezone'],
      [{ website: 'foo' }, 'rest_invalid_param', 'website'],
      [{ image: 42 }, 'rest_invalid_param', 'image'],
      [{ title: '   ' }, 'rest_invalid_param', 'title'],
      [{ all_day: 'maybe' }, 'rest_invalid_param', 'all_day'],
      [{ status: 'published' }, 'rest_invalid_param', 'status'],
      [{ author: 999999 }, 'rest_invalid_param', 'author'],
      [{ start_date: 12.5 }, 'rest_invalid_param', 'start_date'],
      [{ cost: { amount: 5 } }, 'rest_invalid_param', 'cost'],
      // A good inline venue and a new tag, then a bad category: none of it may stay.
      [
        { venue: { venue: unique('Ghost hall') }, tags: [unique('Ghost tag')], categories: [999999] },
        'rest_invalid_param',
        'categories',
      ],
      [{ organizer: [{ organizer: unique('Ghost org') }, 999999] }, 'rest_invalid_param', 'organizer'],
      [{ venue: [venues.id, 999999] }, 'rest_invalid_param', 'venue'],
      [{ venue: { city: 'No name' } }, 'rest_invalid_param', 'venue'],
    ];
    for (const [fields, code, param] of cases) {
      const before = await storedRows(s.db);
      const body = { title: unique('Bad'), start_date: '2031-05-01 10:00', end_date: '2031-05-01 12:00', ...fields };
      const r = await s.post('/events', body);
      expect(r.status, JSON.stringify(fields)).toBe(400);
      expect(r.body.code, JSON.stringify(fields)).toBe(code);
      const named = Array.isArray(r.body.data.params) ? r.body.data.params : Object.keys(r.body.data.params);
      expect(named.join(','), JSON.stringify(fields)).toContain(param);
      expect(await storedRows(s.db), JSON.stringify(fields)).toBe(before);
    }
  });

  it('updates only the fields that are sent, by ID and by slug, with POST, PUT and PATCH', async () => {
    const organizer = (await s.post('/organizers', { organizer: unique('Kept') })).body;
    const category = (await s.post('/categories', { name: unique('Kept cat') })).body;
    const event = await create({
      timezone: 'Europe/Paris',
      website: 'https://example.com/fair',
      image: 'https://example.com/poster.jpg',
      show_map: true,
      sticky: true,
      featured: true,
      hide_from_listings: true,
      all_day: false,
      cost: ['15$', '30$'],
      excerpt: 'Short',
      organizer: [organizer.id],
      categories: [category.id],
    });
    const unchanged = (body: any) => {
      const { modified, modified_utc, title, ...rest } = body;
      return rest;
    };
    for (const [method, path] of [
      ['PATCH', `/events/${event.id}`],
      ['PUT', `/events/${event.id}`],
      ['POST', `/events/${event.id}`],
      ['PATCH', `/events/by-slug/${event.slug}`],
      ['PUT', `/events/by-slug/${event.slug}`],
      ['POST', `/events/by-slug/${event.slug}`],
    ]) {
      const title = unique('Renamed');
      const r = await s.request(method, path, { body: { title } });
      expect(r.status, `${method} ${path}`).toBe(200);
      expect(r.body.title).toBe(title);
      expect(unchanged(r.body), `${method} ${path}`).toEqual(unchanged(event));
    }
    // The slug moves only when it is sent; the new slug then addresses the event.
    const moved = await s.request('PATCH', `/events/by-slug/${event.slug}`, { body: { slug: 'Moved Fair' } });
    expect(moved.body.slug).toBe('moved-fair');
    expect((await s.get('/events/by-slug/moved-fair')).body.id).toBe(event.id);
    // Emptying: links, image, website, cost.
    const cleared = await s.request('PATCH', `/events/${event.id}`, {
      body: { organizer: [], categories: '', image: '', website: '', cost: '' },
    });
    expect(cleared.body).toMatchObject({
      organizer: [],
      categories: [],
      image: false,
      website: cleared.body.url,
      cost: '',
      sticky: true,
      featured: true,
    });
    expect(cleared.body.cost_details.values).toEqual([]);
  });

  it('keeps the wall-clock times when only the time zone changes, and checks a partial change of times', async () => {
    const event = await create({
      timezone: 'America/New_York',
      start_date: '2031-07-01 19:00',
      end_date: '2031-07-01 21:00',
    });
    const paris = (await s.request('PATCH', `/events/${event.id}`, { body: { timezone: 'Europe/Paris' } })).body;
    expect(paris).toMatchObject({
      start_date: '2031-07-01 19:00:00',
      utc_start_date: '2031-07-01 17:00:00',
      timezone: 'Europe/Paris',
      timezone_abbr: 'CEST',
    });
    const later = (await s.request('PATCH', `/events/${event.id}`, { body: { end_date: '2031-07-02 01:00' } })).body;
    expect(later).toMatchObject({ start_date: '2031-07-01 19:00:00', end_date: '2031-07-02 01:00:00' });
    const before = await storedRows(s.db);
    const r = await s.request('PATCH', `/events/${event.id}`, { body: { start_date: '2031-07-02 02:00' } });
    expect(r.status).toBe(400);
    expect(r.body.data.params).toHaveProperty('end_date');
    expect(await storedRows(s.db)).toBe(before);
    const allDay = (await s.request('PATCH', `/events/${event.id}`, { body: { all_day: true } })).body;
    expect(allDay).toMatchObject({ all_day: true, start_date: '2031-07-01 00:00:00', end_date: '2031-07-02 23:59:59' });
  });

  it('moves to the trash, answers 410 the second time, and deletes for good with force (editors only)', async () => {
    const event = await create({}, 'author');
    const trashed = await s.request('DELETE', `/events/${event.id}`, { as: 'author' });
    expect(trashed.status).toBe(200);
    expect(trashed.body).toMatchObject({ id: event.id, status: 'trash' });
    const again = await s.request('DELETE', `/events/by-slug/${event.slug}`, { as: 'author' });
    expect(again.status).toBe(410);
    expect(again.body.code).toBe('event-is-in-trash');
    const refused = await s.request('DELETE', `/events/${event.id}?force=true`, { as: 'author' });
    expect(refused.status).toBe(403);
    const gone = await s.request('DELETE', `/events/${event.id}?force=true`, { as: 'editor' });
    expect(gone.status).toBe(200);
    expect(gone.body.id).toBe(event.id);
    expect((await s.get(`/events/${event.id}`)).status).toBe(404);
    expect(await s.db.prisma.eventTerm.count({ where: { eventId: event.id } })).toBe(0);
  });

  it('ignores read-only and unknown fields', async () => {
    const event = await create({
      id: 5,
      url: 'https://evil.example.com',
      utc_start_date: '1999-01-01 00:00:00',
      cost_details: { values: ['1'] },
      timezone_abbr: 'XXX',
      color: 'red',
    });
    expect(event.id).not.toBe(5);
    expect(event.url).toBe(`${s.origin}/event/${event.slug}/`);
    expect(event.utc_start_date).toBe('2031-05-01 10:00:00');
    expect(event.timezone_abbr).toBe('UTC');
    expect(event).not.toHaveProperty('color');
  });

  it('reads a cost back as the modelled plugin shows it with its default currency settings', async () => {
    // A decimal comma: one price of 12.50 with its own symbol, not the range 12 to 50.
    const euros = await create({ cost: '€12,50' });
    const read = await s.get(`/events/${euros.id}`, { as: null });
    expect([read.body.cost, read.body.cost_details]).toEqual([
      '€12,50',
      { currency_symbol: '€', currency_code: '', currency_position: 'prefix', values: ['12.50'] },
    ]);
    // No symbol of its own: the default `$` before the amounts (samples: event-get.json).
    const range = await create({ cost: '10 – 25$' });
    expect([range.cost, range.cost_details]).toEqual([
      '$10 – $25',
      { currency_symbol: '', currency_code: '', currency_position: '', values: ['10', '25'] },
    ]);
  });

  it('settles concurrent creates that share a title and a new term: numbered slugs, one term', async () => {
    const tag = unique('Parallel tag');
    const results = await Promise.all(
      Array.from({ length: 6 }, () =>
        s.post('/events', {
          title: 'Parallel launch',
          start_date: '2031-05-01 10:00',
          end_date: '2031-05-01 12:00',
          tags: [tag],
        }),
      ),
    );
    expect(results.map((r) => r.status)).toEqual(Array(6).fill(201));
    expect(new Set(results.map((r) => r.body.slug)).size).toBe(6);
    expect(new Set(results.map((r) => r.body.tags[0].id)).size).toBe(1);
    expect(await s.db.prisma.term.count({ where: { name: tag } })).toBe(1);
  });
});

describeEachDatabase(
  'event costs with the currency settings changed',
  (s) => {
    it('shows amounts without a symbol of their own with COST_CURRENCY_SYMBOL and COST_CURRENCY_POSITION', async () => {
      const create = async (cost: unknown) => {
        const r = await s.post('/events', {
          title: 'Priced',
          start_date: '2031-05-01 10:00',
          end_date: '2031-05-01 12:00',
          cost,
        });
        expect(r.status, JSON.stringify(r.body)).toBe(201);
        return (await s.get(`/events/${r.body.id}`, { as: null })).body;
      };
      const range = await create('10 – 25$');
      expect([range.cost, range.cost_details]).toEqual([
        '10€ – 25€',
        { currency_symbol: '', currency_code: '', currency_position: '', values: ['10', '25'] },
      ]);
      expect(range.json_ld.offers).toMatchObject({ price: '10 – 25', priceCurrency: 'EUR' });
      expect((await create('5')).cost).toBe('5€');
      // A symbol of its own wins over the setting.
      expect((await create('$12,50')).cost).toBe('$12,50');
    });
  },
  { env: { COST_CURRENCY_SYMBOL: '€', COST_CURRENCY_POSITION: 'suffix' } },
);

// A structural check of schema.org Event markup, written from https://schema.org/Event and its property
// ranges (Place, PostalAddress, GeoCoordinates, Person, Organization, Offer), with what search engines
// require of it (a name, a start date in ISO 8601 with its offset, prices as numbers). It returns the
// problems it finds, so a test can name the plugin's known departures instead of hiding them.
const EVENT_PROPERTIES = new Set([
  '@context',
  '@type',
  '@id',
  'name',
  'description',
  'image',
  'url',
  'sameAs',
  'eventAttendanceMode',
  'eventStatus',
  'startDate',
  'endDate',
  'doorTime',
  'duration',
  'location',
  'organizer',
  'performer',
  'offers',
  'isAccessibleForFree',
  'maximumAttendeeCapacity',
  'keywords',
  'inLanguage',
]);
const EVENT_STATUSES = ['EventCancelled', 'EventMovedOnline', 'EventPostponed', 'EventRescheduled', 'EventScheduled'];
const ATTENDANCE_MODES = ['MixedEventAttendanceMode', 'OfflineEventAttendanceMode', 'OnlineEventAttendanceMode'];
const AVAILABILITIES = ['BackOrder', 'Discontinued', 'InStock', 'InStoreOnly', 'LimitedAvailability', 'OnlineOnly'];
const enumMember = (value: unknown, members: string[]) =>
  typeof value === 'string' && members.some((m) => value === m || value === `https://schema.org/${m}`);
const ISO_WITH_OFFSET = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;
const isUrl = (value: unknown) => typeof value === 'string' && URL.canParse(value) && /^https?:/.test(value);
const isText = (value: unknown) => typeof value === 'string';
const isObject = (value: unknown): value is Record<string, any> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** Records that the value at `path` is wrong, and how. */
type Report = (path: string, value: unknown, what: string) => void;

function schemaOrgEventProblems(ld: Record<string, any>): string[] {
  const problems: string[] = [];
  const report: Report = (path, value, what) => problems.push(`${path}: ${JSON.stringify(value)} ${what}`);
  checkEventProperties(ld, report);
  checkEventSchedule(ld, report);
  if ('location' in ld) checkPlace(ld.location, report);
  if ('organizer' in ld) checkOrganizer(ld.organizer, report);
  if ('performer' in ld && !isText(ld.performer) && !['Person', 'Organization'].includes(ld.performer?.['@type']))
    report('performer', ld.performer, 'is not a Person, an Organization or Text');
  if ('offers' in ld) checkOffer(ld.offers, report);
  return problems;
}

function checkDateTime(path: string, value: unknown, report: Report) {
  if (!(isText(value) && ISO_WITH_OFFSET.test(value) && Number.isFinite(Date.parse(value))))
    report(path, value, 'is not an ISO 8601 date and time with an offset');
}

/** The context, type, property names and the event's own texts and URLs. */
function checkEventProperties(ld: Record<string, any>, report: Report) {
  if (!['http://schema.org', 'https://schema.org', 'https://schema.org/'].includes(ld['@context']))
    report('@context', ld['@context'], 'is not schema.org');
  if (ld['@type'] !== 'Event') report('@type', ld['@type'], 'is not Event');
  for (const key of Object.keys(ld)) if (!EVENT_PROPERTIES.has(key)) report(key, ld[key], 'is not a property of Event');
  if (!(isText(ld.name) && ld.name.trim())) report('name', ld.name, 'is not a non-empty Text');
  if ('description' in ld && !isText(ld.description)) report('description', ld.description, 'is not Text');
  if ('url' in ld && !isUrl(ld.url)) report('url', ld.url, 'is not a URL');
  if ('image' in ld && !isUrl(ld.image)) report('image', ld.image, 'is not a URL');
}

/** Start, end, status and attendance mode. */
function checkEventSchedule(ld: Record<string, any>, report: Report) {
  checkDateTime('startDate', ld.startDate, report);
  if ('endDate' in ld) {
    checkDateTime('endDate', ld.endDate, report);
    if (Date.parse(ld.endDate) < Date.parse(ld.startDate)) report('endDate', ld.endDate, 'is before startDate');
  }
  if ('eventStatus' in ld && !enumMember(ld.eventStatus, EVENT_STATUSES))
    report('eventStatus', ld.eventStatus, 'is not an EventStatusType');
  if ('eventAttendanceMode' in ld && !enumMember(ld.eventAttendanceMode, ATTENDANCE_MODES))
    report('eventAttendanceMode', ld.eventAttendanceMode, 'is not an EventAttendanceModeEnumeration');
}

function checkPlace(place: unknown, report: Report) {
  if (!isObject(place) || place['@type'] !== 'Place') {
    report('location', place, 'is not a Place');
    return;
  }
  if ('@context' in place) report('location.@context', place['@context'], 'is not allowed inside a node');
  if (!(isText(place.name) && place.name)) report('location.name', place.name, 'is not a non-empty Text');
  checkAddress(place.address, report);
  if ('geo' in place && !(typeof place.geo?.latitude === 'number' && typeof place.geo?.longitude === 'number'))
    report('location.geo', place.geo, 'is not GeoCoordinates');
  for (const key of ['description', 'url', 'telephone', 'sameAs'])
    if (key in place && !isText(place[key])) report(`location.${key}`, place[key], 'is not Text');
}

function checkAddress(address: unknown, report: Report) {
  if (!isObject(address) || address['@type'] !== 'PostalAddress') {
    report('location.address', address, 'is not a PostalAddress');
    return;
  }
  for (const [key, value] of Object.entries(address))
    if (key !== '@type' && !isText(value)) report(`location.address.${key}`, value, 'is not Text');
}

function checkOrganizer(who: unknown, report: Report) {
  if (!isObject(who) || !['Person', 'Organization'].includes(who['@type']))
    report('organizer', who, 'is not a Person or Organization');
  else if (!(isText(who.name) && who.name)) report('organizer.name', who.name, 'is not a non-empty Text');
}

function checkOffer(offer: unknown, report: Report) {
  if (!isObject(offer) || offer['@type'] !== 'Offer') {
    report('offers', offer, 'is not an Offer');
    return;
  }
  if (!(isText(offer.price) && /^\d+(\.\d+)?$/.test(offer.price)))
    report('offers.price', offer.price, 'is not a number with "." as its decimal separator');
  if (!(isText(offer.priceCurrency) && /^[A-Z]{3}$/.test(offer.priceCurrency)))
    report('offers.priceCurrency', offer.priceCurrency, 'is not an ISO 4217 code');
  if ('url' in offer && !isUrl(offer.url)) report('offers.url', offer.url, 'is not a URL');
  if ('validFrom' in offer) checkDateTime('offers.validFrom', offer.validFrom, report);
  if ('availability' in offer && !enumMember(offer.availability, AVAILABILITIES))
    report('offers.availability', offer.availability, 'is not a schema.org ItemAvailability');
}
