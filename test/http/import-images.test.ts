// Importing a site of the modelled service brings its images into the media library
// (src/import/images.ts): the items show uploaded images with their sizes, each source image is
// fetched once across runs, an image that cannot be brought stays a link with a remark, and
// `images` unset keeps every link. The credentials given for the site go to no other origin its
// answers name, and an image on a private address is read only when the run allows it
// (src/lib/guarded-fetch.ts).
import http from 'node:http';
import net, { type AddressInfo } from 'node:net';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Summary } from '../../src/import/run-import.js';
import type { Network } from '../../src/lib/guarded-fetch.js';
import { describeEachDatabase } from '../setup/each-database.js';
import { importSite } from '../setup/importing.js';
import { HTML, photo } from '../setup/images.js';
import type { TestServer } from '../setup/server.js';
import { startTecSite, type TecSite } from '../setup/tec-site.js';

const POSTER = '/wp-content/uploads/2026/11/jazz-poster.jpg';
const HALL = '/wp-content/uploads/2026/10/hall.png';
const GONE = '/wp-content/uploads/2020/01/gone.jpg';
const PAGE = '/wp-content/uploads/2020/01/not-an-image.jpg';

/** The image object the modelled service shows for a file of its uploads. */
const theirImage = (site: TecSite, path: string) => ({
  url: `${new URL(site.base).origin}${path}`,
  id: 901,
  extension: path.split('.').pop(),
  width: 1200,
  height: 800,
  sizes: { medium: { width: 300, height: 200, 'mime-type': 'image/jpeg', url: `${new URL(site.base).origin}${path}` } },
});

describeEachDatabase('importing the images of a site of The Events Calendar', (s: TestServer, kind) => {
  let site: TecSite;
  const run = (images: boolean) =>
    importSite(s, site, { concurrency: kind === 'postgresql' ? 4 : 1, images, fetch: { allowPrivate: true } });
  const fetched = (path: string) => site.requests.filter((r) => r === path).length;

  beforeAll(async () => {
    site = await startTecSite();
    site.files.set(POSTER, { type: 'image/jpeg', bytes: await photo(1200, 800) });
    site.files.set(HALL, { type: 'image/png', bytes: await photo(640, 480, { format: 'png' }) });
    site.files.set(PAGE, { type: 'image/jpeg', bytes: HTML });
    const published = site.events.filter((e) => e.status === 'publish');
    // Two events share the poster; the first venue has the hall; an organizer's image is gone there.
    published[0].image = theirImage(site, POSTER);
    published[1].image = theirImage(site, POSTER);
    published[2].image = theirImage(site, PAGE);
    site.venues[0].image = theirImage(site, HALL);
    site.organizers[0].image = theirImage(site, GONE);
  });
  afterAll(async () => {
    await site.close();
  });

  it('links the items to images of the library, each fetched once, and keeps a link where it must', async () => {
    const summary: Summary = await run(true);
    const published = site.events.filter((e) => e.status === 'publish');
    const events = new Map<string, any>();
    for (const e of published) events.set(e.slug as string, (await s.get(`/events/by-slug/${e.slug}`)).body);
    const bySlug = (slug: string) => events.get(slug);
    const first = bySlug(published[0].slug);
    const second = bySlug(published[1].slug);
    expect(first.image).toMatchObject({ id: expect.any(Number), extension: 'jpg', width: 1200, height: 800 });
    expect(first.image.url).toMatch(new RegExp(`^${s.origin}/uploads/\\d+/jazz-poster\\.jpg$`));
    expect(Object.keys(first.image.sizes)).toEqual(['thumbnail', 'medium', 'medium_large', 'large']);
    expect(second.image).toEqual(first.image);
    expect((await fetch(first.image.sizes.medium.url)).status).toBe(200);
    const venue = (await s.get('/venues?per_page=50')).body.venues.find((v: any) => v.venue === site.venues[0].venue);
    expect(venue.image).toMatchObject({ extension: 'png', width: 640, height: 480 });
    // Gone there, or not an image: the link stays, and the summary says why.
    expect(bySlug(published[2].slug).image).toEqual({ url: `${new URL(site.base).origin}${PAGE}`, extension: 'jpg' });
    const organizer = (await s.get('/organizers?per_page=50')).body.organizers.find(
      (o: any) => o.organizer === site.organizers[0].organizer,
    );
    expect(organizer.image).toEqual({ url: `${new URL(site.base).origin}${GONE}`, extension: 'jpg' });
    const remarks = [...summary.remarks.keys()];
    expect(remarks.some((r) => r.startsWith('image kept as a link: its source answered 404'))).toBe(true);
    expect(remarks.some((r) => r.startsWith('image kept as a link: The file holds markup'))).toBe(true);
    expect([fetched(POSTER), fetched(HALL)]).toEqual([1, 1]);
    const library = await s.db.prisma.media.findMany({ orderBy: { id: 'asc' } });
    expect(library.map((m) => m.sourceUrl)).toEqual(
      expect.arrayContaining([`${new URL(site.base).origin}${POSTER}`, `${new URL(site.base).origin}${HALL}`]),
    );
    expect(library).toHaveLength(2);
  });

  it('fetches nothing again on the next run, and changes nothing', async () => {
    const summary = await run(true);
    expect(summary.counts.event.created + summary.counts.event.updated).toBe(0);
    expect(summary.counts.venue.updated).toBe(0);
    expect([fetched(POSTER), fetched(HALL)]).toEqual([1, 1]);
    expect(await s.db.prisma.media.count()).toBe(2);
  });

  it('keeps the links when asked to (images unset), updating the items back to them', async () => {
    await run(false);
    const published = site.events.filter((e) => e.status === 'publish');
    const event = (await s.get(`/events/by-slug/${published[0].slug}`)).body;
    expect(event.image).toEqual({ url: `${new URL(site.base).origin}${POSTER}`, extension: 'jpg' });
    expect(fetched(POSTER)).toBe(1);
  });
});

/** Another origin on loopback that serves a picture at any path, and notes each request's path and credentials. */
async function startImageHost() {
  const bytes = await photo(300, 200);
  const seen: { path: string; authorization?: string }[] = [];
  const server = http.createServer((req, res) => {
    seen.push({ path: req.url ?? '', authorization: req.headers.authorization });
    res.writeHead(200, { 'content-type': 'image/jpeg' });
    res.end(bytes);
  });
  server.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    seen,
    port,
    origin: `http://127.0.0.1:${port}`,
    close: () => {
      server.closeAllConnections();
      server.close();
    },
  };
}

describeEachDatabase('the images a site names on other hosts', (s: TestServer, kind) => {
  let site: TecSite;
  let other: Awaited<ReturnType<typeof startImageHost>>;
  const published = () => site.events.filter((e) => e.status === 'publish');
  const run = (base: string, fetch: { allowPrivate?: boolean | { origin: string }; network?: Network }) =>
    importSite(s, site, { base, concurrency: kind === 'postgresql' ? 4 : 1, images: true, fetch });

  beforeAll(async () => {
    site = await startTecSite();
    other = await startImageHost();
  });
  afterAll(async () => {
    other.close();
    await site.close();
  });

  it("send the site's credentials to no other origin, directly or through a redirect", async () => {
    // Both on loopback, which this run allows: only the origins differ (another port).
    const siteOrigin = new URL(site.base).origin;
    published()[0].image = { url: `${other.origin}/poster.jpg` };
    site.redirects.set('/wp-content/uploads/moved.jpg', `${other.origin}/moved.jpg`);
    published()[1].image = { url: `${siteOrigin}/wp-content/uploads/moved.jpg` };
    const summary = await run(site.base, { allowPrivate: true });
    expect(summary.skipped).toEqual([]);
    const byPath = (a: { path: string }, b: { path: string }) => a.path.localeCompare(b.path);
    expect(other.seen.sort(byPath)).toEqual([{ path: '/moved.jpg' }, { path: '/poster.jpg' }]);
    expect(site.requests).toContain('/wp-content/uploads/moved.jpg');
    const first = (await s.get(`/events/by-slug/${published()[0].slug}`)).body;
    expect(first.image).toMatchObject({ id: expect.any(Number), width: 300, height: 200 });
  });

  it('leave out an image on a private address, which the run does not allow, and report it', async () => {
    // The site and one image host as public addresses would be; every connection goes to loopback,
    // whatever address it is made for, so a guard that failed would send nothing off this machine.
    const sitePort = Number(new URL(site.base).port);
    const names: Record<string, string[]> = { 'calendar.example': ['93.184.215.14'], 'internal.example': ['10.0.0.7'] };
    const network: Network = {
      resolve: (host) => Promise.resolve((names[host] ?? []).map((address) => ({ address, family: 4 }))),
      connect: ({ address }) =>
        net.connect({ host: '127.0.0.1', port: address === '93.184.215.14' ? sitePort : other.port }),
    };
    const refused = [
      `${other.origin}/private.png`,
      `http://[::1]:${other.port}/private.png`,
      'http://internal.example/private.png',
    ];
    const [loopback, ipv6, internal] = published().slice(2, 5);
    loopback.image = { url: refused[0] };
    ipv6.image = { url: refused[1] };
    internal.image = { url: refused[2] };
    const base = `http://calendar.example${new URL(site.base).pathname}`;
    const summary = await run(base, { network });
    expect(other.seen.map((r) => r.path)).not.toContain('/private.png');
    for (const event of [loopback, ipv6, internal]) {
      const mapped = await s.db.prisma.importedItem.findFirstOrThrow({
        where: { source: base, kind: 'event', externalId: String(event.id) },
      });
      expect((await s.get(`/events/${mapped.localId}`)).body.image).toBe(false);
    }
    const left = [...summary.remarks].filter(([text]) => text.startsWith('image left out:'));
    // Written by several writers at once on PostgreSQL: in any order.
    const urls = left.map(([text]) => /^image left out: (\S+): /.exec(text)?.[1]);
    expect(urls.sort()).toEqual([...refused].sort());
    expect(left.every(([text]) => text.includes('private, loopback or link-local'))).toBe(true);
    expect(summary.counts.event.skipped).toBe(0);
  });

  it("with the source's own private address allowed (--allow-private), still leave out images on other private hosts", async () => {
    // The site on a private address, as on a closed network; every connection goes to loopback.
    const sitePort = Number(new URL(site.base).port);
    const names: Record<string, string[]> = {
      'calendar.internal': ['10.0.0.5'],
      'metadata.internal': ['169.254.169.254'],
    };
    const network: Network = {
      resolve: (host) => Promise.resolve((names[host] ?? []).map((address) => ({ address, family: 4 }))),
      connect: ({ address }) =>
        net.connect({ host: '127.0.0.1', port: address === '10.0.0.5' ? sitePort : other.port }),
    };
    const [elsewhere] = published().slice(5, 6);
    for (const event of published()) event.image = false;
    elsewhere.image = { url: 'http://metadata.internal/latest/poster.png' };
    const base = `http://calendar.internal${new URL(site.base).pathname}`;
    const before = other.seen.length;
    const summary = await run(base, { network, allowPrivate: { origin: 'http://calendar.internal' } });
    expect(summary.counts.event.created).toBeGreaterThan(0);
    expect(other.seen.length).toBe(before);
    const left = [...summary.remarks].filter(([text]) => text.startsWith('image left out:'));
    expect(left.map(([text]) => /^image left out: (\S+): /.exec(text)?.[1])).toEqual([
      'http://metadata.internal/latest/poster.png',
    ]);
  });
});
