import { DateTime } from 'luxon';
import fc from 'fast-check';
import { formatDateTime, zoneOffset } from '../../src/lib/dates.js';
import { fuzzRuns } from '../setup/budget.js';
import { describe, expect, it } from 'vitest';
import {
  dateDetails,
  eventTimes,
  eventZone,
  fromWallClock,
  zoneAbbreviation,
  type EventTimes,
} from '../../src/lib/event-times.js';

const ny = eventZone('America/New_York')!;
const iso = (d: Date) => d.toISOString().replace('.000Z', 'Z');

describe('eventZone', () => {
  it('takes IANA names and UTC offsets, and nothing else', () => {
    expect(eventZone('Europe/Paris')?.name).toBe('Europe/Paris');
    expect(eventZone('UTC+5')?.name).toBe('UTC+5');
    expect(eventZone('utc-3:30')?.name).toBe('UTC-3:30');
    expect(eventZone('UTC+0')?.name).toBe('UTC');
    // WordPress's manual offsets, in decimal hours, keep their form and name their offset.
    expect(eventZone('UTC+5.5')?.name).toBe('UTC+5.5');
    expect(eventZone('UTC+5.5')?.zone.offset(0)).toBe(330);
    expect(eventZone('UTC-9.5')?.zone.offset(0)).toBe(-570);
    expect(eventZone('UTC+5.75')?.zone.offset(0)).toBe(345);
    expect(eventZone('UTC+5.50')?.name).toBe('UTC+5.5');
    expect(eventZone('UTC+5.0')?.name).toBe('UTC+5');
    expect(eventZone('UTC')?.zone.isUniversal).toBe(true);
    for (const bad of [
      'Mars/Olympus',
      'UTC+15',
      'UTC+5:75',
      'UTC+5.33',
      'UTC+14.5',
      'UTC+5.',
      'UTC+5.123',
      '',
      '+05:00',
      'America/New_York\u0000',
      '../etc',
    ])
      expect(eventZone(bad), bad).toBeUndefined();
  });
});

describe('eventTimes', () => {
  it('keeps the wall clock and the exact UTC instant across a daylight-saving change', () => {
    // New York moves from EDT (-4) to EST (-5) on 2026-11-01 at 02:00.
    const t = eventTimes('2026-10-31 22:00:00', '2026-11-01 10:00:00', ny, false) as EventTimes;
    expect(iso(t.startUtc)).toBe('2026-11-01T02:00:00Z');
    expect(iso(t.endUtc)).toBe('2026-11-01T15:00:00Z');
    expect(iso(t.startLocal)).toBe('2026-10-31T22:00:00Z');
    expect(iso(t.endLocal)).toBe('2026-11-01T10:00:00Z');
    expect(zoneAbbreviation(ny, t.startUtc)).toBe('EDT');
    expect(zoneAbbreviation(ny, t.endUtc)).toBe('EST');
    expect(fromWallClock(t.endLocal, ny).toUTC().toISO()).toBe('2026-11-01T15:00:00.000Z');
  });

  it('moves a time in the spring-forward gap to the first valid time', () => {
    const t = eventTimes('2027-03-14 02:30', '2027-03-14 04:00', ny, false) as EventTimes;
    expect(iso(t.startUtc)).toBe('2027-03-14T07:30:00Z');
    expect(iso(t.startLocal)).toBe('2027-03-14T03:30:00Z');
  });

  it('reads offsets in the input and Unix timestamps as instants', () => {
    const t = eventTimes('2026-12-12T19:30:00-05:00', 1797130800, ny, false) as EventTimes;
    expect(iso(t.startUtc)).toBe('2026-12-13T00:30:00Z');
    expect(iso(t.startLocal)).toBe('2026-12-12T19:30:00Z');
    expect(iso(t.endUtc)).toBe(new Date(1797130800 * 1000).toISOString().replace('.000Z', 'Z'));
  });

  it('snaps all-day events to whole days and keeps several days', () => {
    const t = eventTimes('2027-07-09 15:00', '2027-07-11 09:00', eventZone('Europe/Berlin')!, true) as EventTimes;
    expect(iso(t.startLocal)).toBe('2027-07-09T00:00:00Z');
    expect(iso(t.endLocal)).toBe('2027-07-11T23:59:59Z');
    expect(iso(t.startUtc)).toBe('2027-07-08T22:00:00Z');
  });

  it('refuses an end before the start and unreadable dates, naming the field', () => {
    expect(eventTimes('2027-01-02', '2027-01-01', ny, false)).toEqual({
      field: 'end_date',
      message: expect.any(String),
    });
    expect(eventTimes('soon', '2027-01-01', ny, false)).toMatchObject({ field: 'start_date' });
    expect(eventTimes('2027-01-01', '2027-13-01', ny, false)).toMatchObject({ field: 'end_date' });
  });

  it('reads relative words in the event zone', () => {
    const now = DateTime.now().setZone('Asia/Tokyo');
    const t = eventTimes('tomorrow', '+2 days', eventZone('Asia/Tokyo')!, false) as EventTimes;
    expect(iso(t.startLocal).slice(0, 10)).toBe(now.plus({ days: 1 }).toISODate());
  });
});

describe('fromWallClock', () => {
  it.each([
    ['Europe/Berlin', Date.UTC(2026, 9, 25, 2, 30), '2026-10-25T02:30:00.000+02:00'],
    ['America/New_York', Date.UTC(2026, 10, 1, 1, 30), '2026-11-01T01:30:00.000-04:00'],
  ])('reads a time %s has twice as the first of them', (zone, ms, expected) => {
    expect(fromWallClock(new Date(ms), eventZone(zone)!).toISO()).toBe(expected);
  });
});

describe('dateDetails', () => {
  it('gives zero-padded strings', () => {
    expect(dateDetails(new Date('2027-01-05T07:08:09Z'))).toEqual({
      year: '2027',
      month: '01',
      day: '05',
      hour: '07',
      minutes: '08',
      seconds: '09',
    });
  });
});

describe('formatDateTime', () => {
  it('writes the wall clock of any instant in any zone as luxon does, daylight-saving changes included', () => {
    const zones = [
      'UTC',
      'Europe/Paris',
      'America/New_York',
      'Australia/Lord_Howe',
      'Asia/Kathmandu',
      'America/St_Johns',
    ];
    fc.assert(
      fc.property(
        fc.integer({ min: Date.UTC(1900, 0, 1), max: Date.UTC(2200, 0, 1) }),
        fc.constantFrom(...zones),
        (ms, zone) => {
          const expected = DateTime.fromMillis(ms, { zone }).toFormat('yyyy-MM-dd HH:mm:ss');
          expect(formatDateTime(new Date(ms), zone)).toBe(expected);
          expect(formatDateTime(new Date(ms), eventZone(zone)!.zone)).toBe(expected);
        },
      ),
      { numRuns: fuzzRuns(2000) },
    );
  });

  it('takes the offset at the instant of a transition, to the millisecond, from the day it remembers', () => {
    const zones = ['Europe/Paris', 'America/New_York', 'Australia/Lord_Howe', 'America/St_Johns', 'Europe/Dublin'];
    let transitions = 0;
    for (const name of zones) {
      const zone = eventZone(name)!.zone;
      for (let day = Date.UTC(2024, 0, 1); day < Date.UTC(2027, 0, 1); day += 86_400_000) {
        if (zone.offset(day) === zone.offset(day + 86_399_999)) continue;
        transitions++;
        // Ask late instants first, so that the day's entry is made from one of them.
        for (let minute = 1439; minute >= 0; minute--) {
          const ms = day + minute * 60_000;
          for (const at of [ms, ms - 1, ms + 1])
            expect(zoneOffset(zone, at), `${name} ${new Date(at).toISOString()}`).toBe(zone.offset(at));
        }
      }
    }
    expect(transitions).toBe(zones.length * 6);
  });
});
