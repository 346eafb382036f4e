// Event times over HTTP on both databases, with a site zone that is not UTC: inputs in every form
// docs/decisions.md lists ("Dates and time zones"), read in the event's zone; local and UTC times exact across daylight-saving
// changes; all-day events widened to whole days.
import { DateTime } from 'luxon';
import { expect, it } from 'vitest';
import { describeEachDatabase } from '../setup/each-database.js';

describeEachDatabase(
  'event times on %s, site zone Europe/Paris',
  (s) => {
    let n = 0;
    const create = async (body: Record<string, unknown>) => {
      const r = await s.post('/events', { title: `Timed ${++n}`, ...body });
      expect(r.status, JSON.stringify(r.body)).toBe(201);
      // What was stored, read back, not just what the write answered.
      return (await s.get(`/events/${r.body.id}`)).body;
    };
    const times = (e: any) => [e.start_date, e.end_date, e.utc_start_date, e.utc_end_date, e.timezone, e.timezone_abbr];

    it('reads times without a zone in the site zone, and publication dates too', async () => {
      const e = await create({
        start_date: '2031-07-01 20:00',
        end_date: '2031-07-01 23:00',
        date: '2026-01-15 12:00:00',
      });
      expect(times(e)).toEqual([
        '2031-07-01 20:00:00',
        '2031-07-01 23:00:00',
        '2031-07-01 18:00:00',
        '2031-07-01 21:00:00',
        'Europe/Paris',
        'CEST',
      ]);
      expect([e.date, e.date_utc]).toEqual(['2026-01-15 12:00:00', '2026-01-15 11:00:00']);
      const winter = await create({ start_date: '2031-12-01 20:00', end_date: '2031-12-01 21:00', timezone: '' });
      expect(times(winter).slice(2)).toEqual(['2031-12-01 19:00:00', '2031-12-01 20:00:00', 'Europe/Paris', 'CET']);
    });

    it('keeps local and UTC times exact across the autumn change in New York', async () => {
      // 2026-11-01 02:00 EDT falls back to 01:00 EST: this night lasts 13 hours, not 12.
      const e = await create({
        start_date: '2026-10-31 22:00',
        end_date: '2026-11-01 10:00',
        timezone: 'America/New_York',
      });
      expect(times(e)).toEqual([
        '2026-10-31 22:00:00',
        '2026-11-01 10:00:00',
        '2026-11-01 02:00:00',
        '2026-11-01 15:00:00',
        'America/New_York',
        'EDT',
      ]);
      expect(e.utc_end_date_details).toEqual({
        year: '2026',
        month: '11',
        day: '01',
        hour: '15',
        minutes: '00',
        seconds: '00',
      });
      expect(e.json_ld.startDate).toBe('2026-10-31T22:00:00-04:00');
      expect(e.json_ld.endDate).toBe('2026-11-01T10:00:00-05:00');
      // The repeated hour 01:30 is read as its first occurrence (EDT).
      const twice = await create({
        start_date: '2026-11-01 01:30',
        end_date: '2026-11-01 03:00',
        timezone: 'America/New_York',
      });
      expect(twice.utc_start_date).toBe('2026-11-01 05:30:00');
    });

    it('moves a time that does not exist in spring to the same time after the change', async () => {
      const e = await create({ start_date: '2027-03-28 02:30', end_date: '2027-03-28 04:00' });
      expect(times(e)).toEqual([
        '2027-03-28 03:30:00',
        '2027-03-28 04:00:00',
        '2027-03-28 01:30:00',
        '2027-03-28 02:00:00',
        'Europe/Paris',
        'CEST',
      ]);
    });

    it('keeps the length of an event that starts in the spring gap and ends before the shifted start', async () => {
      // 02:30 does not exist that night: it is 03:30; the half hour to 03:00 becomes 03:30 to 04:00.
      const e = await create({ start_date: '2027-03-28 02:30', end_date: '2027-03-28 03:00' });
      expect(times(e).slice(0, 4)).toEqual([
        '2027-03-28 03:30:00',
        '2027-03-28 04:00:00',
        '2027-03-28 01:30:00',
        '2027-03-28 02:00:00',
      ]);
      // A series whose occurrence falls in the gap has it there too, instead of failing.
      const series = await s.post('/events', {
        title: 'Night shift',
        start_date: '2027-03-26 02:30',
        end_date: '2027-03-26 03:00',
        timezone: 'Europe/Berlin',
        recurrence: ['RRULE:FREQ=DAILY;COUNT=4'],
      });
      expect(series.status).toBe(201);
      const gapNight = (await s.get(`/events?post_parent=${series.body.id}&start_date=2027-03-28&end_date=2027-03-28`))
        .body.events;
      expect(gapNight.map((o: any) => [o.start_date, o.end_date])).toEqual([
        ['2027-03-28 03:30:00', '2027-03-28 04:00:00'],
      ]);
      // An end written before the start is still refused.
      const backwards = await s.post('/events', {
        title: 'Backwards',
        start_date: '2027-03-28 05:00',
        end_date: '2027-03-28 04:00',
      });
      expect([backwards.status, backwards.body.data?.params?.end_date]).toEqual([
        400,
        'end_date is before start_date.',
      ]);
    });

    it('refuses offsets no place has, in times and zones alike', async () => {
      for (const start_date of [
        '2031-05-01T10:00:00+25:00',
        '2031-05-01T10:00:00+15:00',
        '2031-05-01T10:00:00-99:99',
        '2031-05-01T10:00:00+05:60',
      ]) {
        const r = await s.post('/events', { title: 'Far off', start_date, end_date: '2031-05-02 10:00' });
        expect([start_date, r.status, Object.keys(r.body.data?.params ?? {})]).toEqual([
          start_date,
          400,
          ['start_date'],
        ]);
      }
      for (const timezone of ['UTC+25', 'UTC+15', 'UTC-14:60']) {
        const r = await s.post('/events', {
          title: 'Far off',
          start_date: '2031-05-01 10:00',
          end_date: '2031-05-01 11:00',
          timezone,
        });
        expect([timezone, r.status]).toEqual([timezone, 400]);
      }
      const list = await s.get('/events?start_date=2031-05-01T00:00:00%2B25:00');
      expect(list.status).toBe(400);
      const modified = await s.get('/events?modified_after=2031-05-01T00:00:00-30:00');
      expect(modified.status).toBe(400);
      // The offsets places have are taken.
      const far = await create({ start_date: '2031-05-01T10:00:00+14:00', end_date: '2031-05-01T11:00:00-12:00' });
      expect(far.utc_start_date).toBe('2031-04-30 20:00:00');
    });

    it('widens an all-day event over several days to whole days in its zone', async () => {
      const e = await create({
        start_date: '2027-06-18 15:00',
        end_date: '2027-06-20 09:00',
        all_day: true,
        timezone: 'America/New_York',
      });
      expect(e.all_day).toBe(true);
      expect(times(e)).toEqual([
        '2027-06-18 00:00:00',
        '2027-06-20 23:59:59',
        '2027-06-18 04:00:00',
        '2027-06-21 03:59:59',
        'America/New_York',
        'EDT',
      ]);
      const oneDay = await create({ start_date: '2027-06-18', end_date: '2027-06-18', all_day: true });
      expect(times(oneDay).slice(0, 4)).toEqual([
        '2027-06-18 00:00:00',
        '2027-06-18 23:59:59',
        '2027-06-17 22:00:00',
        '2027-06-18 21:59:59',
      ]);
    });

    it('takes UTC offsets as zones, ISO 8601 with an offset, Unix timestamps and relative words', async () => {
      const offset = await create({
        start_date: '2031-01-10 10:00',
        end_date: '2031-01-10 11:00',
        timezone: 'UTC+5:30',
      });
      expect(times(offset)).toEqual([
        '2031-01-10 10:00:00',
        '2031-01-10 11:00:00',
        '2031-01-10 04:30:00',
        '2031-01-10 05:30:00',
        'UTC+5:30',
        'UTC+5:30',
      ]);
      // WordPress's manual offset in decimal hours, as the modelled service takes and shows it.
      const wordpress = await create({
        start_date: '2031-01-10 10:00',
        end_date: '2031-01-10 11:00',
        timezone: 'UTC+5.5',
      });
      expect(times(wordpress).slice(2)).toEqual(['2031-01-10 04:30:00', '2031-01-10 05:30:00', 'UTC+5.5', 'UTC+5.5']);
      const minus = await create({ start_date: '2031-01-10 10:00', end_date: '2031-01-10 11:00', timezone: 'UTC-3' });
      expect(times(minus).slice(2)).toEqual(['2031-01-10 13:00:00', '2031-01-10 14:00:00', 'UTC-3', 'UTC-3']);

      const iso = await create({
        start_date: '2031-01-10T10:00:00+01:00',
        end_date: '2031-01-10T12:00:00Z',
        timezone: 'America/New_York',
      });
      expect(times(iso).slice(0, 4)).toEqual([
        '2031-01-10 04:00:00',
        '2031-01-10 07:00:00',
        '2031-01-10 09:00:00',
        '2031-01-10 12:00:00',
      ]);

      const unix = await create({ start_date: 1925000000, end_date: '1925003600', timezone: 'Asia/Tokyo' });
      expect(times(unix)).toEqual([
        '2031-01-01 11:13:20',
        '2031-01-01 12:13:20',
        '2031-01-01 02:13:20',
        '2031-01-01 03:13:20',
        'Asia/Tokyo',
        'JST',
      ]);

      const tokyoTomorrow = DateTime.now().setZone('Asia/Tokyo').plus({ days: 1 }).toFormat('yyyy-MM-dd');
      const relative = await create({ start_date: 'tomorrow', end_date: '+2 days', timezone: 'Asia/Tokyo' });
      expect(relative.start_date).toBe(`${tokyoTomorrow} 00:00:00`);
      const spans = DateTime.fromSQL(relative.utc_end_date, { zone: 'UTC' }).diff(DateTime.utc(), 'hours').hours;
      expect(spans).toBeGreaterThan(47);
      expect(spans).toBeLessThan(49);
    });

    it('filters the list in the site zone', async () => {
      // 23:30 in Paris on 10 March is 22:30 UTC; 00:30 on the 11th in Paris is 23:30 UTC on the 10th.
      const late = await create({ start_date: '2041-03-10 23:30', end_date: '2041-03-10 23:45' });
      const after = await create({ start_date: '2041-03-11 00:30', end_date: '2041-03-11 01:00' });
      const ids = async (query: string) => (await s.get(`/events?${query}`)).body.events.map((e: any) => e.id);
      expect(await ids('start_date=2041-03-10&end_date=2041-03-10')).toEqual([late.id]);
      expect(await ids('start_date=2041-03-11&end_date=2041-03-11')).toEqual([after.id]);
      const list = await s.get('/events?start_date=2041-03-10&end_date=2041-03-11');
      expect(new URL(list.body.rest_url).searchParams.get('end_date')).toBe('2041-03-11 23:59:59');
    });
  },
  { env: { SITE_TIMEZONE: 'Europe/Paris' } },
);
