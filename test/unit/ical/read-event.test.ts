// A VEVENT as an event of the API (src/ical/read-event.ts, read-links.ts, read-recurrence.ts): its
// fields, what it names, all-day events, series and changed occurrences. test/http/import-ics*.test.ts
// import whole files through the service; these are the reader's rules, one at a time.
import { describe, expect, it } from 'vitest';
import { calendar, only, read, vevent } from './read.js';

describe('reading a VEVENT', () => {
  it('maps its fields, and its place, organizer and categories as items of their own', () => {
    const item = only(
      calendar(
        ...vevent(
          'UID:jazz@example.com',
          'DTSTART;TZID=Europe/Berlin:20270301T190000',
          'DTEND;TZID=Europe/Berlin:20270301T210000',
          'SUMMARY:Jazz night',
          'DESCRIPTION:First line\\nsecond line\\n\\nA paragraph & more',
          'LOCATION:Blue Note Hall\\n131 W 3rd St\\, New York',
          'GEO:40.7309;-74.0006',
          'ORGANIZER;CN=Ana Ribeiro:mailto:ana@example.com',
          'CATEGORIES:Jazz,Music',
          'CATEGORIES:jazz',
          'URL:https://example.com/jazz',
        ),
      ),
    );
    expect(item.externalId).toBe('jazz@example.com');
    expect(item.body).toEqual({
      title: 'Jazz night',
      description: '<p>First line<br />\nsecond line</p>\n<p>A paragraph &amp; more</p>',
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
    expect(item.embedded?.map((e) => [e.externalId, e.body])).toEqual([
      [
        'venue:blue note hall',
        { venue: 'Blue Note Hall', address: '131 W 3rd St, New York', geo_lat: 40.7309, geo_lng: -74.0006 },
      ],
      ['organizer:ana ribeiro', { organizer: 'Ana Ribeiro', email: 'ana@example.com' }],
      ['category:jazz', { name: 'jazz', parent: 0 }],
      ['category:music', { name: 'Music', parent: 0 }],
    ]);
    expect(item.refs.map((r) => [r.field, r.items.map((i) => i.externalId)])).toEqual([
      ['venue', ['venue:blue note hall']],
      ['organizer', ['organizer:ana ribeiro']],
      ['categories', ['category:jazz', 'category:music']],
    ]);
    expect(item.remarks).toEqual([]);
  });

  it.each([
    // [the lines, is_virtual, is_hybrid, virtual_url, the venue it names]
    [
      ['CONFERENCE;VALUE=URI;FEATURE=VIDEO;LABEL=Join:https://meet.example.org/a'],
      true,
      false,
      'https://meet.example.org/a',
      null,
    ],
    // Google's Meet link and Microsoft's Teams link, with a place: hybrid.
    [
      ['X-GOOGLE-CONFERENCE:https://meet.google.com/abc-defg-hij', 'LOCATION:Room 4'],
      true,
      true,
      'https://meet.google.com/abc-defg-hij',
      'Room 4',
    ],
    [
      ['X-MICROSOFT-SKYPETEAMSMEETINGURL:https://teams.microsoft.com/l/meetup-join/19%3ameeting_x'],
      true,
      false,
      'https://teams.microsoft.com/l/meetup-join/19%3ameeting_x',
      null,
    ],
    // A LOCATION that is only a link is where it happens online, not a venue.
    [['LOCATION:https://zoom.us/j/123456789'], true, false, 'https://zoom.us/j/123456789', null],
    // The first join link counts: a phone number is none, nor is an http link.
    [
      ['CONFERENCE;VALUE=URI;FEATURE=PHONE:tel:+1-555-0100', 'CONFERENCE;VALUE=URI:https://meet.example.org/b'],
      true,
      false,
      'https://meet.example.org/b',
      null,
    ],
    [['CONFERENCE;VALUE=URI:http://meet.example.org/c', 'LOCATION:Hall'], false, false, '', 'Hall'],
    [['LOCATION:http://example.org/room'], false, false, '', 'http://example.org/room'],
    [['X-GOOGLE-CONFERENCE:https://meet.example.org/has space'], false, false, '', null],
    // Outlook names the Teams meeting in LOCATION: no place, unless it lists one beside it.
    [
      ['X-MICROSOFT-SKYPETEAMSMEETINGURL:https://teams.microsoft.com/l/x', 'LOCATION:Microsoft Teams-Besprechung'],
      true,
      false,
      'https://teams.microsoft.com/l/x',
      null,
    ],
    [
      ['X-MICROSOFT-SKYPETEAMSMEETINGURL:https://teams.microsoft.com/l/x', 'LOCATION:Microsoft Teams Meeting; Room 4'],
      true,
      true,
      'https://teams.microsoft.com/l/x',
      'Microsoft Teams Meeting; Room 4',
    ],
    [['LOCATION:Microsoft Teams Meeting'], false, false, '', 'Microsoft Teams Meeting'],
  ])('reads where it happens online from %j', (lines, isVirtual, isHybrid, url, venue) => {
    const item = only(calendar(...vevent('UID:o', 'SUMMARY:Online', 'DTSTART:20270301T190000Z', ...lines)));
    expect(item.body).toMatchObject({ is_virtual: isVirtual, is_hybrid: isHybrid, virtual_url: url });
    expect(item.embedded?.find((e) => e.kind === 'venue')?.label ?? null).toBe(venue);
    expect(item.remarks).toEqual([]);
  });

  it('takes an event without UID or SUMMARY, named by what it holds, with a remark for each', () => {
    const text = calendar(...vevent('DTSTART:20270301T190000Z'));
    const item = only(text);
    expect(item.externalId).toMatch(/^no-uid:[0-9a-f]{32}$/);
    expect(only(text).externalId).toBe(item.externalId);
    expect(item.body.title).toBe('(No title)');
    expect(item.remarks).toEqual([
      'no SUMMARY: titled "(No title)"',
      'no UID (RFC 5545 3.8.4.7): identified by its DTSTART and SUMMARY',
    ]);
  });

  it('refuses a VEVENT without DTSTART, and reads the others', () => {
    const { items, unreadable } = read(
      calendar(...vevent('UID:none', 'SUMMARY:No start'), ...vevent('UID:ok', 'DTSTART:20270301T190000Z')),
    );
    expect(items.map((i) => i.externalId)).toEqual(['ok']);
    expect(unreadable).toEqual([{ kind: 'event', externalId: 'none', reason: expect.stringContaining('no DTSTART') }]);
  });

  it('keeps the VEVENT of a UID with the highest SEQUENCE, the later one on a tie', () => {
    const { items, unreadable } = read(
      calendar(
        ...vevent('UID:a', 'SEQUENCE:2', 'SUMMARY:Second', 'DTSTART:20270301T190000Z'),
        ...vevent('UID:a', 'SEQUENCE:1', 'SUMMARY:First', 'DTSTART:20270301T190000Z'),
        ...vevent('UID:b', 'SUMMARY:Old', 'DTSTART:20270301T190000Z'),
        ...vevent('UID:b', 'SUMMARY:New', 'DTSTART:20270301T190000Z'),
      ),
    );
    expect(items.map((i) => i.body.title)).toEqual(['Second', 'New']);
    expect(unreadable.map((u) => u.reason)).toEqual([
      'Another VEVENT of this UID has a higher SEQUENCE (RFC 5545 3.8.7.4).',
      'A later VEVENT of this UID replaces it (RFC 5545 3.8.7.4: the same SEQUENCE).',
    ]);
  });

  it('leaves out an end before the start, and an ORGANIZER address that is no e-mail address', () => {
    const item = only(
      calendar(
        ...vevent(
          'UID:a',
          'SUMMARY:Backwards',
          'DTSTART:20270301T190000Z',
          'DTEND:20270301T180000Z',
          'ORGANIZER;CN=Ana:mailto:ana@@example',
        ),
      ),
    );
    expect(item.body.end_date).toBe('2027-03-01 19:00:00');
    expect(item.embedded?.find((e) => e.kind === 'organizer')?.body).toEqual({ organizer: 'Ana' });
    expect(item.remarks).toEqual([
      'a DTEND before DTSTART (RFC 5545 3.8.2.2) was left out',
      'an ORGANIZER address that is no e-mail address was left out',
    ]);
  });
});

describe('all-day events', () => {
  it('end the day before their DTEND, and last their day without one', () => {
    const { items } = read(
      calendar(
        ...vevent('UID:two', 'DTSTART;VALUE=DATE:20270301', 'DTEND;VALUE=DATE:20270303'),
        ...vevent('UID:one', 'DTSTART;VALUE=DATE:20270301'),
      ),
    );
    expect(items.map((i) => [i.body.start_date, i.body.end_date, i.body.all_day, i.body.timezone])).toEqual([
      ['2027-03-01 00:00:00', '2027-03-02 23:59:59', true, ''],
      ['2027-03-01 00:00:00', '2027-03-01 23:59:59', true, ''],
    ]);
  });

  it('are in the zone the export writes beside their dates, else the calendar’s', () => {
    const { items } = read(
      calendar(
        'X-WR-TIMEZONE:Europe/Lisbon',
        ...vevent('UID:a', 'DTSTART;VALUE=DATE:20270301', 'X-CALENDAR-EVENTS-TZID:America/New_York'),
        ...vevent('UID:b', 'DTSTART;VALUE=DATE:20270301'),
      ),
    );
    expect(items.map((i) => i.body.timezone)).toEqual(['America/New_York', 'Europe/Lisbon']);
  });

  it('include Outlook’s midnight to midnight flagged as all-day', () => {
    const item = only(
      calendar(
        ...vevent(
          'UID:a',
          'DTSTART;TZID=W. Europe Standard Time:20270301T000000',
          'DTEND;TZID=W. Europe Standard Time:20270302T000000',
          'X-MICROSOFT-CDO-ALLDAYEVENT:TRUE',
        ),
      ),
    );
    expect([item.body.all_day, item.body.start_date, item.body.end_date]).toEqual([
      true,
      '2027-03-01 00:00:00',
      '2027-03-01 23:59:59',
    ]);
  });
});

describe('series and changed occurrences', () => {
  const series = (...lines: string[]) =>
    vevent('UID:s', 'SUMMARY:Weekly', 'DTSTART;TZID=Europe/Berlin:20270301T190000', ...lines);

  it('keeps the rule as written and packs the EXDATEs into one line', () => {
    const item = only(
      calendar(
        ...series(
          'RRULE:FREQ=WEEKLY;COUNT=5',
          'EXDATE;TZID=Europe/Berlin:20270308T190000',
          'EXDATE;TZID=Europe/Berlin:20270315T190000',
        ),
      ),
    );
    expect(item.body.recurrence).toEqual([
      'RRULE:FREQ=WEEKLY;COUNT=5',
      'EXDATE;TZID=Europe/Berlin:20270308T190000,20270315T190000',
    ]);
  });

  it('takes a date EXDATE of a series with times at its time of day, and an RDATE period as its start', () => {
    const item = only(
      calendar(
        ...series(
          'RRULE:FREQ=WEEKLY;COUNT=5',
          'EXDATE;VALUE=DATE:20270308',
          'RDATE;VALUE=PERIOD:20270402T170000Z/PT1H',
        ),
      ),
    );
    expect(item.body.recurrence).toEqual([
      'RRULE:FREQ=WEEKLY;COUNT=5',
      'EXDATE;TZID=Europe/Berlin:20270308T190000',
      'RDATE:20270402T170000Z',
    ]);
    expect(item.remarks).toEqual([
      'RDATE periods were taken as their starts',
      "an EXDATE date of a series with times was taken at the series' time of day",
    ]);
  });

  it('leaves out EXDATEs without a rule, which exclude nothing', () => {
    const item = only(calendar(...series('EXDATE;TZID=Europe/Berlin:20270308T190000')));
    expect(item.body.recurrence).toEqual([]);
    expect(item.remarks).toEqual(['EXDATE without RRULE or RDATE (RFC 5545 3.8.5.1) was left out']);
  });

  it('reads a changed occurrence after its series, named by the start it replaces in the series’ zone', () => {
    const { items } = read(
      calendar(
        ...vevent(
          'UID:s',
          'RECURRENCE-ID:20270315T180000Z',
          'DTSTART;TZID=America/New_York:20270315T150000',
          'SUMMARY:Moved',
        ),
        ...series('RRULE:FREQ=WEEKLY;COUNT=5'),
      ),
    );
    expect(items.map((i) => i.externalId)).toEqual(['s', 's#2027-03-15T18:00:00Z']);
    expect(items[1].occurrenceOf).toEqual({
      series: { kind: 'event', externalId: 's' },
      originalStart: '2027-03-15 19:00:00',
      instant: new Date('2027-03-15T18:00:00Z'),
      day: '2027-03-15',
    });
    expect(items[1].body).toMatchObject({ start_date: '2027-03-15 15:00:00', timezone: 'America/New_York' });
    expect(items[1].body).not.toHaveProperty('recurrence');
  });

  it('names an occurrence of an all-day series by its day, as Exchange writes it at midnight', () => {
    const { items } = read(
      calendar(
        ...vevent('UID:d', 'DTSTART;VALUE=DATE:20270301', 'RRULE:FREQ=DAILY;COUNT=5', 'EXDATE:20270302T000000Z'),
        ...vevent('UID:d', 'RECURRENCE-ID;TZID=W. Europe Standard Time:20270303T000000', 'DTSTART;VALUE=DATE:20270303'),
      ),
    );
    expect(items[0].body.recurrence).toEqual(['RRULE:FREQ=DAILY;COUNT=5', 'EXDATE;VALUE=DATE:20270302']);
    expect(items[1].occurrenceOf).toEqual({
      series: { kind: 'event', externalId: 'd' },
      originalStart: '2027-03-03 00:00:00',
      day: '2027-03-03',
    });
  });

  it('imports a changed occurrence whose series is not in the file as an event of its own', () => {
    const item = only(
      calendar(...vevent('UID:lone', 'SUMMARY:Lone', 'RECURRENCE-ID:20270315T180000Z', 'DTSTART:20270315T190000Z')),
    );
    expect(item.occurrenceOf).toBeUndefined();
    expect(item.remarks).toEqual(['a RECURRENCE-ID whose series is not in the file: imported as an event of its own']);
  });
});
