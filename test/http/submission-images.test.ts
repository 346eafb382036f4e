// An image sent with a public submission (docs/decisions.md, "Public submissions"), on both
// databases: it waits with its event, shown to editors alone at every door (the media routes, the
// files, the feed, items that would name it), is published with the event, deleted on rejection or
// with spam, and a form that is not what the document says is refused before anything is stored.
import { describe, expect, it } from 'vitest';
import { purgeExpired } from '../../src/db/housekeeping.js';
import { describeEachDatabase } from '../setup/each-database.js';
import { settled } from '../setup/feed.js';
import { photo } from '../setup/images.js';
import type { TestServer } from '../setup/server.js';
import { submission, submitWithImage } from '../setup/submissions.js';

const ENV = {
  SUBMISSIONS: 'anyone',
  SUBMISSION_POW_COST: '50',
  TRUST_PROXY: 'loopback',
  SUBMISSIONS_PER_ADDRESS: '50',
  SUBMISSION_IMAGE_MAX_MB: '1',
  SUBMISSION_BLOCKED_WORDS: 'casino',
};

/** A file of the media library, fetched as `as` would (Bearer), or by anyone. */
async function file(s: TestServer, url: string, as?: 'editor' | 'author') {
  const headers: Record<string, string> = as ? { authorization: `Bearer ${s.users[as].appPassword}` } : {};
  const r = await fetch(url, { headers });
  await r.arrayBuffer();
  return { status: r.status, cacheControl: r.headers.get('cache-control') };
}

/** Sends a submission with a photo and answers it as editors read it in the queue. */
async function submitted(s: TestServer, fields: Record<string, unknown> = {}) {
  const r = await submitWithImage(s, await photo(640, 480), { image_alt_text: 'An upright piano', ...fields });
  expect(r.status, JSON.stringify(r.body)).toBe(202);
  const read = await s.get(`/submissions/${r.body.id}`, { as: 'editor' });
  expect(read.status).toBe(200);
  return read.body as { id: number; new: { image: number }; event: { id: number; image: { id: number; url: string } } };
}

const mediaRows = (s: TestServer) => s.db.prisma.media.count();

describeEachDatabase(
  'An image with a public submission',
  (s) => {
    it('waits with its event, shown to editors alone at every door', async () => {
      const sub = await submitted(s);
      const id = sub.new.image;
      expect(id).toEqual(expect.any(Number));
      expect(sub.event.image).toMatchObject({ id, url: expect.stringContaining(`/uploads/${id}/`) });
      const media = await s.get(`/media/${id}`, { as: 'editor' });
      expect(media.body).toMatchObject({ id, alt_text: 'An upright piano', author: '0' });
      for (const as of [null, 'subscriber', 'author'] as const) {
        expect((await s.get(`/media/${id}`, { as })).status).toBe(404);
        expect((await s.request('PATCH', `/media/${id}`, { body: { title: 'x' }, as })).status).toBeGreaterThanOrEqual(
          401,
        );
      }
      const list = await s.get('/media?per_page=100', { as: 'editor' });
      expect(list.body.media.map((m: { id: number }) => m.id)).not.toContain(id);
      expect(await file(s, sub.event.image.url)).toMatchObject({ status: 404 });
      expect(await file(s, sub.event.image.url, 'author')).toMatchObject({ status: 404 });
      expect(await file(s, sub.event.image.url, 'editor')).toEqual({ status: 200, cacheControl: 'private, no-store' });
      // The feed names it `submitted` to editors, and not at all to anyone else.
      await settled(s);
      const feed = await s.get('/changes?per_page=100', { as: 'editor' });
      expect(feed.body.changes).toContainEqual(expect.objectContaining({ type: 'media', id, action: 'submitted' }));
      const publicFeed = await s.get('/changes?per_page=100', { as: null });
      expect(
        publicFeed.body.changes.filter((c: { type: string; id: number }) => c.type === 'media' && c.id === id),
      ).toEqual([]);
      // Nobody but editors can show it in an item, which would publish it.
      const named = await s.post(
        '/events',
        { title: 'Borrowed poster', start_date: '2043-01-01 10:00', end_date: '2043-01-01 11:00', image: id },
        { as: 'author' },
      );
      expect(named.status).toBe(400);
      expect(JSON.stringify(named.body)).toContain('There is no uploaded image');
    });

    it('is published with its event, and its file is kept by anyone from then on', async () => {
      const sub = await submitted(s);
      const id = sub.new.image;
      expect((await s.post(`/submissions/${sub.id}/approve`, {}, { as: 'editor' })).status).toBe(200);
      expect((await s.get(`/media/${id}`, { as: null })).status).toBe(200);
      expect((await s.get('/media?per_page=100', { as: null })).body.media.map((m: { id: number }) => m.id)).toContain(
        id,
      );
      expect(await file(s, sub.event.image.url)).toEqual({
        status: 200,
        cacheControl: 'public, max-age=31536000, immutable',
      });
      expect((await s.get(`/events/${sub.event.id}`, { as: null })).body.image).toMatchObject({ id });
      // For everyone else the image is created when it is shown.
      await settled(s);
      const publicFeed = await s.get('/changes?per_page=100', { as: null });
      expect(publicFeed.body.changes).toContainEqual(expect.objectContaining({ type: 'media', id, action: 'created' }));
    });

    it('is published by an editor who publishes the event without the queue', async () => {
      const sub = await submitted(s);
      const r = await s.request('PATCH', `/events/${sub.event.id}`, { body: { status: 'publish' }, as: 'editor' });
      expect(r.status).toBe(200);
      expect((await file(s, sub.event.image.url)).status).toBe(200);
    });

    it('is deleted on rejection', async () => {
      const sub = await submitted(s);
      const id = sub.new.image;
      const rejected = await s.post(`/submissions/${sub.id}/reject`, { reason: 'Not here' }, { as: 'editor' });
      expect(rejected.status).toBe(200);
      expect(rejected.body.event.image).toBe(false);
      expect((await s.get(`/media/${id}`, { as: 'editor' })).status).toBe(404);
      expect((await file(s, sub.event.image.url, 'editor')).status).toBe(404);
    });

    it('is deleted with a submission kept as spam once its days are over', async () => {
      const sub = await submitWithImage(s, await photo(64, 48), { description: 'Win at the casino' });
      expect(sub.status).toBe(202);
      const row = await s.db.prisma.submission.findUniqueOrThrow({ where: { id: sub.body.id } });
      expect(row.state).toBe('spam');
      expect(row.newImageId).toEqual(expect.any(Number));
      const longAgo = new Date(Date.now() - 40 * 86_400_000);
      await s.db.prisma.submission.update({ where: { id: row.id }, data: { submittedAt: longAgo } });
      await s.db.prisma.media.update({ where: { id: row.newImageId ?? 0 }, data: { modifiedAt: longAgo } });
      await purgeExpired(s.db, {
        authWindowSeconds: 900,
        idempotencyHours: 24,
        changesRetentionDays: 30,
        spamDays: 30,
      });
      expect(await s.db.prisma.submission.count({ where: { id: row.id } })).toBe(0);
      expect(await s.db.prisma.event.count({ where: { id: row.eventId } })).toBe(0);
      expect(await s.db.prisma.media.count({ where: { id: row.newImageId ?? 0 } })).toBe(0);
    });

    it('takes the JSON as a file part too, as some clients send it', async () => {
      const r = await submitWithImage(s, await photo(64, 48), {}, { jsonAsFile: true });
      expect(r.status, JSON.stringify(r.body)).toBe(202);
      const read = await s.get(`/submissions/${r.body.id}`, { as: 'editor' });
      expect(read.body.new.image).toEqual(expect.any(Number));
    });

    it('refuses what is not an image, too large, or not the form the document says, storing nothing', async () => {
      const before = { media: await mediaRows(s), submissions: await s.db.prisma.submission.count() };
      const notImage = await submitWithImage(s, Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"/>'));
      expect(notImage.status).toBe(415);
      const tooLarge = await submitWithImage(s, Buffer.alloc(1024 * 1024 + 1, 7));
      expect(tooLarge.status).toBe(413);
      expect(tooLarge.body.code).toBe('rest_upload_file_too_big');
      const empty = await submitWithImage(s, Buffer.alloc(0));
      expect(empty.status).toBe(400);
      const noSubmission = new FormData();
      noSubmission.append('image', new Blob([new Uint8Array(await photo(10, 10))]), 'a.jpg');
      expect((await submitWithImage(s, undefined, {}, { parts: noSubmission })).status).toBe(400);
      const notJson = new FormData();
      notJson.append('submission', '{"title": ');
      const refused = await submitWithImage(s, undefined, {}, { parts: notJson });
      expect(refused.status).toBe(400);
      expect(refused.body.code).toBe('rest_invalid_json');
      const wrongFields = new FormData();
      wrongFields.append('submission', JSON.stringify({ title: 'x', status: 'publish' }));
      expect((await submitWithImage(s, undefined, {}, { parts: wrongFields })).status).toBe(400);
      const twoImages = new FormData();
      const bytes = new Uint8Array(await photo(10, 10));
      twoImages.append('submission', '{}');
      twoImages.append('image', new Blob([bytes]), 'a.jpg');
      twoImages.append('image', new Blob([bytes]), 'b.jpg');
      expect((await submitWithImage(s, undefined, {}, { parts: twoImages })).status).toBe(413);
      expect({ media: await mediaRows(s), submissions: await s.db.prisma.submission.count() }).toEqual(before);
    });
  },
  { env: ENV },
);

describe.each(['off', 'no images'])('An image with a public submission, %s', (what) => {
  describeEachDatabase(
    what,
    (s) => {
      it('is refused before its bytes are read, and stores nothing', async () => {
        // Built here: a closed service gives no challenge to solve.
        const form = new FormData();
        form.append('submission', JSON.stringify(submission()));
        form.append('image', new Blob([new Uint8Array(await photo(64, 48))]), 'poster.jpg');
        const r = await submitWithImage(s, undefined, {}, { parts: form, solve: false });
        expect(r.status).toBe(what === 'off' ? 403 : 413);
        expect(await mediaRows(s)).toBe(0);
      });
    },
    {
      env: what === 'off' ? {} : { ...ENV, SUBMISSION_IMAGE_MAX_MB: '0' },
    },
  );
});
