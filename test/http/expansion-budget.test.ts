// Every walk of a series has a budget that counts its real work (docs/decisions.md, "Recurring
// events" and "CalDAV"): a rule whose starts are too rare to expand cheaply is refused at every door
// that writes one (REST, CalDAV PUT, the importer) and is not walked when it was stored before; a
// CalDAV expansion counts the dates ical.js checks, not only the starts it gives, stops at its
// steps, and stops when its client goes away. Steps are read from their metric, never timed.
import { expect, it } from 'vitest';
import { expansionSteps } from '../../src/metrics/registry.js';
import { extendSeries } from '../../src/services/series/window.js';
import { DEFAULT_RECURRENCE } from '../../src/config/limits.js';
import { describeEachDatabase } from '../setup/each-database.js';
import { importCalendarAs, vcalendar } from '../setup/importing.js';
import type { TestServer } from '../setup/server.js';

/** The author's rule of the report: a Monday 29 February at 03:00, every 28 to 40 years, walked by the hour. */
const RARE = 'RRULE:FREQ=HOURLY;BYMONTH=2;BYMONTHDAY=29;BYHOUR=3;BYDAY=MO';
const STEPS = 100_000;

const stepsSoFar = async () => (await expansionSteps.get()).values[0]?.value ?? 0;

const calendar = (uid: string, rule: string, start = '20320301T030000Z') =>
  vcalendar(uid, [
    `DTSTART:${start}`,
    `DTEND:${start.replace(/T(\d\d)/, (_, h: string) => `T${String(Number(h) + 1).padStart(2, '0')}`)}`,
    'SUMMARY:Rare',
    rule,
  ]);

function dav(s: TestServer, method: string, path: string, body: string, signal?: AbortSignal) {
  const { login, appPassword } = s.users.editor;
  return fetch(`${s.origin}${path}`, {
    method,
    body,
    signal,
    headers: {
      authorization: `Basic ${Buffer.from(`${login}:${appPassword}`).toString('base64')}`,
      'content-type': method === 'PUT' ? 'text/calendar; charset=utf-8' : 'application/xml; charset=utf-8',
    },
  });
}

/** calendar-data of one resource expanded over a range, as a multiget asks it. */
const expansion = (name: string, start: string, end: string) =>
  `<c:calendar-multiget xmlns:d="DAV:" xmlns:c="urn:ietf:params:xml:ns:caldav"><d:prop><c:calendar-data><c:expand start="${start}" end="${end}"/></c:calendar-data></d:prop><d:href>/caldav/calendars/events/${name}</d:href></c:calendar-multiget>`;

/** A daily series of 29 February from the year 1000 (which the REST API does not take as a start). */
async function leapDaysSince1000(s: TestServer, name: string) {
  const body = calendar(name, 'RRULE:FREQ=DAILY;BYMONTH=2;BYMONTHDAY=29', '10000229T090000Z');
  const put = await dav(s, 'PUT', `/caldav/calendars/events/${name}`, body);
  expect(put.status, await put.text()).toBe(201);
}

describeEachDatabase(
  'the budget of every expansion',
  (s) => {
    const series = async (title: string, start: string, rule: string) => {
      const r = await s.post('/events', {
        title,
        start_date: start,
        end_date: start.replace(/ (\d\d)/, (_, h: string) => ` ${String(Number(h) + 1).padStart(2, '0')}`),
        timezone: 'UTC',
        recurrence: [rule],
      });
      expect(r.status, r.text).toBe(201);
      return r.body.id as number;
    };

    it('refuses a rule too rare to expand cheaply at every door that writes one, naming the limit', async () => {
      const rest = await s.post('/events', {
        title: 'Rare',
        start_date: '2032-03-01 03:00',
        end_date: '2032-03-01 04:00',
        recurrence: [RARE],
      });
      expect(rest.status, rest.text).toBe(400);
      expect(rest.body.data.params.recurrence).toMatch(/too rare to expand: up to \d+ steps .* at most 3000/);
      // A COUNT is walked from the start: a thousand starts 29 February apart are millions of days.
      const counted = await s.post('/events', {
        title: 'Leap days',
        start_date: '2032-02-29 10:00',
        end_date: '2032-02-29 11:00',
        recurrence: ['RRULE:FREQ=DAILY;BYMONTH=2;BYMONTHDAY=29;COUNT=1000'],
      });
      expect(counted.status, counted.text).toBe(400);
      expect(counted.body.data.params.recurrence).toMatch(/COUNT is walked .* at most 50000/);
      // Each write walks every rule of a series: their COUNTs count together, and five rules at most.
      const leapRules = (count: number, hours: number[]) =>
        hours.map((hour) => `RRULE:FREQ=DAILY;BYMONTH=2;BYMONTHDAY=29;BYHOUR=${hour};COUNT=${count}`);
      for (const [recurrence, refusal] of [
        [leapRules(20, [9, 10]), /COUNTs of its rules are walked .* about \d+ steps together, where at most 50000/],
        [leapRules(2, [1, 2, 3, 4, 5, 6]), /at most 5 RRULE lines/],
      ] as const) {
        const r = await s.post('/events', {
          title: 'Leap hours',
          start_date: '2032-02-29 09:00',
          end_date: '2032-02-29 10:00',
          recurrence,
        });
        expect(r.status, r.text).toBe(400);
        expect(r.body.data.params.recurrence).toMatch(refusal);
      }
      // The same days by a coarser walk are taken.
      await series('Leap Mondays', '2032-03-01 03:00', 'RRULE:FREQ=YEARLY;BYMONTH=2;BYMONTHDAY=29;BYDAY=MO');

      const put = await dav(s, 'PUT', '/caldav/calendars/events/rare-rule.ics', calendar('rare-rule@test', RARE));
      expect(put.status).toBe(403);
      const refusal = await put.text();
      expect(refusal).toContain('<c:valid-calendar-data/>');
      expect(refusal).toContain('too rare to expand');

      const summary = await importCalendarAs(s, 'administrator', calendar('rare-import@test', RARE));
      expect(summary.counts.event.created).toBe(0);
      expect(summary.skipped).toEqual([
        expect.objectContaining({
          externalId: 'rare-import@test',
          reason: expect.stringMatching(/too rare to expand/),
        }),
      ]);
    });

    it('does not walk a rare rule stored before it was refused, at any door', async () => {
      const id = await series('Stored rare', '2032-03-01 03:00', 'RRULE:FREQ=WEEKLY;COUNT=3');
      await s.db.prisma.$executeRawUnsafe(
        'UPDATE events SET recurrence = ARRAY[$1]::text[], expanded_until_local = NULL WHERE id = $2',
        RARE,
        id,
      );
      // CalDAV over the years 1 to 9999 (8 to 12 s of one core per href before): refused unwalked.
      const before = await stepsSoFar();
      const r = await dav(
        s,
        'REPORT',
        '/caldav/calendars/events/',
        expansion(`${id}.ics`, '00010101T000000Z', '99991231T000000Z'),
      );
      const text = await r.text();
      expect(r.status, text).toBe(403);
      expect(text).toContain('<c:max-instances/>');
      expect(text).toContain('too rare to expand');
      expect((await stepsSoFar()) - before).toBe(0);
      // Housekeeping, a rebuild through REST and the feed take its start alone.
      await extendSeries(s.db.prisma, DEFAULT_RECURRENCE);
      const moved = await s.post(`/events/${id}`, { start_date: '2032-03-01 04:00', end_date: '2032-03-01 05:00' });
      expect(moved.status, moved.text).toBe(200);
      const feed = await s.get(`/events.ics?start_date=2032-01-01&end_date=2033-01-01`);
      expect(feed.status).toBe(200);
      expect(feed.text).toContain('SUMMARY:Stored rare');
    });

    it('refuses an expansion past its steps, counted inside the walk, having walked no more', async () => {
      // 29 February, by the day, from the year 1000: dense enough to be kept (a start every 1,461
      // days on average), and 3.3 million dates for ical.js to check to the year 9998.
      await leapDaysSince1000(s, 'leap-days.ics');
      const week = await dav(
        s,
        'REPORT',
        '/caldav/calendars/events/',
        expansion('leap-days.ics', '10000201T000000Z', '10040301T000000Z'),
      );
      expect((await week.text()).match(/RECURRENCE-ID:/g)).toHaveLength(2);

      const before = await stepsSoFar();
      const r = await dav(
        s,
        'REPORT',
        '/caldav/calendars/events/',
        expansion('leap-days.ics', '10000101T000000Z', '99981231T000000Z'),
      );
      const text = await r.text();
      expect(r.status, text).toBe(403);
      expect(text).toContain('<c:max-instances/>');
      expect(text).toContain(`walks at most ${STEPS} steps`);
      const walked = (await stepsSoFar()) - before;
      expect(walked).toBeGreaterThan(STEPS / 2);
      expect(walked).toBeLessThanOrEqual(STEPS + 1);

      // A range its steps cannot reach from the series' start is refused before any step.
      const far = await stepsSoFar();
      const late = await dav(
        s,
        'REPORT',
        '/caldav/calendars/events/',
        expansion('leap-days.ics', '90000101T000000Z', '90100101T000000Z'),
      );
      expect(late.status).toBe(403);
      expect(await late.text()).toContain('Reaching the range takes');
      expect((await stepsSoFar()) - far).toBe(0);
    });

    /** Makes a series stored before a rule was refused: one written as allowed, its rule then set in the database. */
    const storedBefore = async (title: string, start: string, rule: string) => {
      const id = await series(title, start, 'RRULE:FREQ=WEEKLY;COUNT=3');
      await s.db.prisma.$executeRawUnsafe(
        'UPDATE events SET recurrence = ARRAY[$1]::text[], expanded_until_local = NULL WHERE id = $2',
        rule,
        id,
      );
      return id;
    };

    it('refuses an INTERVAL whose one step is too long a walk, at every door, and does not walk one stored before', async () => {
      // One step of it was over a minute of ical.js's work, in one call no budget could stop.
      const huge = 'RRULE:FREQ=WEEKLY;INTERVAL=999999;BYMONTH=1';
      const rest = await s.post('/events', {
        title: 'Huge steps',
        start_date: '2020-01-01 10:00',
        end_date: '2020-01-01 11:00',
        recurrence: [huge],
      });
      expect(rest.status, rest.text).toBe(400);
      expect(rest.body.data.params.recurrence).toMatch(/INTERVAL of a WEEKLY rule may be at most 522/);
      const put = await dav(
        s,
        'PUT',
        '/caldav/calendars/events/huge.ics',
        calendar('huge@test', huge, '20200101T100000Z'),
      );
      const refusal = await put.text();
      expect(put.status, refusal).toBe(403);
      expect(refusal).toContain('<c:valid-calendar-data/>');
      expect(refusal).toContain('may be at most 522');
      const summary = await importCalendarAs(
        s,
        'administrator',
        calendar('huge-import@test', huge, '20200101T100000Z'),
      );
      expect(summary.skipped).toEqual([
        expect.objectContaining({ reason: expect.stringMatching(/may be at most 522/) }),
      ]);
      // Steps of 1,000 days land on a 29 February once in some 3,000: counted on its walk, not by its days.
      const lattice = await s.post('/events', {
        title: 'Leap days by thousands',
        start_date: '2020-01-01 10:00',
        end_date: '2020-01-01 11:00',
        recurrence: ['RRULE:FREQ=DAILY;INTERVAL=1000;BYMONTH=2;BYMONTHDAY=29'],
      });
      expect(lattice.status, lattice.text).toBe(400);
      expect(lattice.body.data.params.recurrence).toMatch(/too rare to expand: up to 3163 steps/);

      const id = await storedBefore('Stored huge steps', '2020-01-01 10:00', huge);
      const before = await stepsSoFar();
      const r = await dav(
        s,
        'REPORT',
        '/caldav/calendars/events/',
        expansion(`${id}.ics`, '20250101T000000Z', '20260101T000000Z'),
      );
      const text = await r.text();
      expect(r.status, text).toBe(403);
      expect(text).toContain('<c:max-instances/>');
      expect(text).toContain('may be at most 522');
      expect((await stepsSoFar()) - before).toBe(0);
    });

    it('refuses rules ical.js cannot walk as the service reads them, and answers the others beside one stored before', async () => {
      const refused = async (start: string, rule: string, why: RegExp) => {
        const r = await s.post('/events', {
          title: 'Unwalkable',
          start_date: start,
          end_date: start.replace(/ (\d\d)/, (_, h: string) => ` ${String(Number(h) + 1).padStart(2, '0')}`),
          recurrence: [rule],
        });
        expect(r.status, r.text).toBe(400);
        expect(r.body.data.params.recurrence).toMatch(why);
      };
      await refused(
        '2026-03-01 10:00',
        'RRULE:FREQ=WEEKLY;BYMONTHDAY=1',
        /RFC 5545 does not allow BYMONTHDAY in a WEEKLY rule/,
      );
      await refused(
        '2026-03-01 10:00',
        'RRULE:FREQ=YEARLY;BYYEARDAY=1;BYMONTHDAY=1',
        /ical.js cannot walk the rule: Invalid BYYEARDAY/,
      );
      const put = await dav(
        s,
        'PUT',
        '/caldav/calendars/events/by-year-day.ics',
        calendar('by-year-day@test', 'RRULE:FREQ=YEARLY;BYYEARDAY=60;BYMONTH=3', '20260301T100000Z'),
      );
      const refusal = await put.text();
      expect(put.status, refusal).toBe(403);
      expect(refusal).toContain('Invalid BYYEARDAY');

      const kept = await series('Kept weekly', '2026-01-05 10:00', 'RRULE:FREQ=WEEKLY');
      const thrown = await storedBefore(
        'Stored by year day',
        '2026-03-01 10:00',
        'RRULE:FREQ=YEARLY;BYYEARDAY=60;BYMONTH=3',
      );
      // Never a 29 February from 2001 by fours, which the service takes (rrule walks it: no start);
      // ical.js would make up 1 March 2005, 2009, ...: its expansion is refused on its own response.
      const madeUp = await series(
        'Leap days by fours',
        '2001-03-01 10:00',
        'RRULE:FREQ=YEARLY;INTERVAL=4;BYMONTH=2;BYMONTHDAY=29',
      );
      const hrefs = [kept, thrown, madeUp].map((id) => `<d:href>/caldav/calendars/events/${id}.ics</d:href>`).join('');
      const r = await dav(
        s,
        'REPORT',
        '/caldav/calendars/events/',
        `<c:calendar-multiget xmlns:d="DAV:" xmlns:c="urn:ietf:params:xml:ns:caldav"><d:prop><c:calendar-data><c:expand start="20260101T000000Z" end="20300101T000000Z"/></c:calendar-data></d:prop>${hrefs}</c:calendar-multiget>`,
      );
      const text = await r.text();
      expect(r.status, text).toBe(207);
      const responses = text.split('<d:response>').slice(1);
      expect(responses).toHaveLength(3);
      expect(responses[0]).toContain('RECURRENCE-ID:20260105T100000Z');
      for (const refused of responses.slice(1)) expect(refused).toContain('HTTP/1.1 403');
      expect(text).not.toContain('RECURRENCE-ID:20290301');
    });

    it("charges each occurrence of an expansion its own size, not its series' RDATE lines", async () => {
      // 1,000 RDATEs in 2030 (some 17 KB of lines), a daily rule expanded over January 2026.
      const day = (i: number) =>
        new Date(Date.UTC(2030, 0, 1) + i * 86_400_000).toISOString().replace(/[-:]|\.\d+/g, '');
      const rdates = Array.from(
        { length: 10 },
        (_, line) => `RDATE:${Array.from({ length: 100 }, (_, i) => day(line * 100 + i)).join(',')}`,
      ).join('\r\n');
      const body = calendar('many-rdates@test', `RRULE:FREQ=DAILY\r\n${rdates}`, '20260101T100000Z');
      const put = await dav(s, 'PUT', '/caldav/calendars/events/many-rdates.ics', body);
      expect(put.status, await put.text()).toBe(201);
      const r = await dav(
        s,
        'REPORT',
        '/caldav/calendars/events/',
        expansion('many-rdates.ics', '20260101T000000Z', '20260201T000000Z'),
      );
      const text = await r.text();
      expect(r.status, text.slice(0, 500)).toBe(207);
      expect(text.match(/RECURRENCE-ID:/g)).toHaveLength(31);
    });

    it('stops walking when the client goes away', async () => {
      await leapDaysSince1000(s, 'leap-days-abandoned.ics');
      const before = await stepsSoFar();
      const client = new AbortController();
      const asked = dav(
        s,
        'REPORT',
        '/caldav/calendars/events/',
        expansion('leap-days-abandoned.ics', '10000101T000000Z', '99981231T000000Z'),
        client.signal,
      ).catch(() => undefined);
      // The walk has begun: the client leaves.
      await expect.poll(async () => (await stepsSoFar()) - before, { interval: 5, timeout: 10_000 }).toBeGreaterThan(0);
      client.abort();
      await asked;
      // Then the count stops rising, far short of the budget the walk would have used up.
      let last = -1;
      await expect
        .poll(
          async () => {
            const now = await stepsSoFar();
            const settled = now === last;
            last = now;
            return settled;
          },
          { interval: 100, timeout: 10_000 },
        )
        .toBe(true);
      expect(last - before).toBeLessThan(STEPS / 2);
    });
  },
  {
    env: {
      RECURRENCE_EXPAND_MAX_STEPS: String(STEPS),
      RECURRENCE_EXPAND_MAX_MS: '60000',
      // Small, so that 31 copies of a series' 17 KB of RDATE lines would not fit.
      CALDAV_MAX_ANSWER_KB: '256',
    },
  },
);
