// The zone of each time a VEVENT gives (src/ical/zones.ts, zone-names.ts): IANA names however they
// are written, Windows names and display names, a file's VTIMEZONEs, floating times and UTC.
import { DateTime } from 'luxon';
import { describe, expect, it } from 'vitest';
import { calendar, only, read, vevent } from './read.js';

/** The start, end and zone of a one-hour event starting at 09:00 on 1 March 2027 in `tzid`. */
const at = (tzid: string, ...more: string[]) =>
  only(
    calendar(
      ...vevent('UID:z', 'SUMMARY:Zoned', `DTSTART;TZID=${tzid}:20270301T090000`, `DTEND;TZID=${tzid}:20270301T100000`),
      ...more,
    ),
  );

/** A VTIMEZONE of one fixed offset (`+0300`), of no IANA name, optionally naming one in X-LIC-LOCATION. */
const fixedZone = (tzid: string, offset: string, ...more: string[]) => [
  'BEGIN:VTIMEZONE',
  `TZID:${tzid}`,
  ...more,
  'BEGIN:STANDARD',
  'DTSTART:19700101T000000',
  `TZOFFSETFROM:${offset}`,
  `TZOFFSETTO:${offset}`,
  'END:STANDARD',
  'END:VTIMEZONE',
];

describe('the zone of a time', () => {
  it.each([
    ['an IANA name', 'Europe/Berlin', 'Europe/Berlin'],
    ['a globally unique TZID that ends in one', '/mozilla.org/20070129_1/America/New_York', 'America/New_York'],
    ['a Windows name (CLDR)', 'Eastern Standard Time', 'America/New_York'],
    [
      'a Windows display name, by its cities',
      '"(UTC+01:00) Amsterdam, Berlin, Bern, Rome, Stockholm, Vienna"',
      'Europe/Amsterdam',
    ],
    ['a Windows display name, by its region', '"(UTC-05:00) Eastern Time (US & Canada)"', 'America/New_York'],
  ])('is the IANA zone %s names', (_, tzid, zone) => {
    const item = at(tzid);
    expect([item.body.timezone, item.body.start_date, item.body.end_date]).toEqual([
      zone,
      '2027-03-01 09:00:00',
      '2027-03-01 10:00:00',
    ]);
    expect(item.remarks).toEqual([]);
  });

  it('is the zone a VTIMEZONE names in X-LIC-LOCATION when its offsets agree', () => {
    const item = at('Custom', ...fixedZone('Custom', '+0100', 'X-LIC-LOCATION:Africa/Lagos'));
    expect(item.body.timezone).toBe('Africa/Lagos');
  });

  it('converts a time in a VTIMEZONE of no IANA name to UTC', () => {
    const item = at('Plus Three', ...fixedZone('Plus Three', '+0300'));
    expect([item.body.timezone, item.body.start_date]).toEqual(['UTC', '2027-03-01 06:00:00']);
  });

  it('reads a series in such a zone in the IANA zone that keeps its offsets', () => {
    const { items } = read(
      calendar(
        ...vevent('UID:s', 'SUMMARY:Weekly', 'DTSTART;TZID=Plus Three:20270301T090000', 'RRULE:FREQ=WEEKLY;COUNT=3'),
        ...fixedZone('Plus Three', '+0300'),
      ),
    );
    const zone = String(items[0].body.timezone);
    expect(items[0].body.start_date).toBe('2027-03-01 09:00:00');
    expect([1, 7].map((month) => DateTime.fromObject({ year: 2027, month }, { zone }).offset)).toEqual([180, 180]);
    expect(items[0].remarks).toEqual([
      `a TZID that is no IANA name: its series is read in ${zone}, which keeps the offsets of its VTIMEZONE`,
    ]);
  });

  it('reads a TZID neither IANA’s nor in the file in the site’s zone, with a remark', () => {
    const item = at('Nowhere Standard Time');
    expect([item.body.timezone, item.body.start_date]).toEqual(['', '2027-03-01 09:00:00']);
    expect(item.remarks).toContain(
      `TZID "Nowhere Standard Time" is neither an IANA name nor given in the file (RFC 5545 3.2.19): read in the site's zone`,
    );
  });

  it('keeps UTC, and reads floating times in the calendar’s zone (X-WR-TIMEZONE)', () => {
    const { items } = read(
      calendar(
        'X-WR-TIMEZONE:America/Chicago',
        ...vevent('UID:utc', 'SUMMARY:U', 'DTSTART:20270301T090000Z'),
        ...vevent('UID:floating', 'SUMMARY:F', 'DTSTART:20270301T090000'),
      ),
    );
    expect(items.map((i) => [i.body.timezone, i.body.start_date])).toEqual([
      ['UTC', '2027-03-01 09:00:00'],
      ['America/Chicago', '2027-03-01 09:00:00'],
    ]);
  });

  it('says so when X-WR-TIMEZONE is no IANA zone, and reads floating times in the site’s', () => {
    const { items, notes } = read(
      calendar('X-WR-TIMEZONE:Somewhere', ...vevent('UID:f', 'SUMMARY:F', 'DTSTART:20270301T090000')),
    );
    expect(items[0].body.timezone).toBe('');
    expect(notes).toEqual([
      'X-WR-TIMEZONE "Somewhere" is no IANA zone: dates and floating times were read in the site\'s zone.',
    ]);
  });

  it('refuses the events of a VTIMEZONE past the bounds it is read within, and says why', () => {
    const hourly = [
      'BEGIN:VTIMEZONE',
      'TZID:Hourly',
      'BEGIN:STANDARD',
      'DTSTART:20000101T000000',
      'RRULE:FREQ=HOURLY',
      'TZOFFSETFROM:+0100',
      'TZOFFSETTO:+0100',
      'END:STANDARD',
      'END:VTIMEZONE',
    ];
    const { items, unreadable, notes } = read(
      calendar(...vevent('UID:h', 'SUMMARY:H', 'DTSTART;TZID=Hourly:20270301T090000'), ...hourly),
    );
    const why = "An observance of the VTIMEZONE Hourly repeats HOURLY: a zone's rules repeat YEARLY or MONTHLY.";
    expect(items).toEqual([]);
    expect(notes).toEqual([why]);
    expect(unreadable.map((u) => u.reason)).toEqual([why]);
  });
});
