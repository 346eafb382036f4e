// Events as iCalendar over HTTP: the feed and single events parsed with ical.js and compared, field by
// field, with the JSON representation of the same events; the list feed honours the JSON list's filters.
import ICAL from 'ical.js';
import { beforeAll, expect, it } from 'vitest';
import { eventsCalendar } from '../../src/ical/write-calendar.js';
import { feedEvents, feedIndex } from '../../src/services/event-list.js';
import { describeEachDatabase } from '../setup/each-database.js';
import type { TestServer } from '../setup/server.js';

const CALENDAR = { headers: { accept: 'text/calendar' } };

/** The VEVENTs of an iCalendar text, with its VTIMEZONEs registered so times convert. */
function parse(text: string) {
  const calendar = new ICAL.Component(ICAL.parse(text));
  for (const zone of calendar.getAllSubcomponents('vtimezone')) ICAL.TimezoneService.register(zone);
  return {
    calendar,
    events: calendar.getAllSubcomponents('vevent').map((c) => ({ component: c, event: new ICAL.Event(c) })),
  };
}

/** A TEXT value as RFC 5545 reads it: `\\n` a line break, `\\;` `\\,` `\\\\` the character. */
const unescapeText = (value: unknown) =>
  String(value).replace(/\\([\\;,nN])/g, (_m, c: string) => (c === 'n' || c === 'N' ? '\n' : c));

/** The events of a feed's window as the feed reads them, for the serializer itself (an administrator's). */
async function feedRowsOf(s: TestServer, start: string, end: string) {
  const ctx = {
    db: s.db.prisma,
    caller: { id: s.users.administrator.id, login: 'administrator', role: 'administrator' as const },
    siteZone: 'UTC',
    now: new Date(),
  };
  const query = { start_date: start, end_date: end, strict_dates: false, orderby: 'start_date', order: 'asc' } as const;
  return feedEvents(ctx, await feedIndex(ctx, query));
}

const calendarOptions = (s: TestServer) => ({
  urls: { site: s.origin, root: `${s.origin}/wp-json`, base: s.base },
  caller: null,
  name: 'Events',
  series: true,
});

const utc = (time: ICAL.Time) => time.toJSDate().toISOString().replace('T', ' ').slice(0, 19);

describeEachDatabase('events as iCalendar', (s) => {
  let jazz: any;
  let festival: any;
  let offset: any;
  beforeAll(async () => {
    jazz = (
      await s.post('/events', {
        title: 'Winter Jazz Night; standards, new work',
        description:
          '<p>An evening of standards &amp; new work with the Harbor Quartet.</p><p>Doors open at 7pm. ' +
          'Long text. '.repeat(20) +
          '</p>',
        start_date: '2039-12-12 19:30',
        end_date: '2039-12-12 22:30',
        timezone: 'America/New_York',
        venue: {
          venue: 'Blue Note Hall',
          address: '131 W 3rd St',
          city: 'New York',
          state: 'NY',
          zip: '10012',
          country: 'United States',
          geo_lat: 40.73,
          geo_lng: -74,
        },
        organizer: [{ organizer: 'No Mail Org' }, { organizer: 'Harbor Arts', email: 'hello@harborarts.example.com' }],
        categories: ['Concerts 2039'],
        tags: ['Live 2039'],
      })
    ).body;
    festival = (
      await s.post('/events', {
        title: 'Folk Festival',
        start_date: '2039-06-18',
        end_date: '2039-06-20',
        all_day: true,
        timezone: 'Europe/Paris',
        categories: ['Concerts 2039'],
      })
    ).body;
    offset = (
      await s.post('/events', {
        title: 'Offset talk',
        start_date: '2039-03-01 10:00',
        end_date: '2039-03-01 11:00',
        timezone: 'UTC+5:30',
      })
    ).body;
  });

  it('answers a single event as a VCALENDAR whose VEVENT matches the JSON representation', async () => {
    const r = await s.get(`/events/${jazz.id}`, CALENDAR);
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toBe('text/calendar; charset=utf-8');
    expect(r.headers.get('vary')).toContain('Accept');
    const { calendar, events } = parse(r.text);
    expect(calendar.getFirstPropertyValue('version')).toBe('2.0');
    expect(events).toHaveLength(1);
    const { event, component } = events[0];
    const json = (await s.get(`/events/${jazz.id}`)).body;
    expect(event.uid).toBe(json.global_id);
    expect(event.summary).toBe(json.title);
    expect(event.startDate.zone.tzid).toBe('America/New_York');
    expect(event.startDate.toString()).toBe(json.start_date.replace(' ', 'T'));
    expect(event.endDate.toString()).toBe(json.end_date.replace(' ', 'T'));
    expect(utc(event.startDate)).toBe(json.utc_start_date);
    expect(utc(event.endDate)).toBe(json.utc_end_date);
    expect(calendar.getAllSubcomponents('vtimezone').map((z) => z.getFirstPropertyValue('tzid'))).toEqual([
      'America/New_York',
    ]);
    expect(event.description).toBe(
      `An evening of standards & new work with the Harbor Quartet.\nDoors open at 7pm. ${'Long text. '.repeat(20).trim()}`,
    );
    expect(event.location).toBe('Blue Note Hall\n131 W 3rd St, New York, NY 10012, United States');
    expect(component.getFirstPropertyValue('geo')).toEqual([40.73, -74]);
    expect(event.organizer).toBe('mailto:hello@harborarts.example.com');
    expect(component.getFirstProperty('organizer')!.getParameter('cn')).toBe('Harbor Arts');
    expect(component.getAllProperties('categories').flatMap((p) => p.getValues())).toEqual([
      'Concerts 2039',
      'Live 2039',
    ]);
    expect(component.getFirstPropertyValue('url')).toBe(json.url);
    expect(utc(component.getFirstPropertyValue('last-modified') as ICAL.Time)).toBe(json.modified_utc);
    expect(component.getFirstPropertyValue('status')).toBe('CONFIRMED');
    // RFC 5545: CRLF line ends, lines folded at 75 octets, text values escaped.
    const lines = r.text.split('\r\n');
    expect(lines.every((line) => Buffer.byteLength(line) <= 75)).toBe(true);
    expect(r.text).toContain('SUMMARY:Winter Jazz Night\\; standards\\, new work');
    expect(r.text.endsWith('END:VCALENDAR\r\n')).toBe(true);
    expect((await s.get(`/events/by-slug/${jazz.slug}`, CALENDAR)).text).toBe(r.text);
  });

  it('writes all-day events as dates with an exclusive end, and fixed offsets in UTC', async () => {
    const allDay = parse((await s.get(`/events/${festival.id}`, CALENDAR)).text).events[0];
    expect(allDay.event.startDate.isDate).toBe(true);
    expect(allDay.event.startDate.toString()).toBe('2039-06-18');
    expect(allDay.event.endDate.toString()).toBe('2039-06-21');
    const fixed = parse((await s.get(`/events/${offset.id}`, CALENDAR)).text).events[0];
    expect(fixed.event.startDate.zone.tzid).toBe('UTC');
    expect(utc(fixed.event.startDate)).toBe(offset.utc_start_date);
    expect(utc(fixed.event.endDate)).toBe(offset.utc_end_date);
  });

  it('serves the list as a feed of every event the JSON list pages through, with its filters', async () => {
    for (const query of [
      '?start_date=2039-01-01&end_date=2039-12-31',
      '?start_date=2039-01-01&end_date=2039-12-31&categories=concerts-2039',
      // A feed is not a page: paging does not apply.
      '?start_date=2039-01-01&end_date=2039-12-31&per_page=1&page=2',
    ]) {
      const feed = await s.get(`/events${query}`, CALENDAR);
      const json = await s.get(`/events${query.replace(/&per_page=1&page=2$/, '')}`);
      expect(feed.status, query).toBe(200);
      expect(
        parse(feed.text).events.map((e) => e.event.uid),
        query,
      ).toEqual(json.body.events.map((e: any) => e.global_id));
      expect(feed.headers.get('x-tec-total'), query).toBe(json.headers.get('x-tec-total'));
      expect(feed.headers.get('link'), query).not.toContain('rel="next"');
    }
    const filtered = parse(
      (await s.get('/events?start_date=2039-01-01&end_date=2039-12-31&categories=concerts-2039', CALENDAR)).text,
    );
    expect(filtered.events.map((e) => e.event.summary)).toEqual([festival.title, jazz.title]);
    // Errors stay JSON in the error shape.
    const bad = await s.get('/events?categories=no-such-category', CALENDAR);
    expect(bad.status).toBe(400);
    expect(bad.body.code).toBe('rest_invalid_param');
  });

  it('answers iCalendar to ical=1 whatever Accept says, for calendar applications that subscribe to a URL', async () => {
    for (const path of [`/events/${jazz.id}?ical=1`, `/events/by-slug/${jazz.slug}?ical=true`]) {
      const r = await s.get(path, { headers: { accept: 'application/json' } });
      expect(r.headers.get('content-type'), path).toBe('text/calendar; charset=utf-8');
      expect(
        parse(r.text).events.map((e) => e.event.uid),
        path,
      ).toEqual([jazz.global_id]);
    }
    const feed = await s.get('/events?ical=1&start_date=2039-01-01&end_date=2039-12-31&categories=concerts-2039');
    expect(feed.headers.get('content-type')).toBe('text/calendar; charset=utf-8');
    expect(parse(feed.text).events.map((e) => e.event.summary)).toEqual([festival.title, jazz.title]);
    expect((await s.get(`/events/${jazz.id}?ical=0`)).body.id).toBe(jazz.id);
  });

  // The JSON URLs answer JSON only, so that a client generated from the document gets one type; the
  // calendar has URLs of its own, where ical=1 or an Accept for text/calendar sends a client.
  it('sends ical=1 and an Accept for text/calendar to the .ics URL with the same filters, and nothing else', async () => {
    const sent = await s.get(
      '/events?ical=1&categories=concerts-2039&page=2&per_page=5&_embed=venue&search=caf%C3%A9+%26+bar&start_date=2039-01-01',
      { noRedirect: true },
    );
    expect(sent.status).toBe(303);
    expect(sent.text).toBe('');
    expect(sent.headers.get('vary')).toMatch(/Accept/);
    expect(sent.headers.get('location')).toBe(
      `${s.base}/events.ics?categories=concerts-2039&search=caf%C3%A9+%26+bar&start_date=2039-01-01`,
    );
    for (const [path, accept, target] of [
      [`/events/${jazz.id}`, 'text/calendar', `/events/${jazz.id}.ics`],
      [
        `/events/by-slug/${jazz.slug}?password=x`,
        'text/calendar, application/json;q=0.5',
        `/events/by-slug/${jazz.slug}.ics?password=x`,
      ],
      ['/fr/events?ical=true', 'application/json', '/events.ics'],
    ]) {
      const locale = path.startsWith('/fr/') ? '/fr' : '';
      const r = await s.get(path.slice(locale.length), { headers: { accept }, noRedirect: true, locale });
      expect(r.status, path).toBe(303);
      const origin = new URL(s.base).origin;
      expect(r.headers.get('location'), path).toBe(`${origin}${locale}${new URL(s.base).pathname}${target}`);
    }
    // The calendar URLs answer iCalendar whatever Accept says, and a JSON-only URL has no text/calendar.
    const direct = await s.get(`/events/${jazz.id}.ics`, { headers: { accept: 'application/json' } });
    expect(direct.headers.get('content-type')).toBe('text/calendar; charset=utf-8');
    expect(parse(direct.text).events.map((e) => e.event.uid)).toEqual([jazz.global_id]);
    const feed = await s.get('/events.ics?start_date=2039-01-01&end_date=2039-12-31&categories=concerts-2039');
    expect(parse(feed.text).events.map((e) => e.event.summary)).toEqual([festival.title, jazz.title]);
    expect((await s.get('/events/999999.ics')).status).toBe(404);
    expect((await s.get('/events/abc.ics')).status).toBe(404);
  });

  it('holds a whole window in one feed, past the 50 events of a page', async () => {
    const day = '2041-03-';
    for (let i = 0; i < 60; i++) {
      const d = String(1 + (i % 28)).padStart(2, '0');
      const r = await s.post('/events', {
        title: `Busy month ${i}`,
        start_date: `${day}${d} 10:00`,
        end_date: `${day}${d} 11:00`,
      });
      expect(r.status).toBe(201);
    }
    const feed = await s.get(`/events?ical=1&start_date=${day}01&end_date=${day}31`);
    expect(parse(feed.text).events).toHaveLength(60);
    expect(feed.headers.get('x-tec-total')).toBe('60');
  });

  it('answers an unchanged feed 304 from its ETag, and a new ETag once anything it shows changes', async () => {
    const window = 'start_date=2043-01-01&end_date=2043-12-31';
    const hall = (await s.post('/venues', { venue: 'Polled Hall' })).body;
    const talk = (await s.post('/categories', { name: 'Polled talks' })).body;
    const polled = (
      await s.post('/events', {
        title: 'Polled',
        start_date: '2043-02-02 10:00',
        end_date: '2043-02-02 11:00',
        venue: hall.id,
        categories: [talk.id],
      })
    ).body;
    const first = await s.get(`/events?ical=1&${window}`, { as: null });
    const etag = first.headers.get('etag')!;
    expect(etag).toMatch(/^"[A-Za-z0-9_-]{22}"$/);
    const again = (headers: Record<string, string> = {}) =>
      s.get(`/events?ical=1&${window}`, { as: null, headers: { 'if-none-match': etag, ...headers } });
    expect((await again()).status).toBe(304);
    // What the feed shows changes: the event, its venue, its category, the caller, what is in it.
    const changes: [string, () => Promise<unknown>][] = [
      ['the venue renamed', () => s.request('PATCH', `/venues/${hall.id}`, { body: { venue: 'Renamed Hall' } })],
      ['the category renamed', () => s.request('PATCH', `/categories/${talk.id}`, { body: { name: 'Renamed' } })],
      ['the event changed', () => s.request('PATCH', `/events/${polled.id}`, { body: { title: 'Polled again' } })],
      [
        'an event added',
        () => s.post('/events', { title: 'New', start_date: '2043-03-03 10:00', end_date: '2043-03-03 11:00' }),
      ],
    ];
    let previous = etag;
    for (const [what, change] of changes) {
      await change();
      const r = await s.get(`/events?ical=1&${window}`, { as: null, headers: { 'if-none-match': previous } });
      expect(r.status, what).toBe(200);
      expect(r.headers.get('etag'), what).not.toBe(previous);
      previous = r.headers.get('etag')!;
      // The tag names these very bytes: the same request again is answered 304.
      expect(
        (await s.get(`/events?ical=1&${window}`, { as: null, headers: { 'if-none-match': previous } })).status,
      ).toBe(304);
    }
    const asAdmin = await s.get(`/events?ical=1&${window}`, { headers: { 'if-none-match': previous } });
    expect(asAdmin.status).toBe(200);
  });

  it('leaves out the farthest events of a feed rather than grow past its size in bytes', async () => {
    const long = `<p>${'A long programme note. '.repeat(2800)}</p>`; // about 64 KB, the most a description holds
    const day = '2044-04-';
    const answers = await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        s.post('/events', {
          title: `Long ${String(i).padStart(2, '0')}`,
          description: long,
          start_date: `${day}${String(1 + i).padStart(2, '0')} 10:00`,
          end_date: `${day}${String(1 + i).padStart(2, '0')} 11:00`,
        }),
      ),
    );
    for (const a of answers) expect(a.status).toBe(201);
    const all = await s.get(`/events?ical=1&start_date=${day}01&end_date=${day}30`);
    expect(parse(all.text).events).toHaveLength(12);
    const size = Buffer.byteLength(all.text);
    expect(size).toBeGreaterThan(12 * 60_000);
    // The bound of the feed (services/event-list.ts FEED_MAX_BYTES) is far above this; the same rule
    // at a smaller bound, through the serializer the feed uses:
    const rows = await feedRowsOf(s, `${day}01`, `${day}30`);
    const bounded = await eventsCalendar(rows, calendarOptions(s), size / 2);
    const kept = parse(bounded.toString()).events.map((e) => e.event.summary);
    expect(bounded.length).toBeLessThanOrEqual(size / 2);
    expect(kept).toEqual(Array.from({ length: kept.length }, (_, i) => `Long ${String(i).padStart(2, '0')}`));
    expect(kept.length).toBeGreaterThanOrEqual(5);
    expect(kept.length).toBeLessThan(12);
  });

  it('keeps events under way and those that ended in the last 30 days in the default feed', async () => {
    const at = (hours: number) => new Date(Date.now() + hours * 3600_000).toISOString().slice(0, 16).replace('T', ' ');
    const make = async (title: string, from: number, to: number) =>
      (await s.post('/events', { title, start_date: at(from), end_date: at(to), timezone: 'UTC' })).body;
    const underWay = await make('Under way now', -1, 2);
    const recent = await make('Ended ten days ago', -10 * 24 - 2, -10 * 24);
    const old = await make('Ended forty days ago', -40 * 24 - 2, -40 * 24);
    const coming = await make('Tomorrow', 24, 26);
    const uids = parse((await s.get('/events?ical=1')).text).events.map((e) => e.event.uid);
    expect(uids).toEqual(expect.arrayContaining([underWay.global_id, recent.global_id, coming.global_id]));
    expect(uids).not.toContain(old.global_id);
    // The JSON list keeps its window: what starts from now on.
    const listed = (await s.get('/events?per_page=50')).body.events.map((e: any) => e.id);
    expect(listed).toContain(coming.id);
    expect(listed).not.toContain(underWay.id);
  });

  it('escapes every text as RFC 5545 says, calendar names included, so that hostile titles parse back', async () => {
    const hostile = [
      'Night\nOwls; a, b \\ c',
      'Line one\r\nLine two\rthree',
      'Quote " and colon: semi; comma,',
      'Bell \u0007 and escape \u001b and tab\tend',
    ];
    for (const title of hostile) {
      const event = (
        await s.post('/events', {
          title,
          description: title,
          start_date: '2039-09-09 10:00',
          end_date: '2039-09-09 11:00',
          venue: { venue: `${title} hall`, city: title.slice(0, 20) },
          organizer: [{ organizer: `${title} org`, email: 'org@example.com' }],
          categories: [`${title.replace(/[^A-Za-z ]/g, '')} cat`],
        })
      ).body;
      const text = (await s.get(`/events/${event.id}?ical=1`)).text;
      expect(
        text.split('\r\n').every((line) => !/[\r\n]/.test(line)),
        title,
      ).toBe(true);
      const { calendar, events } = parse(text);
      // Control characters RFC 5545 allows nowhere are left out, line breaks are all one; the rest comes back as sent.
      // eslint-disable-next-line no-control-regex -- control characters are what is left out
      const readable = title.replace(/[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F]/g, '').replace(/\r\n?/g, '\n');
      // ical.js leaves the values of properties it does not know (NAME, X-WR-CALNAME) escaped.
      expect(unescapeText(calendar.getFirstPropertyValue('x-wr-calname')), title).toBe(readable);
      expect(unescapeText(calendar.getFirstPropertyValue('name')), title).toBe(readable);
      expect(events[0].event.summary, title).toBe(readable);
      expect(events[0].event.location, title).toContain(`${readable} hall`);
      expect(events[0].component.getFirstProperty('organizer')?.getParameter('cn'), title).not.toContain('"');
    }
  });

  it('keeps JSON for clients that ask for it or for anything', async () => {
    for (const accept of ['application/json', '*/*', 'application/json, text/calendar;q=0.5']) {
      const r = await s.get(`/events/${jazz.id}`, { headers: { accept } });
      expect(r.headers.get('content-type'), accept).toMatch(/^application\/json/);
    }
  });
});
