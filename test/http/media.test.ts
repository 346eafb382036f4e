// The media library (docs/decisions.md, "Images"): uploads in both body forms, the sizes made of
// them, the image object items show (part 1.6 of the modelled service), the files as served, hostile
// files, permissions, deletion while in use, and the change feed.
import type { AddressInfo } from 'node:net';
import sharp from 'sharp';
import { expect, it } from 'vitest';
import { createApp } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { countMediaLibrary } from '../../src/db/housekeeping.js';
import { unreferencedImages } from '../../src/metrics/registry.js';
import { describeEachDatabase } from '../setup/each-database.js';
import { settled } from '../setup/feed.js';
import { animatedGif, HTML, photo, pixelBomb, polyglot, SVG, uploadForm } from '../setup/images.js';
import type { TestServer } from '../setup/server.js';

type Role = 'administrator' | 'editor' | 'author' | 'contributor' | 'subscriber' | null;

async function upload(s: TestServer, bytes: Buffer, name = 'photo.jpg', as: Role = 'administrator', fields = {}) {
  return s.request('POST', '/media', { raw: await uploadForm(bytes, name, fields), as });
}

/** A served file: its status, headers and, for an image, what sharp reads of it. */
async function served(url: string, headers: Record<string, string> = {}) {
  const r = await fetch(url, { headers });
  const bytes = Buffer.from(await r.arrayBuffer());
  return { status: r.status, headers: r.headers, bytes };
}

const mediaRows = (s: TestServer) => s.db.prisma.media.count();
const fileRows = (s: TestServer) => s.db.prisma.mediaFile.count();

describeEachDatabase(
  'media library',
  (s, kind) => {
    it('takes an upload as a form, makes every size smaller than it once, and answers 201 with Location', async () => {
      const r = await upload(s, await photo(1600, 1200), 'Jazz Night.JPG', 'author', { alt_text: 'A trio' });
      expect(r.status).toBe(201);
      expect(r.headers.get('location')).toBe(`${s.base}/media/${r.body.id}`);
      const id = r.body.id as number;
      expect(r.body).toMatchObject({
        id,
        author: String(s.users.author.id),
        slug: 'jazz-night',
        title: 'Jazz Night',
        alt_text: 'A trio',
        media_type: 'image',
        mime_type: 'image/jpeg',
        extension: 'jpg',
        url: `${s.origin}/uploads/${id}/jazz-night.jpg`,
        width: 1600,
        height: 1200,
      });
      const sizes = r.body.sizes as Record<string, { width: number; height: number; url: string; filesize: number }>;
      expect(Object.fromEntries(Object.entries(sizes).map(([k, v]) => [k, [v.width, v.height]]))).toEqual({
        thumbnail: [150, 150],
        medium: [300, 225],
        medium_large: [768, 576],
        large: [1024, 768],
      });
      for (const [name, size] of Object.entries(sizes)) {
        expect(size.url).toBe(`${s.origin}/uploads/${id}/jazz-night-${size.width}x${size.height}.jpg`);
        const file = await served(size.url);
        expect(file.status, name).toBe(200);
        expect(file.bytes.length).toBe(size.filesize);
        const meta = await sharp(file.bytes).metadata();
        expect([meta.format, meta.width, meta.height]).toEqual(['jpeg', size.width, size.height]);
      }
      const full = await served(r.body.url as string);
      expect(full.bytes.length).toBe(r.body.filesize);
      expect((await s.get(`/media/${id}`, { as: null })).body).toEqual(r.body);
    });

    it('takes the image as the whole body, named by Content-Disposition', async () => {
      const r = await s.request('POST', '/media', {
        raw: { contentType: 'image/png', data: await photo(320, 200, { format: 'png' }) },
        headers: { 'content-disposition': 'attachment; filename="Poster Final.png"' },
      });
      expect(r.status).toBe(201);
      expect(r.body).toMatchObject({ slug: 'poster-final', mime_type: 'image/png', width: 320, height: 200 });
      expect(Object.keys(r.body.sizes)).toEqual(['thumbnail', 'medium']);
      // The type is the bytes', whatever the request says.
      const lying = await s.request('POST', '/media', {
        raw: { contentType: 'image/gif', data: await photo(40, 40, { format: 'webp' }) },
        headers: { 'content-disposition': 'attachment; filename="x.gif"' },
      });
      expect(lying.body).toMatchObject({
        mime_type: 'image/webp',
        extension: 'webp',
        url: `${s.origin}/uploads/${lying.body.id}/x.webp`,
      });
    });

    it('turns a photo upright and serves no metadata: no EXIF, no GPS, in any size or the full one', async () => {
      const r = await upload(s, await photo(800, 600, { orientation: 6, gps: true }));
      expect([r.body.width, r.body.height]).toEqual([600, 800]);
      expect([r.body.sizes.medium.width, r.body.sizes.medium.height]).toEqual([225, 300]);
      for (const url of [
        r.body.url,
        ...Object.values(r.body.sizes as Record<string, { url: string }>).map((x) => x.url),
      ]) {
        const file = await served(url as string);
        const meta = await sharp(file.bytes).metadata();
        expect(meta.exif, url as string).toBeUndefined();
        expect(meta.orientation ?? 1).toBe(1);
        expect(file.bytes.includes('GPS')).toBe(false);
      }
    });

    it('never makes a size larger than the image, and bounds a very large one as WordPress does (-scaled)', async () => {
      expect((await upload(s, await photo(120, 90))).body.sizes).toEqual({});
      const wide = await upload(s, await photo(200, 100));
      expect(Object.keys(wide.body.sizes)).toEqual(['thumbnail']);
      expect([wide.body.sizes.thumbnail.width, wide.body.sizes.thumbnail.height]).toEqual([150, 100]);
      const large = await upload(s, await photo(3000, 2000), 'big.jpg');
      expect([large.body.width, large.body.height]).toEqual([2560, 1707]);
      expect(large.body.url).toBe(`${s.origin}/uploads/${large.body.id}/big-scaled.jpg`);
      expect(large.body.sizes.large).toMatchObject({ width: 1024, height: 683 });
    });

    it('keeps the frames of an animated GIF in its sizes', async () => {
      const r = await upload(s, await animatedGif(400, 300, 3), 'spinner.gif');
      expect(r.status).toBe(201);
      expect(r.body.mime_type).toBe('image/gif');
      const thumbnail = await served(r.body.sizes.thumbnail.url as string);
      const meta = await sharp(thumbnail.bytes, { animated: true }).metadata();
      expect(meta.pages).toBe(3);
      expect([meta.width, meta.pageHeight]).toEqual([150, 150]);
    });

    it('refuses every hostile file with a clear 4xx and stores nothing of it', async () => {
      const jpeg = await photo(400, 300);
      const cases: [string, Buffer, number, string][] = [
        ['svg', SVG, 415, 'rest_upload_invalid_type'],
        ['html', HTML, 415, 'rest_upload_invalid_type'],
        ['polyglot', await polyglot(), 415, 'rest_upload_invalid_type'],
        ['text', Buffer.from('just some text, not an image'), 415, 'rest_upload_invalid_type'],
        ['truncated', jpeg.subarray(0, Math.floor(jpeg.length * 0.6)), 400, 'rest_upload_invalid_image'],
        [
          'corrupt',
          Buffer.concat([jpeg.subarray(0, 600), Buffer.alloc(4000, 0x55), jpeg.subarray(4600)]),
          400,
          'rest_upload_invalid_image',
        ],
        ['bomb', await pixelBomb(), 413, 'rest_upload_too_many_pixels'],
        ['empty', Buffer.alloc(0), 400, 'rest_upload_no_data'],
      ];
      const before = [await mediaRows(s), await fileRows(s)];
      for (const [name, bytes, status, code] of cases) {
        const r = await upload(s, bytes, `${name}.jpg`);
        expect([name, r.status, r.body.code]).toEqual([name, status, code]);
      }
      const none = await s.post('/media', { title: 'no file' });
      expect([none.status, none.body.code]).toEqual([400, 'rest_upload_no_data']);
      const wrongField = await s.request('POST', '/media', { raw: await uploadForm(jpeg, 'a.jpg', {}, 'image') });
      expect(wrongField.body.code).toBe('rest_upload_no_data');
      expect([await mediaRows(s), await fileRows(s)]).toEqual(before);
    });

    it('refuses shapes and animations that cost far more to decode than their pixels say, from the header', async () => {
      const tall = await sharp({ create: { width: 2, height: 40_000, channels: 3, background: '#fff' } })
        .png()
        .toBuffer();
      const frames = await animatedGif(1, 1, 600);
      for (const [name, bytes] of [
        ['tall.png', tall],
        ['frames.gif', frames],
      ] as const) {
        const r = await upload(s, bytes, name);
        expect([name, r.status, r.body.code]).toEqual([name, 413, 'rest_upload_too_many_pixels']);
      }
    });

    it('takes file names with control characters and of any length, and search words with LIKE wildcards', async () => {
      const raw = await s.request('POST', '/media/', {
        raw: { contentType: 'image/png', data: await photo(30, 20, { format: 'png' }) },
        headers: { 'content-disposition': "attachment; filename*=UTF-8''a%00b%07c.png" },
      });
      expect([raw.status, raw.body.title, raw.body.slug]).toEqual([201, 'abc', 'abc']);
      const long = await upload(s, await photo(30, 20), `${'x'.repeat(5000)}.jpg`);
      expect([long.status, long.body.title.length]).toEqual([201, 1000]);
      expect((await s.request('PUT', `/media/${long.body.id}`, { body: { title: long.body.title } })).status).toBe(200);
      expect((await s.get('/media?search=_&per_page=50')).body.media).toEqual([]);
      expect((await s.get('/media?search=%25&per_page=50')).body.media).toEqual([]);
      for (const bad of [`/uploads/${raw.body.id}/a%00.png`, `/uploads/${raw.body.id}/a%ZZ`]) {
        expect((await served(`${s.origin}${bad}`)).status, bad).toBe(404);
      }
    });

    it('reads no upload body before the caller may upload, and no form with more parts than it takes', async () => {
      // Over MEDIA_MAX_MB: had it been read, the answer would be 413.
      const big = { contentType: 'image/jpeg', data: Buffer.alloc(3 * 1024 * 1024, 7) };
      expect((await s.request('POST', '/media', { raw: big, as: 'contributor' })).status).toBe(403);
      expect((await s.request('POST', '/media', { raw: big, as: null })).status).toBe(401);
      const fields = Object.fromEntries(Array.from({ length: 25 }, (_, i) => [`f${i}`, 'x']));
      const crowded = await s.request('POST', '/media', {
        raw: await uploadForm(await photo(20, 20), 'a.jpg', fields),
      });
      expect([crowded.status, crowded.body.code]).toEqual([413, 'rest_payload_too_large']);
    });

    it('answers 400 to a form cut short, in the file or in a part it skips, and goes on serving', async () => {
      const cut = (part: string, bytes: string) => ({
        contentType: 'multipart/form-data; boundary=AAA',
        data: Buffer.from(`--AAA\r\nContent-Disposition: form-data; name="${part}"; filename="a.jpg"\r\n\r\n${bytes}`),
      });
      for (const raw of [cut('file', 'abc'), cut('other', 'abc'), cut('file', 'x'.repeat(100_000))]) {
        const r = await s.request('POST', '/media', { raw });
        expect([r.status, r.body.code]).toEqual([400, 'rest_invalid_body']);
      }
      expect((await s.get('/media')).status).toBe(200);
    });

    it('makes a whole title and slug of a file name of characters outside the BMP', async () => {
      const name = `a${'𠀀'.repeat(1200)}.png`;
      const r = await s.request('POST', '/media', {
        raw: { contentType: 'image/png', data: await photo(20, 20, { format: 'png' }) },
        headers: { 'content-disposition': `attachment; filename*=UTF-8''${encodeURIComponent(name)}` },
      });
      expect(r.status, r.text.slice(0, 200)).toBe(201);
      expect(r.body.slug.isWellFormed()).toBe(true);
      expect(r.body.title.isWellFormed()).toBe(true);
      // Served under its URL, percent-encoded.
      expect((await fetch(r.body.url)).status).toBe(200);
    });

    it('lets authors and above upload; contributors and anonymous callers may not', async () => {
      const jpeg = await photo(100, 100);
      expect((await upload(s, jpeg, 'a.jpg', 'contributor')).status).toBe(403);
      expect((await upload(s, jpeg, 'a.jpg', 'subscriber')).status).toBe(403);
      expect((await upload(s, jpeg, 'a.jpg', null)).status).toBe(401);
      expect((await upload(s, jpeg, 'a.jpg', 'editor')).status).toBe(201);
    });

    it('changes the texts of an image for its author and editors only, with If-Match', async () => {
      const mine = (await upload(s, await photo(100, 100), 'mine.jpg', 'author')).body;
      const other = (await upload(s, await photo(100, 100), 'other.jpg', 'editor')).body;
      const patched = await s.request('PATCH', `/media/${mine.id}`, {
        body: { alt_text: 'Stage', caption: 'Night' },
        as: 'author',
      });
      expect(patched.body).toMatchObject({ alt_text: 'Stage', caption: 'Night', url: mine.url, sizes: mine.sizes });
      expect((await s.request('PATCH', `/media/${other.id}`, { body: { title: 'x' }, as: 'author' })).status).toBe(403);
      expect((await s.request('PATCH', `/media/${mine.id}`, { body: { title: 'x' }, as: 'contributor' })).status).toBe(
        403,
      );
      expect(
        (await s.request('PATCH', `/media/${mine.id}`, { body: { title: 'By editor' }, as: 'editor' })).status,
      ).toBe(200);
      const stale = await s.request('PATCH', `/media/${mine.id}`, {
        body: { title: 'late' },
        headers: { 'if-match': patched.headers.get('etag') ?? '' },
      });
      expect(stale.status).toBe(412);
      expect((await s.get('/media/999999999')).status).toBe(404);
    });

    it('shows an uploaded image on events, venues and organizers as part 1.6 says, in JSON-LD and in iCalendar', async () => {
      const media = (await upload(s, await photo(1200, 800), 'poster.jpg')).body;
      const venue = (await s.post('/venues', { venue: `Hall ${kind}`, image: media.id })).body;
      const organizer = (await s.post('/organizers', { organizer: `Org ${kind}`, image: String(media.id) })).body;
      const event = await s.post('/events', {
        title: 'With a poster',
        start_date: '2031-05-01 20:00:00',
        end_date: '2031-05-01 22:00:00',
        image: media.id,
        venue: venue.id,
        organizer: [organizer.id],
      });
      expect(event.status).toBe(201);
      const image = {
        url: media.url,
        id: media.id,
        extension: 'jpg',
        width: 1200,
        height: 800,
        filesize: media.filesize,
        sizes: media.sizes,
      };
      expect(event.body.image).toEqual(image);
      expect(Object.keys(event.body.image)).toEqual(['url', 'id', 'extension', 'width', 'height', 'filesize', 'sizes']);
      expect(Object.keys(event.body.image.sizes.medium)).toEqual(['width', 'height', 'mime-type', 'filesize', 'url']);
      expect(venue.image).toEqual(image);
      expect(organizer.image).toEqual(image);
      const read = (await s.get(`/events/${event.body.id}`, { as: null })).body;
      expect(read.image).toEqual(image);
      expect(read.venue.image).toEqual(image);
      expect(read.json_ld.image).toBe(media.url);
      expect(read.json_ld.location.image).toBe(media.url);
      const ics = await fetch(`${s.base}/events/${event.body.id}.ics`);
      expect((await ics.text()).replace(/\r\n /g, '')).toContain(
        `IMAGE;VALUE=URI;DISPLAY=BADGE;FMTTYPE=image/jpeg:${media.url}\r\n`,
      );
      // A URL stays allowed, shown as before; an ID that names no image is a 400.
      const byUrl = await s.request('PATCH', `/events/${event.body.id}`, {
        body: { image: 'https://example.org/a.png' },
      });
      expect(byUrl.body.image).toEqual({ url: 'https://example.org/a.png', extension: 'png' });
      // A contributor's create runs in a transaction with its quota's charge: the image is checked in it.
      const drafted = await s.post(
        '/events',
        {
          title: 'A draft with a poster',
          start_date: '2031-05-02 20:00:00',
          end_date: '2031-05-02 22:00:00',
          image: media.id,
        },
        { as: 'contributor' },
      );
      expect([drafted.status, drafted.body.image?.id]).toEqual([201, media.id]);
      const missing = await s.request('PATCH', `/events/${event.body.id}`, { body: { image: 999999999 } });
      expect([missing.status, missing.body.data.params.image]).toEqual([
        400,
        'There is no uploaded image with ID 999999999.',
      ]);
    });

    it('tells no one below editor what an unreadable item does with an image', async () => {
      const mine = (await upload(s, await photo(60, 40), 'mine-used.jpg', 'author')).body;
      const draft = await s.post('/events', {
        title: 'A draft that uses it',
        status: 'draft',
        start_date: '2031-07-01 20:00:00',
        end_date: '2031-07-01 21:00:00',
        image: mine.id,
      });
      // Which images nothing shows would tell that a draft shows this one.
      expect((await s.get('/media?unreferenced=1', { as: null })).status).toBe(401);
      expect((await s.get('/media?unreferenced=1', { as: 'author' })).status).toBe(403);
      expect((await s.get('/media?unreferenced=0', { as: 'author' })).status).toBe(200);
      // The refusal to delete it names what the author may read: not the editor's draft.
      const refused = await s.request('DELETE', `/media/${mine.id}`, { as: 'author' });
      expect([refused.status, refused.body.code, refused.body.data.used_by]).toEqual([409, 'rest_media_in_use', []]);
      const told = await s.request('DELETE', `/media/${mine.id}`);
      expect(told.body.data.used_by).toEqual([{ type: 'event', id: draft.body.id }]);
    });

    it('refuses to delete an image in use (trashed items too), and deletes one no longer used with its files', async () => {
      const media = (await upload(s, await photo(400, 300), 'used.jpg')).body;
      const event = (
        await s.post('/events', {
          title: 'Uses it',
          start_date: '2031-06-01 20:00:00',
          end_date: '2031-06-01 21:00:00',
          image: media.id,
        })
      ).body;
      await s.request('DELETE', `/events/${event.id}`);
      const refused = await s.request('DELETE', `/media/${media.id}?force=true`);
      expect([refused.status, refused.body.code, refused.body.data.used_by]).toEqual([
        409,
        'rest_media_in_use',
        [{ type: 'event', id: event.id }],
      ]);
      expect((await served(media.url as string)).status).toBe(200);
      expect(
        (await s.get(`/media?unreferenced=1&per_page=50`)).body.media.map((m: { id: number }) => m.id),
      ).not.toContain(media.id);
      await s.request('DELETE', `/events/${event.id}?force=true`);
      const unreferenced = (await s.get(`/media?unreferenced=1&per_page=50`)).body;
      expect(unreferenced.media.map((m: { id: number }) => m.id)).toContain(media.id);
      // Housekeeping finds the same uploads, and says so in its gauge.
      await countMediaLibrary(s.db.prisma);
      expect((await unreferencedImages.get()).values[0].value).toBe(unreferenced.total);
      expect((await s.request('DELETE', `/media/${media.id}`, { as: 'author' })).status).toBe(403);
      const deleted = await s.request('DELETE', `/media/${media.id}`);
      expect(deleted.status).toBe(200);
      expect(deleted.body).toMatchObject({ deleted: true, previous: { id: media.id } });
      expect((await served(media.url as string)).status).toBe(404);
      expect((await served(media.sizes.thumbnail.url as string)).status).toBe(404);
      expect((await s.get(`/media/${media.id}`)).status).toBe(404);
    });

    it('serves files immutable, with a strong ETag, nosniff, a sandbox, 304 and Range', async () => {
      const media = (await upload(s, await photo(600, 400), 'ranges.jpg')).body;
      const whole = await served(media.url as string);
      expect(whole.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
      expect(whole.headers.get('x-content-type-options')).toBe('nosniff');
      expect(whole.headers.get('content-security-policy')).toContain('sandbox');
      expect(whole.headers.get('content-type')).toBe('image/jpeg');
      const etag = whole.headers.get('etag') ?? '';
      expect(etag).toMatch(/^"[0-9a-f]{64}"$/);
      expect((await served(media.url as string, { 'if-none-match': etag })).status).toBe(304);
      const part = await served(media.url as string, { range: 'bytes=100-199' });
      expect([part.status, part.headers.get('content-range'), part.bytes.length]).toEqual([
        206,
        `bytes 100-199/${whole.bytes.length}`,
        100,
      ]);
      expect(part.bytes.equals(whole.bytes.subarray(100, 200))).toBe(true);
      const tail = await served(media.url as string, { range: 'bytes=-10' });
      expect(tail.bytes.equals(whole.bytes.subarray(-10))).toBe(true);
      const unsatisfiable = await served(media.url as string, { range: `bytes=${whole.bytes.length + 5}-` });
      expect([unsatisfiable.status, unsatisfiable.headers.get('cache-control')]).toEqual([416, null]);
      // Other sites show the images too (a WordPress front end).
      expect(whole.headers.get('cross-origin-resource-policy')).toBe('cross-origin');
      // If-Range naming another version: the whole file.
      expect((await served(media.url as string, { range: 'bytes=0-9', 'if-range': '"other"' })).status).toBe(200);
      const head = await fetch(media.url as string, { method: 'HEAD' });
      expect([head.status, head.headers.get('content-length')]).toEqual([200, String(whole.bytes.length)]);
      for (const bad of ['/uploads/abc/x.jpg', `/uploads/${media.id}/nothing.jpg`, '/uploads/99999999999/x.jpg']) {
        expect((await served(`${s.origin}${bad}`)).status).toBe(404);
      }
    });

    it('lists the library newest first with the usual envelope, headers and filters', async () => {
      const a = (await upload(s, await photo(60, 60), 'zebra-crossing.jpg', 'author')).body;
      const b = (await upload(s, await photo(60, 60), 'aardvark.jpg', 'editor')).body;
      const list = await s.get('/media?per_page=2', { as: null });
      expect(list.body.media.map((m: { id: number }) => m.id)).toEqual([b.id, a.id]);
      expect(Object.keys(list.body)).toEqual(['media', 'rest_url', 'next_rest_url', 'total', 'total_pages']);
      expect(list.headers.get('x-wp-total')).toBe(String(list.body.total));
      expect((await s.get('/media?search=zebra')).body.media.map((m: { id: number }) => m.id)).toEqual([a.id]);
      expect(
        (await s.get(`/media?author=${s.users.editor.id}&per_page=50`)).body.media.map((m: { id: number }) => m.id),
      ).toContain(b.id);
    });

    it('carries media in the change feed: created, updated, deleted', async () => {
      const start = (await s.get('/changes?per_page=1')).body;
      const media = (await upload(s, await photo(60, 60), 'feed.jpg')).body;
      await s.request('PATCH', `/media/${media.id}`, { body: { caption: 'c' } });
      await s.request('DELETE', `/media/${media.id}`);
      await settled(s);
      const cursor = start.next_cursor ?? start.cursor;
      const changes = (await s.get(`/changes?since=${encodeURIComponent(cursor as string)}&per_page=100`)).body
        .changes as {
        type: string;
        id: number;
        action: string;
        object: { url?: string } | null;
      }[];
      const mine = changes.filter((c) => c.type === 'media' && c.id === media.id);
      expect(mine.map((c) => c.action)).toEqual(['created', 'updated', 'deleted']);
    });

    if (kind === 'postgresql') {
      it('serves every file from any instance on the same database (a cluster needs nothing more)', async () => {
        const app = createApp({ config: { ...loadConfig({}), port: 0 }, db: s.db });
        const server = app.listen(0, '127.0.0.1');
        await new Promise((resolve) => server.once('listening', resolve));
        try {
          const other = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
          const media = (await upload(s, await photo(500, 500), 'cluster.jpg')).body;
          for (const url of [media.url, media.sizes.thumbnail.url] as string[]) {
            const here = await served(url);
            const there = await served(url.replace(s.origin, other));
            expect(there.status).toBe(200);
            expect(there.bytes.equals(here.bytes)).toBe(true);
          }
          const read = await fetch(`${other}/wp-json/calendar/events/v1/media/${media.id}`);
          expect(((await read.json()) as { id: number }).id).toBe(media.id);
        } finally {
          await new Promise((resolve) => server.close(resolve));
          await app.close();
        }
      });

      it('keeps a delete and writes that name the image from crossing: never an item showing a deleted image', async () => {
        for (let round = 0; round < 6; round++) {
          const media = (await upload(s, await photo(60, 60), `race-${round}.jpg`)).body;
          const [write, remove] = await Promise.all([
            s.post('/venues', { venue: `Race ${round}`, image: media.id }),
            s.request('DELETE', `/media/${media.id}`),
          ]);
          const venueShowsIt = write.status === 201 && write.body.image?.id === media.id;
          const deleted = remove.status === 200;
          // Exactly one of them won; the other was refused with a clear 4xx.
          expect(venueShowsIt !== deleted, `round ${round}: ${write.status} ${remove.status}`).toBe(true);
          expect([write.status, remove.status].every((status) => status < 500)).toBe(true);
          const orphans = await s.db.prisma.$queryRaw<{ n: number }[]>`
            SELECT count(*)::int AS n FROM venues v WHERE v.image_id IS NOT NULL AND NOT EXISTS (SELECT 1 FROM media m WHERE m.id = v.image_id)`;
          expect(orphans[0].n).toBe(0);
        }
      });
    }
  },
  // Pixels: the tests' pixel bomb (16 million) over it, their largest photo (6 million) under it.
  { env: { MEDIA_MAX_MB: '2', MEDIA_MAX_PIXELS: '8000000' } },
);

describeEachDatabase(
  'media library limits',
  (s) => {
    it('answers 413 past MEDIA_MAX_MB, in either body form, and stores nothing', async () => {
      const big = Buffer.alloc(1024 * 1024 + 10, 1);
      const form = await s.request('POST', '/media', { raw: await uploadForm(big, 'big.jpg') });
      expect([form.status, form.body.code]).toEqual([413, 'rest_upload_file_too_big']);
      const raw = await s.request('POST', '/media', { raw: { contentType: 'image/jpeg', data: big } });
      expect([raw.status, raw.body.code]).toEqual([413, 'rest_upload_file_too_big']);
      expect(await s.db.prisma.media.count()).toBe(0);
    });
  },
  { env: { MEDIA_MAX_MB: '1' } },
);

describeEachDatabase(
  'media uploads and the write limits',
  (s) => {
    it('counts each upload as a write', async () => {
      const image = await photo(40, 30);
      const statuses: number[] = [];
      for (let i = 0; i < 3; i++) statuses.push((await upload(s, image, `limited-${i}.jpg`)).status);
      expect(statuses).toEqual([201, 201, 429]);
      expect(await s.db.prisma.media.count()).toBe(2);
    });
  },
  { env: { RATE_LIMIT_WRITES: '2' } },
);
