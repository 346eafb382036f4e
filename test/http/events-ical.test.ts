// Events as iCalendar over HTTP: the feed and single events parsed with ical.js and compared, field by
// field, with the JSON representation of the same events; the list feed honours the JSON list's filters.
import ICAL from 'ical.js';
import { beforeAll, expect, it } from 'vitest';
import { describeEachDatabase } from '../setup/each-database.js';

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
    expect(r.text.endsWith('END:VCALENDAR\r\n') || r.text.endsWith('END:VCALENDAR')).toBe(true);
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

  it('serves the list as a feed of the same events as the JSON list, filters and paging included', async () => {
    for (const query of [
      '?start_date=2039-01-01&end_date=2039-12-31',
      '?start_date=2039-01-01&end_date=2039-12-31&categories=concerts-2039',
      '?start_date=2039-01-01&end_date=2039-12-31&per_page=1&page=2',
    ]) {
      const feed = await s.get(`/events${query}`, CALENDAR);
      const json = await s.get(`/events${query}`);
      expect(feed.status, query).toBe(200);
      expect(
        parse(feed.text).events.map((e) => e.event.uid),
        query,
      ).toEqual(json.body.events.map((e: any) => e.global_id));
      expect(feed.headers.get('x-tec-total'), query).toBe(json.headers.get('x-tec-total'));
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

  it('keeps JSON for clients that ask for it or for anything', async () => {
    for (const accept of ['application/json', '*/*', 'application/json, text/calendar;q=0.5']) {
      const r = await s.get(`/events/${jazz.id}`, { headers: { accept } });
      expect(r.headers.get('content-type'), accept).toMatch(/^application\/json/);
    }
  });
});
