// The heaviest answers of a real calendar must not hold the event loop: while one is built, every
// other request (a health probe, a small read) waits. A thousand published events with 5 KB
// descriptions, linked as events are, with a long series; then each heavy answer is asked for while
// perf_hooks measures how late the loop ran timers. No answer may hold it for 100 ms.
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { expect, it } from 'vitest';
import { DEFAULT_RECURRENCE } from '../../src/config/limits.js';
import { maintainEmbedded, purgeExpired } from '../../src/db/housekeeping.js';
import { loopDelay } from '../../src/metrics/event-loop.js';
import { extendSeries } from '../../src/services/series/window.js';
import { describeEachDatabase } from '../setup/each-database.js';
import type { TestServer } from '../setup/server.js';

const EVENTS = 1000;
const LIMIT_MS = 100;
const METRICS_TOKEN = 'loop-delay-metrics-token';

/** A description as events have them: a few paragraphs of HTML, about 5 KB. */
const DESCRIPTION =
  `<p>${'Join us for an <strong>evening</strong> of music, talk &amp; good company. Doors open early; seats are not numbered. '.repeat(4)}</p>`.repeat(
    12,
  );

async function seed(s: TestServer) {
  const venue = (await s.post('/venues', { venue: 'Loop Hall', address: '1 Main St', city: 'Lyon' })).body.id;
  const organizer = (await s.post('/organizers', { organizer: 'Loop Org', email: 'loop@example.org' })).body.id;
  const categories = [(await s.post('/categories', { name: 'Loop A' })).body.id];
  categories.push((await s.post('/categories', { name: 'Loop B' })).body.id);
  // Set-based, as the benchmark seeds (scripts/bench/calendar.ts): the API would take minutes.
  await s.db.prisma.$executeRawUnsafe(
    `INSERT INTO events (author_id, status, slug, title, description, start_local, end_local, start_utc, end_utc, timezone)
     SELECT 1, 'publish', 'loop-' || n, 'Loop event ' || n, $1,
       (date_trunc('hour', now()) + n * interval '7 hours')::timestamp, (date_trunc('hour', now()) + n * interval '7 hours' + interval '2 hours')::timestamp,
       date_trunc('hour', now()) + n * interval '7 hours', date_trunc('hour', now()) + n * interval '7 hours' + interval '2 hours',
       (ARRAY['Europe/Paris', 'America/New_York', 'Asia/Tokyo'])[1 + n % 3]
     FROM generate_series(1, ${EVENTS}) n`,
    DESCRIPTION,
  );
  await s.db.prisma.$executeRawUnsafe(
    `INSERT INTO event_venues (event_id, venue_id, position) SELECT id, ${venue}, 0 FROM events WHERE slug LIKE 'loop-%'`,
  );
  await s.db.prisma.$executeRawUnsafe(
    `INSERT INTO event_organizers (event_id, organizer_id, position) SELECT id, ${organizer}, 0 FROM events WHERE slug LIKE 'loop-%'`,
  );
  await s.db.prisma.$executeRawUnsafe(
    `INSERT INTO event_terms (event_id, term_id) SELECT e.id, t.id FROM events e, terms t
     WHERE e.slug LIKE 'loop-%' AND t.id IN (${categories.join(',')})`,
  );
  const series = (
    await s.post('/events', {
      title: 'Loop series',
      description: DESCRIPTION,
      start_date: '2027-01-04 09:00',
      end_date: '2027-01-04 10:00',
      venue,
      categories,
      recurrence: ['RRULE:FREQ=DAILY;COUNT=400'],
    })
  ).body;
  // Occurrences changed on their own: the series' iCalendar writes each as an override.
  const occurrences = await s.db.prisma.event.findMany({ where: { parentId: series.id }, take: 40 });
  for (const o of occurrences) await s.request('PATCH', `/events/${o.id}`, { body: { title: `Changed ${o.id}` } });
  return { series };
}

/** The longest the loop was held while `work` ran, in milliseconds. */
async function loopDelayOf(work: () => Promise<unknown>): Promise<number> {
  const histogram = monitorEventLoopDelay({ resolution: 5 });
  histogram.enable();
  try {
    await work();
  } finally {
    histogram.disable();
  }
  return histogram.max / 1e6;
}

describeEachDatabase(
  'the event loop while heavy answers are built',
  (s) => {
    it('is never held for 100 ms by a feed, a list, an embed, the change feed or a page', async () => {
      const { series } = await seed(s);
      // What housekeeping does for the planner now and then; PostgreSQL's autovacuum on a server.
      if (s.db.kind === 'pglite') await maintainEmbedded(s.db);
      else await s.db.prisma.$executeRawUnsafe('ANALYZE');
      // What the service does before it listens (server.ts): requests then find their validators.
      await s.warmUp();
      const heavy: [string, () => Promise<unknown>][] = [
        ['the public feed', () => s.get('/events?ical=1', { as: null })],
        ['the feed of every status', () => s.get('/events?ical=1&status=publish,draft,private&single_events=true')],
        ['a series with its overrides', () => s.get(`/events/${series.id}?ical=1`)],
        ['a list with everything embedded', () => s.get('/events?per_page=50&_embed')],
        ['a search', () => s.get('/events?per_page=50&search=evening%20music')],
        ['the change feed', () => s.get('/changes?per_page=500')],
        ['the page of a venue', () => fetch(`${s.origin}/venue/loop-hall/`)],
        ['the page of an event', () => fetch(`${s.origin}/event/loop-1/`)],
        [
          'a series of a thousand occurrences created',
          async () => {
            const r = await s.post('/events', {
              title: 'Loop hourly',
              description: DESCRIPTION,
              start_date: '2027-02-01 08:00',
              end_date: '2027-02-01 09:00',
              categories: ['Loop A'],
              recurrence: ['RRULE:FREQ=HOURLY;COUNT=1000'],
            });
            return { status: r.status === 201 ? 200 : r.status };
          },
        ],
        [
          'housekeeping',
          async () => {
            await purgeExpired(s.db, { authWindowSeconds: 900, idempotencyHours: 24, changesRetentionDays: 30 });
            await extendSeries(s.db.prisma, DEFAULT_RECURRENCE);
            return { status: 200 };
          },
        ],
      ];
      loopDelay.reset();
      const delays: Record<string, number> = {};
      for (const [name, request] of heavy) {
        // The best of up to three: code that holds the loop does so every time, while a machine
        // busy with other work (other test files, the database) stretches one reading at random.
        for (let attempt = 0; attempt < 3 && !(delays[name] < LIMIT_MS); attempt++) {
          const delay = Math.round(
            await loopDelayOf(async () => {
              const r = (await request()) as { status: number };
              expect(r.status, name).toBe(200);
            }),
          );
          delays[name] = Math.min(delays[name] ?? Infinity, delay);
        }
      }
      console.log(`loop delays (ms): ${JSON.stringify(delays)}`);
      for (const [name, delay] of Object.entries(delays)) expect(delay, name).toBeLessThan(LIMIT_MS);

      // /metrics tells an operator the same: how late the loop ran, by bucket.
      const metrics = await fetch(`${s.origin}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } });
      const text = await metrics.text();
      const bucket = (le: string) =>
        Number(new RegExp(`^event_loop_delay_seconds_bucket\\{le="${le}"\\} (\\d+)$`, 'm').exec(text)?.[1]);
      const count = Number(/^event_loop_delay_seconds_count (\d+)$/m.exec(text)?.[1]);
      expect(count).toBeGreaterThan(10);
      expect(bucket('\\+Inf')).toBe(count);
      // Nearly every sample on time; a shared machine may add late ones of its own.
      expect(bucket('0\\.1')).toBeGreaterThanOrEqual(count * 0.9);
    }, 120_000);
  },
  { env: { METRICS_TOKEN } },
);
