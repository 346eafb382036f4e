// The export (src/ical/write-calendar.ts) read back by the reader (read-calendar.ts): a record
// written as a VEVENT and read again gives the fields it was written from, as the feeds and CalDAV
// serve it. test/http/events-ical.test.ts checks the feeds' text through the service.
import { describe, expect, it } from 'vitest';
import type { EventRecord, VenueOrOrganizerRecord } from '../../../src/domain/records.js';
import { eventsCalendar } from '../../../src/ical/write-calendar.js';
import { read } from './read.js';

const urls = {
  site: 'https://example.org',
  root: 'https://example.org/wp-json',
  base: 'https://example.org/wp-json/calendar/events/v1',
};
const modifiedAt = new Date('2027-01-05T10:00:00Z');

const post = (id: number, fields: Record<string, unknown>): VenueOrOrganizerRecord => ({
  id,
  authorId: 1,
  status: 'publish',
  slug: `post-${id}`,
  name: '',
  description: '',
  excerpt: '',
  publishedAt: modifiedAt,
  modifiedAt,
  image: null,
  imageId: null,
  imageMeta: null,
  ...fields,
});

/** An event as the services read it, with what the writer looks at; the rest of its columns are not. */
function record(fields: Partial<EventRecord>): EventRecord {
  return {
    id: 7,
    authorId: 1,
    status: 'publish',
    slug: 'jazz-night',
    title: 'Jazz night',
    description: '<p>Bring a friend &amp; a chair.</p>\n<p>Doors at seven.</p>',
    excerpt: '',
    website: 'https://example.com/jazz',
    timezone: 'Europe/Berlin',
    allDay: false,
    startLocal: new Date('2027-03-01T19:00:00Z'),
    endLocal: new Date('2027-03-01T21:00:00Z'),
    startUtc: new Date('2027-03-01T18:00:00Z'),
    endUtc: new Date('2027-03-01T20:00:00Z'),
    recurrence: [],
    parentId: null,
    isException: false,
    originalStartLocal: null,
    eventStatus: 'scheduled',
    eventStatusReason: '',
    isVirtual: false,
    isHybrid: false,
    virtualUrl: null,
    modifiedAt,
    image: null,
    imageMeta: null,
    venues: [
      {
        venue: post(3, {
          name: 'Blue Note Hall',
          address: '131 W 3rd St',
          city: 'New York',
          geoLat: 40.7309,
          geoLng: -74.0006,
        }),
      },
    ],
    organizers: [{ organizer: post(4, { name: 'Ana Ribeiro', email: 'ana@example.com' }) }],
    terms: [{ term: { name: 'Jazz' } }, { term: { name: 'Music' } }],
    ...fields,
  } as unknown as EventRecord;
}

const options = { urls, caller: null, name: 'Events', series: true };

/** The records written as one calendar, and read back as the import reads a file. */
async function roundTrip(rows: EventRecord[]) {
  const text = (await eventsCalendar(rows, options)).toString();
  return { text, ...read(text) };
}

describe('an event written and read back', () => {
  it('gives the fields it was written from', async () => {
    const { items, unreadable, notes } = await roundTrip([record({})]);
    expect([unreadable, notes]).toEqual([[], []]);
    expect(items).toHaveLength(1);
    expect(items[0].externalId).toBe('example.org?id=7');
    expect(items[0].body).toEqual({
      title: 'Jazz night',
      description: '<p>Bring a friend &amp; a chair.</p>\n<p>Doors at seven.</p>',
      start_date: '2027-03-01 19:00:00',
      end_date: '2027-03-01 21:00:00',
      timezone: 'Europe/Berlin',
      all_day: false,
      status: 'publish',
      website: 'https://example.com/jazz',
      event_status: 'scheduled',
      event_status_reason: '',
      is_virtual: false,
      is_hybrid: false,
      virtual_url: '',
      recurrence: [],
    });
    expect(items[0].embedded?.map((e) => [e.kind, e.body])).toEqual([
      ['venue', { venue: 'Blue Note Hall', address: '131 W 3rd St, New York', geo_lat: 40.7309, geo_lng: -74.0006 }],
      ['organizer', { organizer: 'Ana Ribeiro', email: 'ana@example.com' }],
      ['category', { name: 'Jazz', parent: 0 }],
      ['category', { name: 'Music', parent: 0 }],
    ]);
    expect(items[0].remarks).toEqual([]);
  });

  it('keeps an all-day event’s days and zone', async () => {
    const { items } = await roundTrip([
      record({
        allDay: true,
        timezone: 'America/New_York',
        startLocal: new Date('2027-03-01T00:00:00Z'),
        endLocal: new Date('2027-03-02T23:59:59Z'),
      }),
    ]);
    expect(items[0].body).toMatchObject({
      start_date: '2027-03-01 00:00:00',
      end_date: '2027-03-02 23:59:59',
      timezone: 'America/New_York',
      all_day: true,
    });
  });

  it('keeps a series, its exceptions and a changed occurrence', async () => {
    const series = record({ recurrence: ['RRULE:FREQ=WEEKLY;COUNT=5', 'EXDATE;TZID=Europe/Berlin:20270308T190000'] });
    const moved = record({
      id: 9,
      slug: 'jazz-night-moved',
      title: 'Jazz night, later',
      parentId: 7,
      isException: true,
      originalStartLocal: new Date('2027-03-15T19:00:00Z'),
      startLocal: new Date('2027-03-15T20:00:00Z'),
      endLocal: new Date('2027-03-15T22:00:00Z'),
      startUtc: new Date('2027-03-15T19:00:00Z'),
      endUtc: new Date('2027-03-15T21:00:00Z'),
    });
    const { items } = await roundTrip([series, moved]);
    expect(items.map((i) => i.externalId)).toEqual(['example.org?id=7', 'example.org?id=7#2027-03-15T19:00:00']);
    expect(items[0].body.recurrence).toEqual([
      'RRULE:FREQ=WEEKLY;COUNT=5',
      'EXDATE;TZID=Europe/Berlin:20270308T190000',
    ]);
    expect(items[1].occurrenceOf).toMatchObject({
      series: { externalId: 'example.org?id=7' },
      originalStart: '2027-03-15 19:00:00',
    });
    expect(items[1].body).toMatchObject({ title: 'Jazz night, later', start_date: '2027-03-15 20:00:00' });
  });

  it('gives each status back as CalDAV reads it, and marks a private event', async () => {
    const statuses = ['publish', 'private', 'draft'] as const;
    const rows = statuses.map((status, i) => record({ id: 20 + i, status }));
    const { text } = await roundTrip(rows);
    expect(text).toContain('CLASS:PRIVATE');
    const back = read(text, { statuses: 'caldav' }).items.map((i) => i.body.status);
    expect(back).toEqual([...statuses]);
  });

  it('writes a cancelled event CANCELLED and a postponed one as its post status says, each with its reason', async () => {
    const rows = [
      record({ id: 30, eventStatus: 'canceled', eventStatusReason: 'The hall flooded; sorry, all' }),
      record({ id: 31, eventStatus: 'canceled', status: 'private' }),
      record({ id: 32, eventStatus: 'postponed', eventStatusReason: 'Ill' }),
      record({ id: 33, eventStatus: 'scheduled', eventStatusReason: '' }),
    ];
    const { text } = await roundTrip(rows);
    const vevents = text.split('BEGIN:VEVENT').slice(1);
    expect(vevents[0]).toContain('STATUS:CANCELLED');
    expect(vevents[0]).toContain('X-CALENDAR-EVENTS-STATUS-REASON:The hall flooded\\; sorry\\, all');
    // CLASS stays as the post status says.
    expect(vevents[1]).toMatch(/STATUS:CANCELLED[\s\S]*CLASS:PRIVATE|CLASS:PRIVATE[\s\S]*STATUS:CANCELLED/);
    expect(vevents[2]).toContain('STATUS:CONFIRMED');
    expect(vevents[2]).toContain('X-CALENDAR-EVENTS-STATUS:POSTPONED');
    expect(vevents[3]).not.toContain('X-CALENDAR-EVENTS');
    for (const reading of ['import', 'caldav'] as const) {
      const back = read(text, { statuses: reading }).items.map((i) => [
        i.body.status,
        i.body.event_status,
        i.body.event_status_reason,
      ]);
      expect(back).toEqual([
        ['publish', 'canceled', 'The hall flooded; sorry, all'],
        ['private', 'canceled', ''],
        ['publish', 'postponed', 'Ill'],
        ['publish', 'scheduled', ''],
      ]);
    }
  });

  it('writes the link of an online event as CONFERENCE, its venue beside it when hybrid, and reads both back', async () => {
    const url = `https://meet.example.org/${'long-room-name-'.repeat(6)}`;
    const rows = [
      record({ id: 40, isVirtual: true, virtualUrl: url, venues: [] }),
      record({ id: 41, isVirtual: true, isHybrid: true, virtualUrl: 'https://meet.example.org/h' }),
      // Online without a link yet: nothing to join.
      record({ id: 42, isVirtual: true, virtualUrl: null }),
      // A link left from an event taken offline is not written.
      record({ id: 43, isVirtual: false, virtualUrl: 'https://meet.example.org/old' }),
    ];
    const { text, items } = await roundTrip(rows);
    const vevents = text.replace(/\r\n /g, '').split('BEGIN:VEVENT').slice(1);
    // Folded at 75 octets, as every line.
    expect(text.split('\r\n').every((line) => Buffer.byteLength(line) <= 75)).toBe(true);
    expect(vevents[0]).toContain(`CONFERENCE;VALUE=URI;FEATURE=AUDIO,VIDEO;LABEL=Join online:${url}\r\n`);
    expect(vevents[1]).toContain(
      'CONFERENCE;VALUE=URI;FEATURE=AUDIO,VIDEO;LABEL=Join online:https://meet.example.org/h',
    );
    expect(vevents[2]).not.toContain('CONFERENCE');
    expect(vevents[3]).not.toContain('CONFERENCE');
    expect(items.map((i) => [i.body.is_virtual, i.body.is_hybrid, i.body.virtual_url])).toEqual([
      [true, false, url],
      [true, true, 'https://meet.example.org/h'],
      [false, false, ''],
      [false, false, ''],
    ]);
  });
});
