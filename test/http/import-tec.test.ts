// Importing a site of the modelled service (src/import/): a stand-in built from that service's real
// answers (test/setup/tec-site.ts) is imported, checked field by field through our own API, imported
// again (nothing duplicated), changed and imported once more (changes applied, a deletion there
// reported); a dry run writes nothing; a busy site is waited for.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { importTec } from '../../src/import/commands.js';
import { SourceError } from '../../src/import/fetch-source.js';
import type { ImportLimits } from '../../src/import/limits.js';
import { plainProgress } from '../../src/import/progress.js';
import { type Summary, summaryLines } from '../../src/import/run-import.js';
import { describeEachDatabase, itOnPostgres } from '../setup/each-database.js';
import type { TestServer } from '../setup/server.js';
import { addEvents, fixture, startTecSite, type TecSite } from '../setup/tec-site.js';

/** The counts of a summary by kind, as `created/updated/unchanged/skipped`. */
const counts = (summary: Summary) =>
  Object.fromEntries(
    Object.entries(summary.counts).map(([kind, c]) => [kind, `${c.created}/${c.updated}/${c.unchanged}/${c.skipped}`]),
  );

const decoded = (title: string) => title.replaceAll('&#8217;', '\u2019').replaceAll('&#038;', '&');

/** Every event here, any status, by slug. */
async function eventsBySlug(s: TestServer): Promise<Map<string, any>> {
  const r = await s.get(
    '/events?status=publish,draft,private,pending,future&start_date=2000-01-01&end_date=2100-01-01&per_page=50',
  );
  expect(r.status, r.text).toBe(200);
  const hidden = await s.get('/events/by-slug/staff-rehearsal');
  const all = [...r.body.events, ...(hidden.status === 200 ? [hidden.body] : [])];
  const slugs = all.map((e: any) => e.slug);
  expect(new Set(slugs).size, `duplicated: ${slugs.join(', ')}`).toBe(slugs.length);
  return new Map(all.map((e: any) => [e.slug, e]));
}

/** The first run's counts: everything the site has (its draft included, signed in), created. */
const EVERYTHING_CREATED = {
  category: '5/0/0/0',
  tag: '5/0/0/0',
  venue: '2/0/0/0',
  organizer: '2/0/0/0',
  event: '8/0/0/0',
};

describeEachDatabase('importing a site of The Events Calendar', (s, kind) => {
  let site: TecSite;
  const lines: string[] = [];
  const progress = plainProgress({ write: (text: string) => lines.push(text) });
  const run = (
    options: {
      dryRun?: boolean;
      signedIn?: boolean;
      base?: string;
      stop?: AbortSignal;
      limits?: Partial<ImportLimits>;
    } = {},
  ) =>
    importTec(
      {
        ctx: {
          db: s.db.prisma,
          caller: { id: s.users.administrator.id, login: 'administrator', role: 'administrator' },
          siteZone: 'UTC',
          now: new Date(),
        },
        dryRun: options.dryRun ?? false,
        // Several writers at once on PostgreSQL, as the command runs them there.
        concurrency: kind === 'postgresql' ? 4 : 1,
      },
      {
        base: options.base ?? site.base,
        ...(options.signedIn === false ? {} : { user: site.credentials.user, appPassword: site.credentials.password }),
        // The stand-in site is on loopback: read only because the test allows it.
        fetch: { minTimeoutMs: 1, retries: 3, allowPrivate: true },
        limits: options.limits,
      },
      progress,
      options.stop ?? new AbortController().signal,
    );

  beforeAll(async () => {
    site = await startTecSite();
  });
  afterAll(async () => {
    await site.close();
  });

  it('the stand-in pages its events as the real site did', async () => {
    for (const page of [1, 2]) {
      const real = fixture(`events-list-page${page}`);
      const answer = await fetch(`${site.base}/events?per_page=2&page=${page}`);
      const body = (await answer.json()) as any;
      expect(body.events.map((e: any) => e.id)).toEqual(real.body.events.map((e: any) => e.id));
      expect([body.total, body.total_pages]).toEqual([real.body.total, real.body.total_pages]);
      expect(answer.headers.get('x-tec-totalpages')).toBe(real.headers['x-tec-totalpages']);
      expect(Boolean(body.next_rest_url)).toBe(Boolean(real.body.next_rest_url));
    }
  });

  it('a dry run says what it would do and writes nothing', async () => {
    const summary = await run({ dryRun: true });
    expect(counts(summary)).toEqual(EVERYTHING_CREATED);
    expect(await s.db.prisma.importedItem.count()).toBe(0);
    expect((await eventsBySlug(s)).size).toBe(0);
  });

  it('brings every category, tag, venue, organizer and event over, hidden and draft ones included', async () => {
    const summary = await run();
    expect(summary.skipped).toEqual([]);
    expect(counts(summary)).toEqual(EVERYTHING_CREATED);
    expect((await eventsBySlug(s)).size).toBe(8);
    const mapped = await s.db.prisma.importedItem.findMany({ where: { kind: 'event' } });
    for (const theirs of site.events) {
      const localId = mapped.find((m) => m.externalId === String(theirs.id))?.localId;
      const { body: event } = await s.get(`/events/${localId}`);
      const pick = (e: any) => ({
        title: decoded(e.title),
        status: e.status,
        description: e.description,
        excerpt: e.excerpt,
        all_day: e.all_day,
        start_date: e.start_date,
        end_date: e.end_date,
        utc_start_date: e.utc_start_date,
        utc_end_date: e.utc_end_date,
        timezone: e.timezone,
        cost: e.cost,
        cost_details: e.cost_details,
        website: e.website,
        show_map: e.show_map,
        show_map_link: e.show_map_link,
        hide_from_listings: e.hide_from_listings,
        sticky: e.sticky,
        featured: e.featured,
        date_utc: e.date_utc,
        categories: e.categories.map((c: any) => c.slug).sort(),
        tags: e.tags.map((t: any) => t.slug).sort(),
        venue: Array.isArray(e.venue) ? [] : [e.venue.slug],
        organizer: e.organizer.map((o: any) => o.slug).sort(),
      });
      // A draft has no slug there until it is published; here it gets one from its title.
      expect(event.slug).toBe(theirs.slug || 'summer-lecture-series');
      expect(pick(event), theirs.title).toEqual({
        ...pick(theirs),
        // Both show an event's own page as its website when it has none: theirs there, ours here.
        website: theirs.website === theirs.url ? event.url : theirs.website,
        // A draft has no publication date in the plugin's answer (zeros); WordPress's record has it.
        date_utc: theirs.date_utc.startsWith('0000') ? '2026-11-22 04:04:50' : theirs.date_utc,
      });
    }

    // The hierarchy of categories, and the venues' and organizers' fields.
    const categories = (await s.get('/categories?hide_empty=false&per_page=50')).body.categories;
    const bySlug = new Map(categories.map((c: any) => [c.slug, c]));
    expect((bySlug.get('jazz') as any).parent).toBe((bySlug.get('concerts') as any).id);
    expect(bySlug.has('film')).toBe(true);
    expect((bySlug.get('family-friendly') as any).name).toBe('Family');
    const venue = (await s.get('/venues/by-slug/maison-de-la-culture-mont-royal')).body;
    const theirVenue = site.venues.find((v) => v.id === 6)!;
    for (const field of [
      'venue',
      'address',
      'city',
      'country',
      'province',
      'zip',
      'phone',
      'website',
      'show_map',
      'show_map_link',
    ]) {
      expect(venue[field], field).toEqual(theirVenue[field]);
    }
    const organizer = (await s.get('/organizers/by-slug/ana-ribeiro')).body;
    expect(organizer).toMatchObject({
      organizer: 'Ana Ribeiro',
      email: 'ana.ribeiro@example.com',
      phone: '+1 514-555-0123',
    });
  });

  it('a second run duplicates nothing; a third applies what changed there and reports what was deleted there', async () => {
    const second = await run();
    expect(counts(second)).toEqual({
      category: '0/0/5/0',
      tag: '0/0/5/0',
      venue: '0/0/2/0',
      organizer: '0/0/2/0',
      event: '0/0/8/0',
    });
    expect(second.deletedThere).toEqual([]);

    const jazz = site.events.find((e) => e.slug === 'winter-jazz-night')!;
    jazz.title = 'Winter Jazz Night &#8211; sold out';
    jazz.modified_utc = '2026-11-23 10:00:00';
    jazz.tags = jazz.tags.filter((t: any) => t.slug !== 'live-music');
    const pottery = site.events.findIndex((e) => e.slug === 'pottery-for-beginners');
    const [removed] = site.events.splice(pottery, 1);
    site.tags.find((t) => t.slug === 'kids')!.name = 'Children';

    const third = await run();
    expect(counts(third)).toEqual({
      category: '0/0/5/0',
      tag: '0/1/4/0',
      venue: '0/0/2/0',
      organizer: '0/0/2/0',
      event: '0/1/6/0',
    });
    expect(third.deletedThere).toEqual([
      { kind: 'event', externalId: String(removed.id), localId: expect.any(Number) },
    ]);
    const ours = await eventsBySlug(s);
    expect(ours.size).toBe(8); // the deleted one is kept here
    expect(ours.get('winter-jazz-night').title).toBe('Winter Jazz Night \u2013 sold out');
    expect(ours.get('winter-jazz-night').tags.map((t: any) => t.slug)).toEqual(['indoor']);
    const tags = (await s.get('/tags?hide_empty=false&per_page=50')).body.tags;
    expect(tags.find((t: any) => t.slug === 'kids').name).toBe('Children');
  });

  it('brings a varied site over as its source meant it, and sees an event trashed there for what it is', async () => {
    const other = await startTecSite({ varied: true });
    try {
      // Escaped twice there: decoded once, the escape that was meant stays.
      other.tags[0].name = 'Rhythm &amp;amp; Blues';
      const summary = await run({ base: other.base });
      expect(summary.skipped).toEqual([]);
      expect(summary.counts.event.created).toBe(14);
      const ours = async (id: number) => {
        const mapped = await s.db.prisma.importedItem.findFirst({
          where: { source: other.base, kind: 'event', externalId: String(id) },
        });
        return (await s.get(`/events/${mapped?.localId}`)).body;
      };
      const costOf = (event: any) => [event.cost, event.cost_details];
      const details = (values: string[], symbol = '', position = '') => ({
        currency_symbol: symbol,
        currency_code: '',
        currency_position: position,
        values,
      });

      const rock = await ours(40);
      expect(rock.title).toBe('Rock & Roll Revival');
      expect(rock.website).toBe('https://tickets.example.com/buy?event=40&lang=en');
      // Stored "5, 10, 15" without a currency: all three amounts, no symbol of its own.
      expect(costOf(rock)).toEqual(['$5 – $15', details(['5', '10', '15'])]);
      expect(rock.venue).toMatchObject({
        venue: 'Smith & Sons Hall',
        address: '1 King & Queen St',
        website: 'https://smith.example.com/visit?a=1&b=2',
      });
      expect(rock.organizer[0]).toMatchObject({
        organizer: 'Ana & Bo Events',
        website: 'https://ab.example.com/?x=1&y=2',
        email: 'anabo@example.com',
      });

      const quay = await ours(41);
      expect(quay.title).toBe('\u201cQuay\u201d Night Market');
      // Stored "100": shown "$100" there, and here, with no symbol of its own.
      expect(costOf(quay)).toEqual(['$100', details(['100'])]);
      // Its website there was its own page there: here, its own page here.
      expect(quay.website).toBe(quay.url);
      expect(quay.website).not.toContain('example.org');

      const slam = await ours(43);
      expect(slam.status).toBe('pending');
      expect(slam.date_utc).toBe('2026-11-20 14:15:00');
      expect(costOf(slam)).toEqual(['20€', details(['20'], '€', 'postfix')]);
      expect(slam.website).toBe(slam.url);

      const preview = await ours(44);
      expect([preview.title, preview.status, preview.cost]).toEqual(['Members\u2019 Preview', 'private', 'Free']);
      expect((await s.get(`/events/${preview.id}`, { as: null })).status).not.toBe(200);
      expect(summaryLines(summary, false).join('\n')).toContain('password-protected there: private here');

      const curry = await ours(46);
      expect([curry.title, curry.timezone, curry.utc_start_date]).toEqual([
        'Curry & Jazz',
        'UTC+5.5',
        '2027-04-02 13:30:00',
      ]);
      expect(costOf(curry)).toEqual(['$10 – $25', details(['10', '25'])]);
      const tags = (await s.get('/tags?hide_empty=false&per_page=50&search=Rhythm')).body.tags;
      expect(tags.map((t: any) => t.name)).toEqual(['Rhythm &amp; Blues']);

      // Trashed there: the plugin answers 403 even to its administrator; WordPress's record says trash.
      const supper = await ours(45);
      other.events.find((e) => e.id === 45)!.status = 'trash';
      const again = await run({ base: other.base });
      expect(again.skipped).toEqual([]);
      expect(again.counts.event).toMatchObject({ created: 0, updated: 0, unchanged: 13 });
      expect(again.deletedThere).toEqual([{ kind: 'event', externalId: '45', localId: supper.id, trashed: true }]);
      expect(summaryLines(again, false).join('\n')).toContain(
        `event 45, in the trash there (here: event ${supper.id})`,
      );
    } finally {
      await other.close();
    }
  });

  it("takes the plugin's answers alone where WordPress's records cannot be read, and says so", async () => {
    const other = await startTecSite({ varied: true });
    try {
      other.wordpressRoute = false;
      const summary = await run({ base: other.base });
      expect(summary.notes.join('\n')).toContain("WordPress's records of the events could not be read");
      const ours = async (id: number) => {
        const mapped = await s.db.prisma.importedItem.findFirst({
          where: { source: other.base, kind: 'event', externalId: String(id) },
        });
        return (await s.get(`/events/${mapped?.localId}`)).body;
      };
      // The amounts the plugin parsed, without the default symbol it adds to show them.
      const rock = await ours(40);
      expect([rock.cost, rock.cost_details.values, rock.cost_details.currency_symbol]).toEqual([
        '$5 – $15',
        ['5', '10', '15'],
        '',
      ]);
      expect(rock.website).toBe('https://tickets.example.com/buy?event=40&lang=en');
      expect((await ours(41)).cost_details.currency_symbol).toBe('');
      // A draft's local date there, read in this site's zone (UTC in the tests).
      expect((await ours(43)).date_utc).toBe('2026-11-20 09:15:00');
      expect((await ours(44)).cost).toBe('Free');
    } finally {
      await other.close();
    }
  });

  it('waits for a busy site and gives up on one that stays busy', async () => {
    site.failNext(2, 503);
    const summary = await run();
    expect(summary.counts.event.unchanged).toBe(7);
    expect(lines.some((line) => line.includes('503; trying again'))).toBe(true);
    site.failNext(100, 429);
    await expect(run()).rejects.toBeInstanceOf(SourceError);
    site.failNext(0);
  });

  it('a stop asked for while it waits on Retry-After ends the wait at once', async () => {
    site.failNext(100, 429, '100');
    const stop = new AbortController();
    const started = performance.now();
    setTimeout(() => {
      stop.abort();
    }, 300);
    try {
      const summary = await run({ stop: stop.signal });
      expect(summary.stopped).toBe(true);
      expect(summary.done).toBe(0);
      expect(performance.now() - started).toBeLessThan(5000);
    } finally {
      site.failNext(0);
    }
  }, 20_000);

  it('fails a redirect loop at once, as final, without trying it again', async () => {
    let requests = 0;
    const looping = http.createServer((req, res) => {
      requests++;
      res.writeHead(302, {
        location: req.url?.startsWith('/a/') ? '/b/wp-json/tribe/events/v1/' : '/a/wp-json/tribe/events/v1/',
      });
      res.end();
    });
    looping.listen(0, '127.0.0.1');
    await new Promise((resolve) => looping.once('listening', resolve));
    try {
      const origin = `http://127.0.0.1:${(looping.address() as AddressInfo).port}`;
      const failed = run({ base: `${origin}/a/wp-json/tribe/events/v1` });
      await expect(failed).rejects.toBeInstanceOf(SourceError);
      await expect(failed).rejects.toThrow(/redirect loop/);
      expect(requests).toBeLessThanOrEqual(3); // /a/.../categories, /b/.../, /a/.../ again: seen, final
    } finally {
      looping.closeAllConnections();
      looping.close();
    }
  });

  it('refuses anything but an http(s) URL', async () => {
    await expect(
      importTec(
        { ctx: { db: s.db.prisma, caller: null, siteZone: 'UTC', now: new Date() }, dryRun: true },
        { base: 'file:///etc/passwd' },
        progress,
        new AbortController().signal,
      ),
    ).rejects.toThrow(/Only http: and https:/);
  });

  itOnPostgres(
    kind,
    'two imports of one site at once write each item once',
    'imports run one at a time on one connection',
    async () => {
      const other = await startTecSite();
      try {
        addEvents(other, 40);
        other.credentials = site.credentials;
        const before = await s.db.prisma.event.count();
        const both = await Promise.all([run({ base: other.base }), run({ base: other.base })]);
        expect(both.flatMap((summary) => summary.skipped)).toEqual([]);
        expect((await s.db.prisma.event.count()) - before).toBe(48);
        expect(both[0].counts.event.created + both[1].counts.event.created).toBe(48);
        expect(await s.db.prisma.importedItem.count({ where: { source: other.base, kind: 'event' } })).toBe(48);
      } finally {
        await other.close();
      }
    },
  );

  it('takes WordPress offsets, a category whose parent is gone, and a list that shrinks while it is read', async () => {
    const other = await startTecSite();
    try {
      addEvents(other, 120);
      other.credentials = site.credentials;
      other.events.find((e) => e.id === 13)!.timezone = 'UTC+5.5';
      other.categories.find((c) => c.slug === 'jazz')!.parent = 99;
      // As the third page of events is asked for, 30 events are deleted there: it is gone.
      other.beforeAnswer = (url) => {
        if (url.pathname.endsWith('/events') && url.searchParams.get('page') === '3') {
          other.events.splice(-30, 30);
          other.beforeAnswer = undefined;
        }
      };
      const summary = await run({ base: other.base });
      expect(summary.skipped).toEqual([]);
      const mapped = await s.db.prisma.importedItem.findMany({ where: { source: other.base, kind: 'event' } });
      const spring = mapped.find((m) => m.externalId === '13');
      expect((await s.get(`/events/${spring?.localId}`)).body.timezone).toBe('UTC+5.5');
      const jazz = await s.db.prisma.importedItem.findFirst({
        where: { source: other.base, kind: 'category', externalId: '3' },
      });
      expect((await s.get(`/categories/${jazz?.localId}`)).body.parent).toBe(0);
      // Pages of 50: the third was gone when it was asked for (404), which ends the list; the events
      // it would have held come through WordPress's list of IDs. Every event still there came.
      expect(other.requests.some((r) => r.includes('/events?') && r.includes('page=3'))).toBe(true);
      const imported = new Set(
        (await s.db.prisma.importedItem.findMany({ where: { source: other.base, kind: 'event' } })).map(
          (m) => m.externalId,
        ),
      );
      expect(other.events.filter((e) => !imported.has(String(e.id)))).toEqual([]);
    } finally {
      await other.close();
    }
  });

  it('stops while reading when asked, reading no further', async () => {
    const other = await startTecSite();
    try {
      const stop = new AbortController();
      other.beforeAnswer = (url) => {
        if (url.pathname.endsWith('/venues')) stop.abort(); // Ctrl-C while the venues are read (signed out, no terms)
      };
      const summary = await run({ base: other.base, signedIn: false, stop: stop.signal });
      expect(summary.stopped).toBe(true);
      expect(summary.done).toBe(0);
      expect(other.requests.some((r) => r.includes('/v1/events'))).toBe(false); // the events were never read
      expect(await s.db.prisma.importedItem.count({ where: { source: other.base } })).toBe(0);
    } finally {
      await other.close();
    }
  });

  it("takes each event's status, reason and link to join where the site gives them, and counts them", async () => {
    const other = await startTecSite();
    try {
      const event = (slug: string) => other.events.find((e) => e.slug === slug)!;
      // The status feature's fields, and the virtual events add-on's, written for HTML there.
      Object.assign(event('winter-jazz-night'), {
        event_status: 'canceled',
        event_status_reason: '<p>The hall &amp; its roof leak.</p>',
      });
      Object.assign(event('new-years-eve-gala'), {
        event_status: 'postponed',
        event_status_reason: '',
        is_virtual: true,
        virtual_event_type: 'hybrid',
        virtual_url: 'https://meet.example.org/gala?a=1&amp;b=2',
      });
      Object.assign(event('pottery-for-beginners'), {
        event_status: '',
        is_virtual: true,
        virtual_event_type: 'virtual',
        virtual_url: 'https:///no-host',
      });
      Object.assign(event('spring-open-studio'), { is_virtual: false, virtual_url: 'https://meet.example.org/old' });
      // The hidden event, read alone, says it in its json_ld only.
      const hidden = event('staff-rehearsal');
      Object.assign(hidden.json_ld, {
        eventStatus: 'https://schema.org/EventCancelled',
        eventAttendanceMode: 'https://schema.org/OnlineEventAttendanceMode',
        location: { '@type': 'VirtualLocation', url: 'https://meet.example.org/rehearsal' },
      });
      const summary = await run({ base: other.base });
      expect(summary.skipped).toEqual([]);
      expect(summary.events).toEqual({ cancelled: 2, occurrences: 0, postponed: 1, online: 3, hybrid: 1 });
      const lines = summaryLines(summary, false).join('\n');
      expect(lines).toContain('Events cancelled there: 2; postponed: 1; online: 3 (1 of them hybrid).');
      expect(lines).toContain(
        `Note: a link to join that is not an https address with a host (of at most 2,000 characters): left out: 1 item (event ${event('pottery-for-beginners').id}).`,
      );
      const ours = async (theirs: any) => {
        const mapped = await s.db.prisma.importedItem.findFirst({
          where: { source: other.base, kind: 'event', externalId: String(theirs.id) },
        });
        const { body } = await s.get(`/events/${mapped?.localId}`);
        return [body.event_status, body.event_status_reason, body.is_virtual, body.is_hybrid, body.virtual_url];
      };
      expect(await ours(event('winter-jazz-night'))).toEqual([
        'canceled',
        'The hall & its roof leak.',
        false,
        false,
        null,
      ]);
      expect(await ours(event('new-years-eve-gala'))).toEqual([
        'postponed',
        '',
        true,
        true,
        'https://meet.example.org/gala?a=1&b=2',
      ]);
      expect(await ours(event('pottery-for-beginners'))).toEqual(['scheduled', '', true, false, null]);
      expect(await ours(event('spring-open-studio'))).toEqual(['scheduled', '', false, false, null]);
      expect(await ours(hidden)).toEqual(['canceled', '', true, false, 'https://meet.example.org/rehearsal']);
      // Back on schedule there, and offline: so here at the next run.
      Object.assign(event('winter-jazz-night'), { event_status: 'scheduled', modified_utc: '2026-11-23 10:00:00' });
      Object.assign(event('new-years-eve-gala'), { is_virtual: false, modified_utc: '2026-11-23 10:00:00' });
      const again = await run({ base: other.base });
      expect(again.counts.event.updated).toBe(2);
      expect(await ours(event('winter-jazz-night'))).toEqual(['scheduled', '', false, false, null]);
      expect((await ours(event('new-years-eve-gala'))).slice(2, 4)).toEqual([false, false]);
    } finally {
      await other.close();
    }
  });

  it('cleans NUL bytes and other control characters out of what a site sends, and goes on', async () => {
    const other = await startTecSite();
    try {
      const jazz = other.events.find((e) => e.slug === 'winter-jazz-night')!;
      jazz.title = 'Winter\u0000 Jazz\u001b Night';
      jazz.modified_utc = '2026-11-23\u0000 10:00:00';
      jazz.venue.venue = 'Blue\u0000 Note';
      other.tags[0].name = 'Live\u0000 music';
      const summary = await run({ base: other.base });
      expect(summary.skipped).toEqual([]);
      expect(summary.counts.event.created).toBe(8);
      expect(summaryLines(summary, false).join('\n')).toMatch(/control characters removed[^:]*: \d items \(.*event /);
      const mapped = await s.db.prisma.importedItem.findFirst({
        where: { source: other.base, kind: 'event', externalId: String(jazz.id) },
      });
      const event = (await s.get(`/events/${mapped?.localId}`)).body;
      expect(event.title).toBe('Winter Jazz Night');
      expect(mapped?.sourceModified).toBe('2026-11-23 10:00:00');
    } finally {
      await other.close();
    }
  });

  it('reads a site that claims a billion pages and answers each with its first one up to the first repeat', async () => {
    const other = await startTecSite();
    try {
      other.hostile = 'repeat';
      const summary = await run({ base: other.base });
      // Its events list and WordPress's list of IDs each end at their second page, which repeats the first.
      expect(summary.counts.event).toMatchObject({ created: 50, skipped: 0 });
      expect(summary.notes.filter((note) => note.includes('holds only items of earlier pages'))).toHaveLength(2);
      expect(other.requests.filter((r) => r.includes('/v1/events?')).length).toBe(2);
      // Two pages of WordPress's IDs, and its records of the one page of events taken.
      expect(other.requests.filter((r) => r.includes('/wp/v2/')).length).toBe(3);
    } finally {
      await other.close();
    }
  }, 60_000);

  it('reads a site that invents new pages for ever up to its bounds, writing each page before the next', async () => {
    for (const [limits, created, note] of [
      [{ maxItems: 120 }, 120, 'the first 120 were taken (--max-items)'],
      [{ maxPages: 2 }, 100, 'the first 2 were read (--max-pages)'],
    ] as const) {
      const other = await startTecSite();
      try {
        other.hostile = 'endless';
        let writtenBeforePage2 = -1;
        other.beforeAnswer = (url) => {
          if (url.pathname.endsWith('/events') && url.searchParams.get('page') === '2') {
            void s.db.prisma.importedItem
              .count({ where: { source: other.base, kind: 'event' } })
              .then((count) => (writtenBeforePage2 = count));
          }
        };
        const summary = await run({ base: other.base, limits });
        expect(summary.counts.event).toMatchObject({ created, skipped: 0 });
        expect(summary.notes.join('\n')).toContain(note);
        expect(writtenBeforePage2).toBe(50);
        // Again with a lower bound: the events imported before that it does not reach are not
        // looked for one by one (nor taken for deleted there).
        const lower = await run({ base: other.base, limits: { maxItems: 60 } });
        expect(lower.counts.event).toMatchObject({ unchanged: 60, skipped: 0 });
        expect(lower.notes.join('\n')).toContain(`${created - 60} event items imported before were not looked for`);
        expect(lower.deletedThere).toEqual([]);
      } finally {
        await other.close();
      }
    }
  }, 60_000);

  it('takes at most --max-links categories, tags and organizers of one event, and says so', async () => {
    const other = await startTecSite();
    try {
      const jazz = other.events.find((e) => e.slug === 'winter-jazz-night')!;
      jazz.categories = other.categories.slice(0, 3);
      jazz.tags = other.tags.slice(0, 3);
      const summary = await run({ base: other.base, limits: { maxLinks: 2 } });
      expect(summary.skipped).toEqual([]);
      const mapped = await s.db.prisma.importedItem.findFirst({
        where: { source: other.base, kind: 'event', externalId: String(jazz.id) },
      });
      const event = (await s.get(`/events/${mapped?.localId}`)).body;
      expect([event.categories.length, event.tags.length]).toEqual([2, 2]);
      const notes = summaryLines(summary, false).join('\n');
      expect(notes).toContain('more than 2 categories: the first 2 were taken (--max-links)');
      expect(notes).toContain('more than 2 tags');
    } finally {
      await other.close();
    }
  });
});
