// A kept answer is only ever a whole answer (src/http/answer-cache.ts, app.ts buildAnswer): whatever
// the request that built it asked for (a 304, HEAD, a range, a shape, a language), the next plain
// read of its URL gets exactly what a read built afresh gets. Every route that keeps answers is
// tried with every conditional and method: a kept answer that differs from a built one fails.
import { beforeAll, expect, it } from 'vitest';
import { answerLookups } from '../../src/metrics/registry.js';
import { FULL_RUN } from '../setup/budget.js';
import { describeEachDatabase } from '../setup/each-database.js';
import type { TestServer } from '../setup/server.js';

const hits = async () => (await answerLookups.get()).values.find((v) => v.labels.result === 'hit')?.value ?? 0;

/**
 * Runs `reads` again until it runs within one second: a list's default window starts at the time of
 * the request, so answers built in different seconds may differ.
 */
async function withinOneSecond<T>(reads: () => Promise<T>): Promise<T> {
  for (;;) {
    const second = Math.floor(Date.now() / 1000);
    const result = await reads();
    if (Math.floor(Date.now() / 1000) === second) return result;
  }
}

const NO_LIMITS = { RATE_LIMIT_READS: '0', RATE_LIMIT_WRITES: '0' };

interface Seen {
  status: number;
  body: string;
  etag: string | null;
  type: string | null;
  lastModified: string | null;
}

/** What the first request for a URL asks besides a plain GET: each may not leave less than a whole answer behind. */
interface Primer {
  name: string;
  method?: string;
  headers?: (etag: string) => Record<string, string>;
  /** Answered without a body: tried on every shape of a URL. */
  bodiless?: true;
}
const PRIMERS: Primer[] = [
  { name: 'a plain GET' },
  { name: 'HEAD', method: 'HEAD', bodiless: true },
  { name: 'If-None-Match: *', headers: () => ({ 'if-none-match': '*' }), bodiless: true },
  { name: 'If-None-Match with its ETag', headers: (etag) => ({ 'if-none-match': etag }), bodiless: true },
  { name: 'If-None-Match with its weak ETag', headers: (etag) => ({ 'if-none-match': `W/${etag}` }) },
  { name: 'If-None-Match with another ETag', headers: () => ({ 'if-none-match': '"other"' }) },
  { name: 'If-Modified-Since', headers: () => ({ 'if-modified-since': 'Fri, 01 Jan 2100 00:00:00 GMT' }) },
  { name: 'HEAD with If-None-Match: *', method: 'HEAD', headers: () => ({ 'if-none-match': '*' }) },
  { name: 'Range', headers: () => ({ range: 'bytes=0-3' }) },
];

const BODILESS = PRIMERS.filter((p) => p.bodiless);

/**
 * The primers tried on a shape of a route: every primer on the URL as it is; on its other shapes,
 * those that leave no body behind, all of them in a full run (the slow part runs this file again,
 * test/setup/budget.ts) and one in turn (by the route's and shape's places) in the fast part, which
 * so still tries each on some routes.
 */
function primersOf(turn: number, shape: { query?: string; locale?: string }): Primer[] {
  if (!shape.query && !shape.locale) return PRIMERS;
  if (FULL_RUN) return BODILESS;
  return [BODILESS[turn % BODILESS.length]];
}

/** The shapes of one URL that are answers of their own, each kept apart. */
const SHAPES: { name: string; query?: string; locale?: string }[] = [
  { name: 'as it is' },
  { name: 'with _fields', query: '_fields=id' },
  { name: 'with _envelope', query: '_envelope' },
  { name: 'with _embed', query: '_embed' },
  { name: 'in French', locale: '/fr' },
];

describeEachDatabase(
  'kept answers are whole answers',
  (s: TestServer) => {
    const routes: string[] = [];
    let venueId = 0;

    beforeAll(async () => {
      const venue = (await s.post('/venues', { venue: 'Whole Hall' })).body as { id: number; slug: string };
      const organizer = (await s.post('/organizers', { organizer: 'Whole Org' })).body as { id: number; slug: string };
      const category = (await s.post('/categories', { name: 'Whole category' })).body as { id: number };
      const tag = (await s.post('/tags', { name: 'Whole tag' })).body as { id: number };
      const event = (
        await s.post('/events', {
          title: 'Whole event',
          start_date: '2033-03-01 10:00',
          end_date: '2033-03-01 11:00',
          venue: venue.id,
          organizer: [organizer.id],
          categories: [category.id],
          tags: [tag.id],
        })
      ).body as { id: number; slug: string };
      venueId = venue.id;
      routes.push(
        '/',
        '/events',
        '/events.ics',
        `/events/${event.id}`,
        `/events/${event.id}.ics`,
        `/events/by-slug/${event.slug}`,
        `/events/by-slug/${event.slug}.ics`,
        '/venues',
        `/venues/${venue.id}`,
        `/venues/by-slug/${venue.slug}`,
        '/organizers',
        `/organizers/${organizer.id}`,
        `/organizers/by-slug/${organizer.slug}`,
        '/categories',
        `/categories/${category.id}`,
        '/tags',
        `/tags/${tag.id}`,
        '/media',
      );
    });

    /** A write that changes nothing any answer shows: every kept answer is of an old version now. */
    const forgetKept = () => s.db.prisma.$executeRaw`UPDATE venues SET city = city WHERE id = ${venueId}`;

    const read = async (url: string, method = 'GET', headers: Record<string, string> = {}): Promise<Seen> => {
      const r = await fetch(url, { method, headers, redirect: 'manual' });
      return {
        status: r.status,
        body: await r.text(),
        etag: r.headers.get('etag'),
        type: r.headers.get('content-type'),
        lastModified: r.headers.get('last-modified'),
      };
    };

    const urlOf = (route: string, shape: (typeof SHAPES)[number]) => {
      const base = shape.locale ? s.base.replace('/wp-json/', `${shape.locale}/wp-json/`) : s.base;
      if (!shape.query) return `${base}${route}`;
      return `${base}${route}${route.includes('?') ? '&' : '?'}${shape.query}`;
    };

    // The table is split in parts, each a few seconds on a slow machine.
    const PARTS = 6;
    it.each(Array.from({ length: PARTS }, (_, i) => i))('keeps only whole answers (part %i)', async (at) => {
      const part = routes.filter((_, i) => i % PARTS === at);
      const broken: string[] = [];
      const hitsBefore = await hits();
      for (const route of part) {
        for (const shape of SHAPES) {
          const url = urlOf(route, shape);
          // Every primer on the URL as it is; on its other shapes, those that leave no body behind.
          for (const primer of primersOf(routes.indexOf(route) + SHAPES.indexOf(shape), shape)) {
            const { built, primed, kept } = await withinOneSecond(async () => {
              await forgetKept();
              const built = await read(url);
              await forgetKept();
              const primed = await read(url, primer.method, primer.headers?.(built.etag ?? '"none"'));
              return { built, primed, kept: await read(url) };
            });
            if (primed.status >= 500) broken.push(`${route} ${shape.name} after ${primer.name}: ${primed.status}`);
            const differs = (Object.keys(built) as (keyof Seen)[]).filter((k) => kept[k] !== built[k]);
            for (const k of differs) broken.push(`${route} ${shape.name} after ${primer.name}: ${k} ${kept[k]}`);
          }
        }
      }
      expect(broken).toEqual([]);
      // The reads compared were answered from kept answers, not all built again.
      expect(await hits()).toBeGreaterThan(hitsBefore + part.length * SHAPES.length);
    });
  },
  { env: NO_LIMITS },
);
