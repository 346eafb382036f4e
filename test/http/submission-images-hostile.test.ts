// A hostile review of an image sent with a public submission (docs/decisions.md, "Public
// submissions"), on both databases: every door where a media item or its files can be read or named,
// hostile multipart bodies to the API and to the form page, and the writers that meet on a pending
// image (rejection, housekeeping, an editor naming it) on PostgreSQL.
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { purgeExpired } from '../../src/db/housekeeping.js';
import { describeEachDatabase, itOnPostgres } from '../setup/each-database.js';
import { photo } from '../setup/images.js';
import type { TestServer } from '../setup/server.js';
import { solvedChallenge, submission, submitWithImage } from '../setup/submissions.js';

const ENV = {
  SUBMISSIONS: 'anyone',
  SUBMISSION_POW_COST: '20',
  TRUST_PROXY: 'loopback',
  SUBMISSIONS_PER_ADDRESS: '200',
  SUBMISSION_IMAGE_MAX_MB: '1',
  SUBMISSION_BLOCKED_WORDS: 'casino',
};

const RETENTION = { authWindowSeconds: 900, idempotencyHours: 24, changesRetentionDays: 30, spamDays: 30 };

let addresses = 0;
/** An address (RFC 5737) of its own for each request, so that no day's limit per address is reached. */
const nextAddress = () => {
  addresses += 1;
  return `203.0.${113 + Math.floor(addresses / 250)}.${(addresses % 250) + 1}`;
};

interface Submitted {
  id: number;
  image: number;
  eventId: number;
  url: string;
  /** Every file of the image (its sizes too), as URLs. */
  files: string[];
}

/** A submission with a photo, as editors read it in the queue. */
async function submitted(s: TestServer, fields: Record<string, unknown> = {}): Promise<Submitted> {
  const r = await submitWithImage(s, await photo(400, 300), { image_alt_text: 'A poster', ...fields });
  expect(r.status, JSON.stringify(r.body)).toBe(202);
  const read = await s.get(`/submissions/${r.body.id}`, { as: 'editor' });
  const media = await s.get(`/media/${read.body.new.image}`, { as: 'editor' });
  const sizes = Object.values(media.body.sizes as Record<string, { url: string }>);
  return {
    id: r.body.id,
    image: read.body.new.image,
    eventId: read.body.event.id,
    url: read.body.event.image.url,
    files: [media.body.url, ...sizes.map((size) => size.url)],
  };
}

/** A request as it is sent, its answer as it comes (no check against the document). */
async function raw(
  s: TestServer,
  method: string,
  url: string,
  init: { headers?: Record<string, string>; body?: string | Buffer; as?: 'editor' | 'author' | 'subscriber' } = {},
) {
  const headers: Record<string, string> = {
    ...(init.as ? { authorization: `Bearer ${s.users[init.as].appPassword}` } : {}),
    ...init.headers,
  };
  const r = await fetch(url.startsWith('http') ? url : `${s.base}${url}`, {
    method,
    headers,
    body: init.body,
  });
  const text = await r.text();
  let body: any;
  try {
    body = JSON.parse(text);
  } catch {
    body = undefined;
  }
  return { status: r.status, headers: r.headers, text, body };
}

/** A multipart body written by hand, for forms no FormData would send. */
function multipart(parts: { name: string; fileName?: string; type?: string; body: string | Buffer }[], end = true) {
  const boundary = 'review-boundary-7f3a';
  const chunks: Buffer[] = [];
  for (const part of parts) {
    const disposition = `form-data; name="${part.name}"${part.fileName !== undefined ? `; filename="${part.fileName}"` : ''}`;
    chunks.push(
      Buffer.from(
        `--${boundary}\r\nContent-Disposition: ${disposition}\r\n${part.type ? `Content-Type: ${part.type}\r\n` : ''}\r\n`,
      ),
      Buffer.isBuffer(part.body) ? part.body : Buffer.from(part.body),
      Buffer.from('\r\n'),
    );
  }
  if (end) chunks.push(Buffer.from(`--${boundary}--\r\n`));
  return { contentType: `multipart/form-data; boundary=${boundary}`, body: Buffer.concat(chunks) };
}

/** A submission's JSON with a solved challenge, as the `submission` part carries it. */
async function solvedJson(s: TestServer, address: string, fields: Record<string, unknown> = {}) {
  return JSON.stringify({ ...submission(fields), altcha: await solvedChallenge(s, { 'X-Forwarded-For': address }) });
}

/** Sends a hand-written multipart body to POST /submissions. */
async function postForm(s: TestServer, form: { contentType: string; body: Buffer }, address = nextAddress()) {
  return raw(s, 'POST', '/submissions', {
    headers: { 'content-type': form.contentType, 'x-forwarded-for': address },
    body: form.body,
  });
}

const counts = async (s: TestServer) => ({
  media: await s.db.prisma.media.count(),
  submissions: await s.db.prisma.submission.count(),
  events: await s.db.prisma.event.count(),
});

/** Every change of the public feed, the whole feed read. */
async function publicFeed(s: TestServer) {
  const found: { type: string; id: number; action: string }[] = [];
  let since = '';
  for (;;) {
    const feed = await s.get(`/changes?per_page=500${since ? `&since=${since}` : ''}`, { as: null });
    expect(feed.status).toBe(200);
    found.push(...(feed.body.changes as typeof found));
    if (!feed.body.more) return found;
    since = feed.body.next_cursor as string;
  }
}

/**
 * The public feed's changes of this image, once the feed has given every change written so far: a
 * tag created now is waited for (on PostgreSQL the feed holds back what other sessions' open
 * transactions may still precede).
 */
async function publicFeedOf(s: TestServer, id: number) {
  const marker = await s.post('/tags', { name: `Feed marker ${id}-${Date.now()}` });
  expect(marker.status).toBe(201);
  for (let i = 0; i < 100; i++) {
    const feed = await publicFeed(s);
    if (feed.some((c) => c.type === 'tag' && c.id === marker.body.id)) {
      return feed.filter((c) => c.type === 'media' && c.id === id);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error('the public feed did not reach a change made 10 seconds ago');
}

describeEachDatabase(
  'An image with a public submission, reviewed',
  (s, kind) => {
    // ---- Defects: each of these fails on the commit under review. ----

    it('refuses a submission part nested deeper than a JSON body may be with a 400, as a JSON body is', async () => {
      const deep = `{"title":${'['.repeat(200_000)}${']'.repeat(200_000)}}`;
      const asBody = await raw(s, 'POST', '/submissions', {
        headers: { 'content-type': 'application/json', 'x-forwarded-for': nextAddress() },
        body: deep,
      });
      expect(asBody.status).toBe(400);
      const before = await counts(s);
      const r = await postForm(s, multipart([{ name: 'submission', body: deep }]));
      expect(r.status, r.text.slice(0, 200)).toBe(400);
      expect(await counts(s)).toEqual(before);
    });

    it('suspects of spam an image whose alt text says a blocked word', async () => {
      const r = await submitWithImage(s, await photo(64, 48), { image_alt_text: 'Win big at the casino tonight' });
      expect(r.status).toBe(202);
      const row = await s.db.prisma.submission.findUniqueOrThrow({ where: { id: r.body.id } });
      expect(row.state).toBe('spam');
    });

    it('suspects of spam an image whose file name says a blocked word (it becomes the public title)', async () => {
      const address = nextAddress();
      const r = await postForm(
        s,
        multipart([
          { name: 'submission', body: await solvedJson(s, address) },
          { name: 'image', fileName: 'best-casino-bonus.jpg', type: 'image/jpeg', body: await photo(64, 48) },
        ]),
        address,
      );
      expect(r.status, r.text).toBe(202);
      const row = await s.db.prisma.submission.findUniqueOrThrow({ where: { id: r.body.id } });
      const media = await s.db.prisma.media.findUniqueOrThrow({ where: { id: row.newImageId ?? 0 } });
      expect(media.title).toContain('casino');
      expect(row.state).toBe('spam');
    });

    it('keeps the image from anonymous readers while its event is private, not published', async () => {
      const sub = await submitted(s);
      const r = await s.request('PATCH', `/events/${sub.eventId}`, { body: { status: 'private' }, as: 'editor' });
      expect(r.status).toBe(200);
      expect((await s.get(`/events/${sub.eventId}`, { as: null })).status).not.toBe(200);
      expect((await raw(s, 'GET', sub.url)).status).toBe(404);
      expect((await s.get(`/media/${sub.image}`, { as: null })).status).toBe(404);
    });

    it('leaves no trace in the public feed of an image deleted with its rejected submission', async () => {
      const sub = await submitted(s);
      expect(await publicFeedOf(s, sub.image)).toEqual([]);
      expect((await s.post(`/submissions/${sub.id}/reject`, { reason: 'No' }, { as: 'editor' })).status).toBe(200);
      expect(await s.db.prisma.media.count({ where: { id: sub.image } })).toBe(0);
      expect(await publicFeedOf(s, sub.image)).toEqual([]);
    });

    it('leaves no trace in the public feed of a spam image purged by housekeeping', async () => {
      const r = await submitWithImage(s, await photo(64, 48), { description: 'Play at the casino' });
      expect(r.status).toBe(202);
      const row = await s.db.prisma.submission.findUniqueOrThrow({ where: { id: r.body.id } });
      const longAgo = new Date(Date.now() - 40 * 86_400_000);
      await s.db.prisma.submission.update({ where: { id: row.id }, data: { submittedAt: longAgo } });
      await s.db.prisma.media.update({ where: { id: row.newImageId ?? 0 }, data: { modifiedAt: longAgo } });
      await purgeExpired(s.db, RETENTION);
      expect(await s.db.prisma.media.count({ where: { id: row.newImageId ?? 0 } })).toBe(0);
      expect(await publicFeedOf(s, row.newImageId ?? 0)).toEqual([]);
    });

    it('refuses a submission part sent as a file past 1 MB with 413, as it refuses one sent as a field', async () => {
      // The image's limit (SUBMISSION_IMAGE_MAX_MB, here 1 MB) cuts the JSON's file part first:
      // what is left is read as the whole submission.
      const json = ' '.repeat(1024 * 1024) + '{}';
      const asField = await postForm(s, multipart([{ name: 'submission', body: json }]));
      expect(asField.status).toBe(413);
      const asFile = await postForm(s, multipart([{ name: 'submission', fileName: 's.json', body: json }]));
      expect(asFile.status, asFile.text).toBe(413);
    });

    it('answers a form page body past what a JSON body may hold, however its fields are split, with 413', async () => {
      // Each field under MAX_BODY_BYTES (http/body.ts), all together four times it: a plain form of
      // this size is refused with 413, a multipart one must be too (up to 200 such fields are read).
      const field = 'x'.repeat(900 * 1024);
      const form = multipart(
        ['title', 'description', 'cost', 'website', 'venue_name'].map((name) => ({ name, body: field })),
      );
      const r = await raw(s, 'POST', `${s.origin}/submit/`, {
        headers: { 'content-type': form.contentType, 'x-forwarded-for': nextAddress(), 'accept-language': 'en' },
        body: form.body,
      });
      expect(r.status).toBe(413);
      const plain = new URLSearchParams({ title: field, description: field, cost: field, website: field });
      const asPlain = await raw(s, 'POST', `${s.origin}/submit/`, {
        headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-forwarded-for': nextAddress() },
        body: plain.toString(),
      });
      expect(asPlain.status).toBe(413);
    });

    it('answers a request with credentials for a pending file as it answers one for a missing file', async () => {
      const sub = await submitted(s);
      const missing = sub.url.replace(/\/uploads\/\d+\//, '/uploads/2147483000/');
      const basic = { authorization: `Basic ${Buffer.from('nobody:wrong password').toString('base64')}` };
      const answers = [];
      for (const url of [sub.url, missing]) {
        const r = await raw(s, 'GET', url, { headers: basic });
        answers.push({ status: r.status, policy: r.headers.get('ratelimit-policy'), body: r.text });
      }
      expect(answers[0]).toEqual(answers[1]);
    });

    // ---- Doors checked and found sound (kept as regression tests). ----

    it('serves no file of a pending image to anyone but editors, whatever the request says', async () => {
      const sub = await submitted(s);
      const editorFile = await raw(s, 'GET', sub.url, { as: 'editor' });
      expect(editorFile.status).toBe(200);
      const etag = editorFile.headers.get('etag') ?? '';
      const wrongBearer = { authorization: 'Bearer nope' };
      const wrongBasic = { authorization: `Basic ${Buffer.from('editor:wrong').toString('base64')}` };
      for (const url of sub.files) {
        const asked: Record<string, string>[] = [
          {},
          wrongBearer,
          wrongBasic,
          { range: 'bytes=0-10' },
          { 'if-none-match': etag },
        ];
        for (const headers of asked) {
          for (const method of ['GET', 'HEAD']) {
            const r = await raw(s, method, url, { headers });
            expect(r.status, `${method} ${url} ${JSON.stringify(headers)}`).toBe(404);
            expect(r.headers.get('etag')).toBeNull();
            expect(r.headers.get('cache-control') ?? '').not.toContain('public');
          }
        }
        for (const as of ['author', 'subscriber'] as const) expect((await raw(s, 'GET', url, { as })).status).toBe(404);
        // Editors by any scheme, each answer private: Basic, Range, If-None-Match.
        const basic = {
          authorization: `Basic ${Buffer.from(`editor:${s.users.editor.appPassword}`).toString('base64')}`,
        };
        const byBasic = await raw(s, 'GET', url, { headers: basic });
        expect(byBasic.status).toBe(200);
        expect(byBasic.headers.get('cache-control')).toBe('private, no-store');
        const part = await raw(s, 'GET', url, { as: 'editor', headers: { range: 'bytes=0-3' } });
        expect(part.status).toBe(206);
        expect(part.headers.get('cache-control')).toBe('private, no-store');
      }
      const notModified = await raw(s, 'GET', sub.url, { as: 'editor', headers: { 'if-none-match': etag } });
      expect(notModified.status).toBe(304);
      expect(notModified.headers.get('cache-control')).toBe('private, no-store');
    });

    it('names a pending image at no media route, field selection, search or batch below editor', async () => {
      const sub = await submitted(s, { image_alt_text: 'Unmistakable harpsichord' });
      for (const as of [null, 'subscriber', 'contributor', 'author'] as const) {
        expect((await s.get(`/media/${sub.image}?_fields=id,url`, { as })).status).toBe(404);
        expect((await s.get(`/media/${sub.image}?context=edit`, { as })).status).toBeGreaterThanOrEqual(400);
        const search = await s.get('/media?search=harpsichord', { as });
        if (search.status === 200) expect(search.body.media).toEqual([]);
        expect((await s.get(`/events/${sub.eventId}`, { as })).status).toBeGreaterThanOrEqual(401);
      }
      for (const as of ['author', 'contributor'] as const) {
        expect((await s.request('DELETE', `/media/${sub.image}?force=true`, { as })).status).toBeGreaterThanOrEqual(
          401,
        );
        expect((await s.request('PUT', `/media/${sub.image}`, { body: { title: 'x' }, as })).status).toBeGreaterThan(
          400,
        );
      }
      const batch = await s.request('POST', '/batch/v1', {
        fromRoot: true,
        as: 'author',
        body: {
          requests: [
            { method: 'DELETE', path: `/calendar/events/v1/media/${sub.image}?force=true` },
            { method: 'PATCH', path: `/calendar/events/v1/media/${sub.image}`, body: { alt_text: 'mine' } },
            {
              method: 'POST',
              path: '/calendar/events/v1/events',
              body: {
                title: 'Borrowed',
                start_date: '2043-02-01 10:00',
                end_date: '2043-02-01 11:00',
                image: sub.image,
              },
            },
          ],
        },
      });
      expect(batch.status).toBe(207);
      expect(batch.body.responses.map((r: { status: number }) => r.status)).toEqual([404, 404, 400]);
      const media = await s.db.prisma.media.findUniqueOrThrow({ where: { id: sub.image } });
      expect(media).toMatchObject({ pending: true, altText: 'Unmistakable harpsichord' });
    });

    it('lets no author name a pending image in an item, by any write', async () => {
      const sub = await submitted(s);
      const own = await s.post(
        '/events',
        { title: 'Own event', start_date: '2043-03-01 10:00', end_date: '2043-03-01 11:00' },
        { as: 'author' },
      );
      expect(own.status).toBe(201);
      const tries = [
        s.request('PATCH', `/events/${own.body.id}`, { body: { image: sub.image }, as: 'author' }),
        s.request('PUT', `/events/${own.body.id}`, {
          body: {
            title: 'Own event',
            start_date: '2043-03-01 10:00',
            end_date: '2043-03-01 11:00',
            image: String(sub.image),
          },
          as: 'author',
        }),
        s.post('/venues', { venue: 'Borrowed hall', image: sub.image }, { as: 'author' }),
        s.post('/organizers', { organizer: 'Borrowed band', image: sub.image }, { as: 'author' }),
      ];
      for (const r of await Promise.all(tries)) {
        expect(r.status).toBe(400);
        expect(JSON.stringify(r.body)).toContain('There is no uploaded image');
      }
      expect(await s.db.prisma.media.findUniqueOrThrow({ where: { id: sub.image } })).toMatchObject({ pending: true });
    });

    it('keeps no anonymous answer of a pending image past its publication', async () => {
      const sub = await submitted(s);
      for (let i = 0; i < 2; i++) {
        expect((await s.get(`/media/${sub.image}`, { as: null })).status).toBe(404);
        expect((await raw(s, 'GET', sub.url)).status).toBe(404);
        const list = await s.get('/media?per_page=100', { as: null });
        expect(list.body.media.map((m: { id: number }) => m.id)).not.toContain(sub.image);
      }
      expect((await s.post(`/submissions/${sub.id}/approve`, {}, { as: 'editor' })).status).toBe(200);
      expect((await s.get(`/media/${sub.image}`, { as: null })).status).toBe(200);
      const list = await s.get('/media?per_page=100', { as: null });
      expect(list.body.media.map((m: { id: number }) => m.id)).toContain(sub.image);
      for (const url of sub.files) expect((await raw(s, 'GET', url)).status).toBe(200);
    });

    it('refuses every hostile multipart body with a 4xx, and stores nothing', async () => {
      const before = await counts(s);
      const jpeg = await photo(32, 24);
      const address = nextAddress();
      const json = await solvedJson(s, address);
      const forms: [string, { contentType: string; body: Buffer }, number][] = [
        ['no boundary', { contentType: 'multipart/form-data', body: Buffer.from('x') }, 400],
        ['empty body', { ...multipart([]), body: Buffer.alloc(0) }, 400],
        [
          'cut short',
          multipart(
            [
              { name: 'submission', body: json },
              { name: 'image', fileName: 'a.jpg', body: jpeg },
            ],
            false,
          ),
          400,
        ],
        [
          'two submissions',
          multipart([
            { name: 'submission', body: json },
            { name: 'submission', fileName: 's.json', body: json },
          ]),
          400,
        ],
        ['an array', multipart([{ name: 'submission', body: '[]' }]), 400],
        ['a number', multipart([{ name: 'submission', body: '42' }]), 400],
        ['null', multipart([{ name: 'submission', body: 'null' }]), 400],
        ['a string', multipart([{ name: 'submission', body: '"x"' }]), 400],
        [
          'a prototype',
          multipart([{ name: 'submission', body: json.replace('{', '{"__proto__":{"status":"publish"},') }]),
          400,
        ],
        ['1 MB + 1 of JSON', multipart([{ name: 'submission', body: ' '.repeat(1024 * 1024) + '{}' }]), 413],
        ['many fields', multipart(Array.from({ length: 50 }, (_, i) => ({ name: `f${i}`, body: 'x' }))), 413],
        // Said as such: the image must be a file part.
        [
          'the image as a field',
          multipart([
            { name: 'submission', body: json },
            { name: 'image', body: jpeg },
          ]),
          400,
        ],
        [
          'a part the document does not name',
          multipart([
            { name: 'submission', body: json },
            { name: 'status', body: 'publish' },
          ]),
          400,
        ],
        [
          'a zero-byte image',
          multipart([
            { name: 'submission', body: json },
            { name: 'image', fileName: 'a.jpg', body: Buffer.alloc(0) },
          ]),
          400,
        ],
        [
          'an SVG named JPEG',
          multipart([
            { name: 'submission', body: json },
            {
              name: 'image',
              fileName: 'a.jpg',
              type: 'image/jpeg',
              body: '<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>',
            },
          ]),
          415,
        ],
        [
          'a JPEG with HTML after it',
          multipart([
            { name: 'submission', body: json },
            {
              name: 'image',
              fileName: 'a.jpg',
              body: Buffer.concat([jpeg, Buffer.from('<html><script>alert(1)</script></html>')]),
            },
          ]),
          415,
        ],
        [
          'text as the image',
          multipart([
            { name: 'submission', body: json },
            { name: 'image', fileName: 'a.jpg', body: 'hello' },
          ]),
          415,
        ],
      ];
      const got: Record<string, number> = {};
      for (const [what, form] of forms) got[what] = (await postForm(s, form, address)).status;
      expect(got).toEqual(Object.fromEntries(forms.map(([what, , status]) => [what, status])));
      expect(await counts(s)).toEqual(before);
    });

    it('answers hostile multipart bodies to the form page with a 4xx', async () => {
      const forms: [string, { contentType: string; body: Buffer }][] = [
        ['no boundary', { contentType: 'multipart/form-data', body: Buffer.from('x') }],
        [
          'cut short',
          multipart(
            [
              { name: 'title', body: 'x' },
              { name: 'image', fileName: 'a.jpg', body: 'abc' },
            ],
            false,
          ),
        ],
        ['too many fields', multipart(Array.from({ length: 201 }, (_, i) => ({ name: `f${i}`, body: 'x' })))],
        [
          'two files',
          multipart([
            { name: 'image', fileName: 'a.jpg', body: 'a' },
            { name: 'other', fileName: 'b.jpg', body: 'b' },
          ]),
        ],
        ['a field past its size', multipart([{ name: 'description', body: 'x'.repeat(1024 * 1024 + 1) }])],
      ];
      for (const [what, form] of forms) {
        const r = await raw(s, 'POST', `${s.origin}/submit/`, {
          headers: { 'content-type': form.contentType, 'x-forwarded-for': nextAddress(), 'accept-language': 'en' },
          body: form.body,
        });
        expect(r.status, what).toBeGreaterThanOrEqual(400);
        expect(r.status, what).toBeLessThan(500);
      }
    });

    itOnPostgres(
      kind,
      'keeps an image an editor names while its submission is rejected at once',
      'the editor holds a transaction open beside the rejection',
      async () => {
        const sub = await submitted(s);
        const venue = await s.post('/venues', { venue: 'Draft hall', status: 'draft' }, { as: 'editor' });
        const holder = new pg.Client({ connectionString: s.url });
        await holder.connect();
        try {
          await holder.query('BEGIN');
          await holder.query('UPDATE venues SET image_id = $1 WHERE id = $2', [sub.image, venue.body.id]);
          const rejecting = s.post(`/submissions/${sub.id}/reject`, { reason: 'No' }, { as: 'editor' });
          await new Promise((resolve) => setTimeout(resolve, 300));
          await holder.query('COMMIT');
          expect((await rejecting).status).toBe(200);
          expect(await s.db.prisma.media.findUnique({ where: { id: sub.image } })).toMatchObject({ pending: true });
        } finally {
          await holder.end();
        }
      },
    );

    itOnPostgres(
      kind,
      'purges orphan images in housekeeping while an editor names one of them at once',
      'the editor holds a transaction open beside housekeeping',
      async () => {
        const sub = await submitted(s);
        // The editor gave the event no image: the submission's image is an orphan, a day old.
        expect((await s.request('PATCH', `/events/${sub.eventId}`, { body: { image: '' }, as: 'editor' })).status).toBe(
          200,
        );
        await s.db.prisma.media.update({
          where: { id: sub.image },
          data: { modifiedAt: new Date(Date.now() - 2 * 86_400_000) },
        });
        const venue = await s.post('/venues', { venue: 'Another draft hall', status: 'draft' }, { as: 'editor' });
        const holder = new pg.Client({ connectionString: s.url });
        await holder.connect();
        try {
          await holder.query('BEGIN');
          await holder.query('UPDATE venues SET image_id = $1 WHERE id = $2', [sub.image, venue.body.id]);
          const purging = purgeExpired(s.db, RETENTION).then(
            () => 'done',
            (err: unknown) => `failed: ${String(err)}`,
          );
          await new Promise((resolve) => setTimeout(resolve, 300));
          await holder.query('COMMIT');
          expect(await purging).toBe('done');
          expect(await s.db.prisma.media.findUnique({ where: { id: sub.image } })).toMatchObject({ pending: true });
        } finally {
          await holder.end();
        }
      },
    );
  },
  { env: ENV },
);

describe('An image with a public submission, for accounts only', () => {
  describeEachDatabase(
    'accounts',
    (s) => {
      it('is refused from anyone signed out before its bytes are read, and hidden from its own sender', async () => {
        const form = multipart([
          { name: 'submission', body: JSON.stringify(submission()) },
          { name: 'image', fileName: 'a.jpg', body: await photo(64, 48) },
        ]);
        const anonymous = await postForm(s, form);
        expect([401, 403]).toContain(anonymous.status);
        expect(await s.db.prisma.media.count()).toBe(0);
        const signedIn = {
          authorization: `Bearer ${s.users.subscriber.appPassword}`,
          'x-forwarded-for': nextAddress(),
        };
        const json = JSON.stringify({ ...submission(), altcha: await solvedChallenge(s, signedIn) });
        const r = await raw(s, 'POST', '/submissions', {
          headers: { ...signedIn, 'content-type': form.contentType },
          body: multipart([
            { name: 'submission', body: json },
            { name: 'image', fileName: 'a.jpg', body: await photo(64, 48) },
          ]).body,
        });
        expect(r.status, r.text).toBe(202);
        const row = await s.db.prisma.submission.findUniqueOrThrow({ where: { id: r.body.id } });
        expect(row.newImageId).toEqual(expect.any(Number));
        expect((await s.get(`/media/${row.newImageId}`, { as: 'subscriber' })).status).toBe(404);
        expect((await raw(s, 'GET', `/media/${row.newImageId}`, { as: 'subscriber' })).status).toBe(404);
        expect((await s.get(`/media/${row.newImageId}`, { as: 'editor' })).status).toBe(200);
      });
    },
    { env: { ...ENV, SUBMISSIONS: 'accounts' } },
  );
});

describe('A submission without an image where submissions take none', () => {
  describeEachDatabase(
    'no images',
    (s) => {
      it('is taken as a multipart form whose JSON is a file part, as it is taken as a field', async () => {
        for (const fileName of [undefined, 'submission.json']) {
          const address = nextAddress();
          const form = multipart([
            { name: 'submission', fileName, type: 'application/json', body: await solvedJson(s, address) },
          ]);
          const r = await postForm(s, form, address);
          expect(r.status, `${fileName ?? 'as a field'}: ${r.text}`).toBe(202);
        }
      });
    },
    { env: { ...ENV, SUBMISSION_IMAGE_MAX_MB: '0' } },
  );
});
