// What the reader repairs before ical.js reads a VEVENT (src/ical/line-repair.ts), the bytes it
// takes (blocks.ts, charset.ts), and the same reading from a calendar a door parsed already
// (read-calendar.ts ParsedCalendar, as CalDAV hands a PUT's body over).
import ICAL from 'ical.js';
import { describe, expect, it, vi } from 'vitest';
import { readCalendar } from '../../../src/ical/read-calendar.js';
import { calendar, only, read, readParsed, vevent } from './read.js';

describe('lines repaired before they are read', () => {
  it('takes 8-digit values without VALUE=DATE as dates', () => {
    const item = only(calendar(...vevent('UID:a', 'SUMMARY:A', 'DTSTART:20270301', 'DTEND:20270302')));
    expect([item.body.all_day, item.body.start_date, item.body.end_date]).toEqual([
      true,
      '2027-03-01 00:00:00',
      '2027-03-01 23:59:59',
    ]);
  });

  it('drops spaces and empty parts inside a RRULE, and an EXDATE without values', () => {
    const item = only(
      calendar(
        ...vevent('UID:a', 'SUMMARY:A', 'DTSTART:20270301T090000Z', 'RRULE:FREQ=WEEKLY; BYDAY=MO, TU;', 'EXDATE:'),
      ),
    );
    expect(item.body.recurrence).toEqual(['RRULE:FREQ=WEEKLY;BYDAY=MO,TU']);
    expect(item.remarks).toEqual([]);
  });

  it('puts back the quote Outlook closes after the value', () => {
    const item = only(
      calendar(...vevent('UID:a', 'SUMMARY:A', 'DTSTART;TZID="W. Europe Standard Time:20270301T090000"')),
    );
    expect([item.body.timezone, item.body.start_date]).toEqual(['Europe/Berlin', '2027-03-01 09:00:00']);
  });

  it('leaves out a line it cannot read, with a remark, but refuses a DTSTART it cannot read', () => {
    const { items, unreadable } = read(
      calendar(
        ...vevent('UID:a', 'SUMMARY:A', 'DTSTART:20270301T090000Z', 'DTEND:soon'),
        ...vevent('UID:b', 'SUMMARY:B', 'DTSTART:someday'),
      ),
    );
    expect(items.map((i) => [i.externalId, i.body.end_date, i.remarks])).toEqual([
      ['a', '2027-03-01 09:00:00', ['a DTEND that cannot be read (RFC 5545 3.1) was left out']],
    ]);
    expect(unreadable).toEqual([
      { kind: 'event', externalId: 'b', reason: expect.stringMatching(/^Its DTSTART is not a date or a date-time/) },
    ]);
  });

  it('reads VEVENTs without a VCALENDAR, with a note, and refuses what holds none', () => {
    const { items, notes } = read(vevent('UID:a', 'SUMMARY:A', 'DTSTART:20270301T090000Z').join('\r\n'));
    expect(items.map((i) => i.externalId)).toEqual(['a']);
    expect(notes).toEqual(['The file has no BEGIN:VCALENDAR (RFC 5545 3.4): its VEVENTs were read all the same.']);
    expect(() => read('hello')).toThrow('This is not an iCalendar file (no BEGIN:VCALENDAR, no VEVENT).');
  });

  it('refuses a VEVENT cut short by the next one, and reads the next', () => {
    const { items, unreadable } = read(
      calendar('BEGIN:VEVENT', 'UID:cut', ...vevent('UID:whole', 'SUMMARY:W', 'DTSTART:20270301T090000Z')),
    );
    expect(items.map((i) => i.externalId)).toEqual(['whole']);
    expect(unreadable.map((u) => u.reason)).toEqual([
      'It is cut short: it has no END:VEVENT (RFC 5545 3.4: each BEGIN has its END).',
    ]);
  });
});

describe('the bytes of a file', () => {
  const text = calendar(...vevent('UID:a', 'SUMMARY:Två', 'DTSTART:20270301T090000Z'));

  it('converts a file in the charset its server declared, and says so', () => {
    const { items, notes } = read(Buffer.from(text, 'latin1'), {}, 'ISO-8859-1');
    expect(items[0].body.title).toBe('Två');
    expect(notes).toEqual([
      'The file is not UTF-8 (RFC 5545 3.1.4 asks for it): it was read as windows-1252 (declared by its server as ISO-8859-1) and converted.',
    ]);
  });

  it('converts a UTF-16 file by its byte order mark', () => {
    const { items, notes } = read(Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(text, 'utf16le')]));
    expect(items[0].body.title).toBe('Två');
    expect(notes[0]).toContain('read as utf-16le (found by its byte order mark)');
  });

  it('unfolds a line folded inside a character’s bytes, and takes a UTF-8 byte order mark', () => {
    const [before, after] = text.split('Två');
    const a = Buffer.from('å');
    const bytes = Buffer.concat([
      Buffer.from([0xef, 0xbb, 0xbf]),
      Buffer.from(`${before}Tv`),
      a.subarray(0, 1),
      Buffer.from('\r\n '),
      a.subarray(1),
      Buffer.from(after),
    ]);
    const { items, notes } = read(bytes);
    expect(items[0].body.title).toBe('Två');
    expect(notes).toEqual([]);
  });
});

describe('a calendar a door parsed already', () => {
  it('reads as its text does, repaired lines and zones included', () => {
    const text = calendar(
      ...vevent(
        'UID:s',
        'SUMMARY:Weekly',
        'DTSTART;TZID=Plus Three:20270301T090000',
        'RRULE:FREQ=WEEKLY;COUNT=3',
        'EXDATE;TZID=Plus Three:20270308T090000',
        'CATEGORIES:Jazz',
      ),
      ...vevent('UID:s', 'RECURRENCE-ID;TZID=Plus Three:20270315T090000', 'DTSTART:20270315', 'SUMMARY:Moved'),
      ...vevent('UID:u', 'SUMMARY:Utc', 'DTSTART:20270301T090000Z', 'STATUS:TENTATIVE', 'CLASS:CONFIDENTIAL'),
      'BEGIN:VTIMEZONE',
      'TZID:Plus Three',
      'BEGIN:STANDARD',
      'DTSTART:19700101T000000',
      'TZOFFSETFROM:+0300',
      'TZOFFSETTO:+0300',
      'END:STANDARD',
      'END:VTIMEZONE',
    );
    const parsed = readParsed(text);
    expect(parsed).toEqual(read(text));
    expect(parsed.items.map((i) => [i.externalId, i.body.start_date])).toEqual([
      ['s', '2027-03-01 09:00:00'],
      ['u', '2027-03-01 09:00:00'],
      ['s#2027-03-15T09:00:00', '2027-03-15 00:00:00'],
    ]);
    expect(readParsed(text, { statuses: 'caldav' })).toEqual(read(text, { statuses: 'caldav' }));
  });

  it('parses nothing again where no line needs repair, and only the VEVENT that does', () => {
    const text = calendar(
      ...vevent('UID:a', 'SUMMARY:A', 'DTSTART;TZID=Europe/Berlin:20270301T090000', 'RRULE:FREQ=DAILY;COUNT=2'),
      ...vevent('UID:b', 'SUMMARY:B', 'DTSTART:20270302'),
    );
    const root = new ICAL.Component(ICAL.parse(text) as unknown[]);
    const parse = vi.spyOn(ICAL, 'parse');
    try {
      const items = [...readCalendar({ text, root }, { maxItems: 10, maxLinks: 10 }).batches()].flat();
      expect(items.map((i) => i.externalId)).toEqual(['a', 'b']);
      // b's DTSTART needs VALUE=DATE: its text is read, once in each of the reader's two passes.
      expect(parse.mock.calls.map(([given]) => given.split('\r\n')[1])).toEqual(['UID:b', 'UID:b']);
    } finally {
      parse.mockRestore();
    }
  });
});
