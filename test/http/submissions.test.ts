// Public submissions (docs/decisions.md, "Public submissions"), on both databases: a submission
// through the API waits, pending and owned by no account, shown nowhere public; editors read the
// queue oldest first and approve (publishing, or merging into what exists) or reject it; the
// submitter is told by e-mail (a real SMTP server on loopback) and follows it with its token; and
// each defence trips.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { MailSender } from '../../src/mail/sender.js';
import { describeEachDatabase } from '../setup/each-database.js';
import { settled } from '../setup/feed.js';
import { startSmtp, startTestSender } from '../setup/smtp.js';
import { submission, submit, solvedChallenge } from '../setup/submissions.js';

const smtp = await startSmtp();
afterAll(() => smtp.close());

const ENV = {
  SMTP_URL: smtp.url,
  SUBMISSIONS: 'anyone',
  SUBMISSION_POW_COST: '50',
  TRUST_PROXY: 'loopback',
  SUBMISSIONS_PER_ADDRESS: '4',
  SUBMISSIONS_PER_EMAIL: '2',
  SUBMISSION_MAX_LINKS: '2',
  SUBMISSION_BLOCKED_WORDS: 'casino,cheap pills',
  SUBMISSION_BLOCKED_DOMAINS: 'spam.example',
};

describeEachDatabase(
  'Public submissions',
  (s) => {
    let sender: MailSender;
    beforeAll(() => {
      sender = startTestSender(s, smtp.url);
    });
    afterAll(() => sender.stop());

    it('takes a submission as a pending event of no account, shown nowhere public', async () => {
      const r = await submit(s, {
        venue: { venue: 'Place du Marché', city: 'Lyon' },
        organizer: { organizer: 'Friends of the Square' },
        suggested_categories: ['Street music'],
      });
      expect(r.status).toBe(202);
      expect(r.body).toMatchObject({ state: 'pending' });
      expect(r.body.status_url).toContain(`/submit/status/?submission=${r.body.id}&token=`);
      const queue = await s.get('/submissions', { as: 'editor' });
      const mine = queue.body.submissions.find((x: { id: number }) => x.id === r.body.id);
      expect(mine).toMatchObject({ state: 'pending', submitter: { name: 'Ana Lima', account: null } });
      expect(mine.new.categories).toEqual(['Street music']);
      expect(mine.new.venue).toEqual(expect.any(Number));
      expect(mine.event).toMatchObject({ status: 'pending', author: '0' });
      const event = mine.event.id as number;
      expect((await s.get(`/events/${event}`, { as: null })).status).not.toBe(200);
      expect((await s.get(`/venues/${mine.new.venue}`, { as: null })).status).not.toBe(200);
      const list = await s.get('/events?per_page=50', { as: null });
      expect(list.body.events.map((e: { id: number }) => e.id)).not.toContain(event);
      // The feed names it `submitted` to editors, and not at all to anyone else.
      await settled(s);
      const feed = await s.get('/changes?per_page=100', { as: 'editor' });
      expect(feed.body.changes).toContainEqual(
        expect.objectContaining({ type: 'event', id: event, action: 'submitted' }),
      );
      const publicFeed = await s.get('/changes?per_page=100', { as: null });
      expect(publicFeed.body.changes.map((c: { id: number; type: string }) => `${c.type}${c.id}`)).not.toContain(
        `event${event}`,
      );
      const received = await smtp.next(mine.submitter.email, 'Submission received');
      expect(received.text).toContain(r.body.status_url);
    });

    it('publishes on approval, with its new venue, and tells the submitter', async () => {
      const r = await submit(s, { venue: { venue: 'Halle aux grains', city: 'Lyon' } });
      const token = r.body.token as string;
      const approved = await s.post(`/submissions/${r.body.id}/approve`, {}, { as: 'editor' });
      expect(approved.status).toBe(200);
      expect(approved.body.state).toBe('approved');
      expect(approved.body.event.status).toBe('publish');
      expect((await s.get(`/venues/${approved.body.new.venue}`, { as: null })).body.status).toBe('publish');
      const again = await s.post(`/submissions/${r.body.id}/reject`, { reason: 'Too late' }, { as: 'editor' });
      expect(again.status).toBe(409);
      expect(again.body.code).toBe('rest_submission_decided');
      const status = await s.get(`/submissions/${r.body.id}/status`, {
        as: null,
        headers: { 'Submission-Token': token },
      });
      expect(status.body).toMatchObject({ state: 'approved', link: approved.body.event.url });
      await smtp.next(approved.body.submitter.email, 'Published');
    });

    it('merges a new venue into one that exists on approval', async () => {
      const existing = await s.post('/venues', { venue: 'Salle Rameau', city: 'Lyon' }, { as: 'editor' });
      const r = await submit(s, { venue: { venue: 'Rameau hall' } });
      const queued = await s.get(`/submissions/${r.body.id}`, { as: 'editor' });
      const fresh = queued.body.new.venue as number;
      const approved = await s.post(`/submissions/${r.body.id}/approve`, { venue: existing.body.id }, { as: 'editor' });
      expect(approved.body.event.venue.id).toBe(existing.body.id);
      expect((await s.get(`/venues/${fresh}`, { as: 'editor' })).status).toBe(404);
    });

    it('trashes on rejection, tells the reason, and the token shows it', async () => {
      const r = await submit(s, { organizer: { organizer: 'Nobody knows' } });
      const rejected = await s.post(
        `/submissions/${r.body.id}/reject`,
        { reason: 'The square is closed that week.' },
        { as: 'editor' },
      );
      expect(rejected.body).toMatchObject({ state: 'rejected', reason: 'The square is closed that week.' });
      expect(rejected.body.event.status).toBe('trash');
      expect((await s.get(`/organizers/${rejected.body.new.organizer}`, { as: 'editor' })).body.status).toBe('trash');
      const headers = { 'Submission-Token': r.body.token as string };
      const status = await s.get(`/submissions/${r.body.id}/status`, { as: null, headers });
      expect(status.body).toMatchObject({ state: 'rejected', reason: 'The square is closed that week.', link: null });
      const wrong = await s.get(`/submissions/${r.body.id}/status`, {
        as: null,
        headers: { 'Submission-Token': 'x'.repeat(43) },
      });
      expect(wrong.status).toBe(404);
      const mail = await smtp.next(rejected.body.submitter.email, 'Not published');
      expect(mail.text).toContain('The square is closed that week.');
    });

    it('lets only editors and administrators moderate, and leaves the submission as it was', async () => {
      const r = await submit(s);
      const calls = [
        ['GET', '/submissions', undefined],
        ['GET', `/submissions/${r.body.id}`, undefined],
        ['POST', `/submissions/${r.body.id}/approve`, {}],
        ['POST', `/submissions/${r.body.id}/reject`, { reason: 'No' }],
      ] as const;
      for (const as of [null, 'subscriber', 'contributor', 'author'] as const) {
        for (const [method, path, body] of calls) {
          const answer = await s.request(method, path, { as, body });
          expect(answer.status, `${method} ${path} as ${as}`).toBe(as === null ? 401 : 403);
        }
      }
      const after = await s.get(`/submissions/${r.body.id}`, { as: 'editor' });
      expect(after.body.state, after.text).toBe('pending');
      expect((await s.get(`/submissions/${r.body.id}`, { as: 'administrator' })).status).toBe(200);
      // The submitter's status needs its token, whoever asks.
      const noToken = await s.get(`/submissions/${r.body.id}/status`, { as: 'administrator' });
      expect(noToken.status).toBe(401);
    });

    describe('defences', () => {
      it('refuses a submission without a good proof of work, and a proof used twice', async () => {
        const none = await s.post('/submissions', submission(), { as: null });
        expect(none.status).toBe(400);
        expect(none.body.code).toBe('rest_submission_challenge');
        const forged = await s.post(
          '/submissions',
          { ...submission(), altcha: Buffer.from('{"challenge":{}}').toString('base64') },
          { as: null },
        );
        expect(forged.body.code).toBe('rest_submission_challenge');
        const altcha = await solvedChallenge(s);
        expect((await s.post('/submissions', { ...submission(), altcha }, { as: null })).status).toBe(202);
        const replay = await s.post('/submissions', { ...submission(), altcha }, { as: null });
        expect(replay.body.code).toBe('rest_submission_challenge');
      });

      it('keeps as spam what fills the hidden field, holds too many links, or a blocked word or domain', async () => {
        const cases: [Record<string, unknown>, string][] = [
          [{ nickname: 'bot' }, 'honeypot'],
          [{ description: 'See http://a.example, https://b.example/x and www.c.example.' }, 'links'],
          [{ title: 'Big CASINO night' }, 'blocked_word'],
          [{ description: 'Buy cheap  pills here' }, 'blocked_word'],
          [{ website: 'https://www.spam.example/offer' }, 'blocked_domain'],
        ];
        for (const [fields, reason] of cases) {
          const r = await submit(s, fields, `203.0.113.${cases.findIndex((c) => c[0] === fields) + 1}`);
          expect(r.status, reason).toBe(202);
          const one = await s.get(`/submissions/${r.body.id}`, { as: 'editor' });
          expect(one.body.state, reason).toBe('spam');
          expect(one.body.spam_reasons, reason).toContain(reason);
        }
        const queue = await s.get('/submissions?per_page=50', { as: 'editor' });
        expect(queue.body.submissions.every((x: { state: string }) => x.state === 'pending')).toBe(true);
      });

      it('refuses a duplicate of the day, and more than the day allows per address and per e-mail', async () => {
        const first = await submit(s, { title: 'Choir in the park' }, '192.0.2.50');
        expect(first.status).toBe(202);
        const same = await submit(s, { title: '  choir IN the park ' }, '192.0.2.51');
        expect(same.status).toBe(409);
        expect(same.body.code).toBe('rest_submission_duplicate');
        const email = { submitter: { name: 'Bo', email: 'bo@example.org' } };
        expect((await submit(s, email, '192.0.2.60')).status).toBe(202);
        expect((await submit(s, email, '192.0.2.61')).status).toBe(202);
        const third = await submit(s, email, '192.0.2.62');
        expect(third.status).toBe(429);
        expect(third.headers.get('retry-after')).toMatch(/^\d+$/);
        for (let i = 0; i < 3; i++) expect((await submit(s, {}, '192.0.2.70')).status).toBe(202);
        // The refusals above counted for nothing: 192.0.2.70 has one left of four.
        expect((await submit(s, {}, '192.0.2.70')).status).toBe(202);
        expect((await submit(s, {}, '192.0.2.70')).status).toBe(429);
      });

      it('creates no category, tag or published item from what is sent', async () => {
        const pending = await s.post('/venues', { venue: 'Draft hall', status: 'draft' }, { as: 'editor' });
        const r = await submit(s, { venue: pending.body.id });
        expect(r.status).toBe(400);
        const extra = await submit(s, { tags: ['new'], status: 'publish' });
        expect(extra.status).toBe(400);
        const unknown = await submit(s, { categories: [999999] });
        expect(unknown.status).toBe(400);
      });
    });
  },
  { env: ENV },
);

describeEachDatabase('Public submissions, off', (s) => {
  it('are refused by default', async () => {
    const r = await s.post('/submissions', submission(), { as: null });
    expect(r.status).toBe(403);
    expect(r.body.code).toBe('rest_submissions_closed');
    expect((await s.get('/submissions/challenge', { as: null })).body.code).toBe('rest_submissions_closed');
  });
});
