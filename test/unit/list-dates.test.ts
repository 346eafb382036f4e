// The event list's date filters (services/event-list.ts dateFilters, docs/decisions.md "Event list
// filters") turned into instants: `start_date`/`end_date` read in the site zone unless they carry an
// offset, a bare end date as the end of its day, the default window from now, the relative filters
// at the end of their day, daylight-saving days, and the inputs refused. dateFilters is a pure
// function of the query, the site zone and now: no database, nothing replaced.
import { DateTime } from 'luxon';
import { describe, expect, it } from 'vitest';
import { InvalidInput } from '../../src/domain/errors.js';
import { dateFilters, defaultWindow, type EventListQuery, FEED_PAST_DAYS } from '../../src/services/event-list.js';

// Saturday 28 March 2026, 13:34:56.789 in Paris (UTC+1): the next day Paris moves to UTC+2.
const NOW = new Date('2026-03-28T12:34:56.789Z');
const DAY = 86_400_000;

/** `2026-03-28T12:34:56Z`: an instant to the second, as the filters hold them. */
const iso = (instant: Date | DateTime) =>
  (instant instanceof Date ? instant : instant.toJSDate()).toISOString().replace('.000Z', 'Z');

/** The date filters of a list (or a feed) with this query: its window, its bounds, and its page links' dates. */
function resolved(query: EventListQuery, siteZone = 'Europe/Paris', feed = false) {
  const { window, bounds, applied } = dateFilters(query, siteZone, DateTime.fromJSDate(NOW), feed);
  return {
    window: window && { start: iso(window.start), end: iso(window.end) },
    bounds: bounds.map((b) => `${b.column} ${b.operator} ${iso(b.at)}`),
    applied: Object.fromEntries(applied.filter(([, value]) => value !== undefined)),
  };
}

/** The fields and messages of the InvalidInput the date filters of this query are refused with. */
function refused(query: EventListQuery, siteZone = 'Europe/Paris') {
  let error: unknown;
  try {
    dateFilters(query, siteZone, DateTime.fromJSDate(NOW), false);
  } catch (err) {
    error = err;
  }
  expect(error).toBeInstanceOf(InvalidInput);
  return (error as InvalidInput).fields;
}

describe('the default window', () => {
  it('runs from now, to the second, to two years ahead when the list names no dates', () => {
    expect(resolved({})).toEqual({
      window: { start: '2026-03-28T12:34:56Z', end: '2028-03-28T12:34:56Z' },
      bounds: [],
      // The page links write them in the site zone: winter time now, summer time in two years.
      applied: { start_date: '2026-03-28 13:34:56', end_date: '2028-03-28 14:34:56' },
    });
  });

  it('keeps the default for the side a list leaves out', () => {
    expect(resolved({ start_date: '2026-07-01 09:00' }).window).toEqual({
      start: '2026-07-01T07:00:00Z',
      end: '2028-03-28T12:34:56Z',
    });
    expect(resolved({ end_date: '2026-07-01 09:00' }).window).toEqual({
      start: '2026-03-28T12:34:56Z',
      end: '2026-07-01T07:00:00Z',
    });
  });

  it('is the same window when asked directly', () => {
    const { start, end } = defaultWindow(NOW);
    expect(iso(start)).toBe('2026-03-28T12:34:56Z');
    expect(iso(end)).toBe('2028-03-28T12:34:56Z');
  });

  it('gives way to the ids of `include`, which drops every date filter', () => {
    const filters = resolved({ include: [7], start_date: '2026-07-01', starts_after: '2026-07-01' });
    expect(filters).toEqual({ window: undefined, bounds: [], applied: {} });
  });

  it('keeps a feed the events that ended in the last days as well', () => {
    expect(resolved({}, 'Europe/Paris', true)).toEqual({
      window: undefined,
      bounds: [
        `end_utc >= ${iso(new Date(Date.parse('2026-03-28T12:34:56Z') - FEED_PAST_DAYS * DAY))}`,
        'start_utc <= 2028-03-28T12:34:56Z',
      ],
      applied: {},
    });
  });
});

describe('start_date and end_date', () => {
  it('reads a date and time without an offset in the site zone', () => {
    const query = { start_date: '2026-07-01 09:00', end_date: '2026-12-31 18:00:00' };
    expect(resolved(query)).toEqual({
      window: { start: '2026-07-01T07:00:00Z', end: '2026-12-31T17:00:00Z' },
      bounds: [],
      applied: { start_date: '2026-07-01 09:00:00', end_date: '2026-12-31 18:00:00' },
    });
    expect(resolved(query, 'America/New_York').window).toEqual({
      start: '2026-07-01T13:00:00Z',
      end: '2026-12-31T23:00:00Z',
    });
  });

  it('takes a bare end date to the last second of its day, and a bare start date from its midnight', () => {
    expect(resolved({ start_date: '2026-01-15', end_date: '2026-01-31' })).toEqual({
      window: { start: '2026-01-14T23:00:00Z', end: '2026-01-31T22:59:59Z' },
      bounds: [],
      applied: { start_date: '2026-01-15 00:00:00', end_date: '2026-01-31 23:59:59' },
    });
  });

  it('takes an end date with a time, or any end date when the dates are strict, as given', () => {
    expect(resolved({ end_date: '2026-01-31T00:00:00' }).window?.end).toBe('2026-01-30T23:00:00Z');
    expect(resolved({ end_date: '2026-01-31', strict_dates: true }).window?.end).toBe('2026-01-30T23:00:00Z');
  });

  it('honours an offset in the value, and writes the instant back in the site zone', () => {
    expect(resolved({ start_date: '2026-07-01T09:00:00-04:00', end_date: '2026-07-02T00:00:00Z' })).toEqual({
      window: { start: '2026-07-01T13:00:00Z', end: '2026-07-02T00:00:00Z' },
      bounds: [],
      applied: { start_date: '2026-07-01 15:00:00', end_date: '2026-07-02 02:00:00' },
    });
  });

  it('takes a Unix time as an instant, and words relative to now as calendar days in the site zone', () => {
    // `tomorrow` is midnight of 29 March in Paris, still UTC+1; `+1 day` is 13:34:56 on 29 March,
    // already UTC+2: 23 hours after now, as a calendar day across the change.
    expect(resolved({ start_date: 'tomorrow', end_date: '+1 day' }).window).toEqual({
      start: '2026-03-28T23:00:00Z',
      end: '2026-03-29T11:34:56Z',
    });
    expect(resolved({ start_date: 1782900000 }).window?.start).toBe('2026-07-01T10:00:00Z');
  });
});

describe('daylight-saving days', () => {
  it('ends a bare date on the day of a change at its last second, 23 or 25 hours after its midnight', () => {
    expect(resolved({ start_date: '2026-03-29', end_date: '2026-03-29' }).window).toEqual({
      start: '2026-03-28T23:00:00Z',
      end: '2026-03-29T21:59:59Z',
    });
    expect(resolved({ start_date: '2026-10-25', end_date: '2026-10-25' }).window).toEqual({
      start: '2026-10-24T22:00:00Z',
      end: '2026-10-25T22:59:59Z',
    });
    expect(resolved({ end_date: '2026-11-01' }, 'America/New_York').window?.end).toBe('2026-11-02T04:59:59Z');
  });

  it('reads a time the clocks skip as the same time after the change, and a repeated time as the first', () => {
    // 02:30 on 29 March does not exist in Paris: it is read an hour on, 03:30 summer time (01:30Z).
    // 02:30 on 25 October happens twice: the first, still summer time, is 00:30Z.
    expect(resolved({ start_date: '2026-03-29 02:30', end_date: '2026-10-25 02:30' }).window).toEqual({
      start: '2026-03-29T01:30:00Z',
      end: '2026-10-25T00:30:00Z',
    });
  });
});

describe('the relative filters', () => {
  it('take the end of their day unless the dates are strict, and drop the default window', () => {
    expect(resolved({ starts_after: '2026-05-01', ends_before: '2026-05-01 10:00' })).toEqual({
      window: undefined,
      bounds: ['start_utc > 2026-05-01T21:59:59Z', 'end_utc < 2026-05-01T21:59:59Z'],
      applied: { starts_after: '2026-05-01', ends_before: '2026-05-01 10:00' },
    });
    expect(resolved({ starts_before: '2026-05-01 10:00', ends_after: '2026-05-01', strict_dates: true })).toEqual({
      window: undefined,
      bounds: ['start_utc < 2026-05-01T08:00:00Z', 'end_utc > 2026-04-30T22:00:00Z'],
      // The page links carry strict_dates along, as it changes what the relative filters mean.
      applied: { starts_before: '2026-05-01 10:00', ends_after: '2026-05-01', strict_dates: true },
    });
  });

  it('keep start_date and end_date as bounds on the start, both ends included', () => {
    const filters = resolved({ start_date: '2026-05-01 10:00', end_date: '2026-06-30', ends_after: '2026-05-02' });
    expect(filters.window).toBeUndefined();
    expect(filters.bounds).toEqual([
      'start_utc >= 2026-05-01T08:00:00Z',
      'start_utc <= 2026-06-30T21:59:59Z',
      'end_utc > 2026-05-02T21:59:59Z',
    ]);
  });
});

describe('dates refused', () => {
  it.each([
    ['start_date', 'next tuesday'],
    ['end_date', '2026-02-30'],
    ['end_date', '2026-07-01 25:00'],
    ['start_date', '2026-07-01T09:00:00+25:00'],
    ['starts_after', '2026-13-01'],
    ['ends_before', ''],
  ] as const)('refuses %s=%j as a date the service does not understand, naming the field', (field, value) => {
    expect(refused({ [field]: value })).toEqual({ [field]: `${field} is not a date this service understands.` });
  });

  it('refuses a date whose end of day falls after the year 9999 in UTC', () => {
    // The last second of 9999-12-31 in New York is 04:59:59 on 1 January 10000 in UTC.
    const message = (field: string) => ({ [field]: `${field} must fall within the years 1 to 9999.` });
    expect(refused({ end_date: '9999-12-31' }, 'America/New_York')).toEqual(message('end_date'));
    expect(refused({ starts_before: '9999-12-31' }, 'America/New_York')).toEqual(message('starts_before'));
    // East of UTC it is still in 9999.
    expect(resolved({ end_date: '9999-12-31' }).window?.end).toBe('9999-12-31T22:59:59Z');
  });
});
