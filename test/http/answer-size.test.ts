// No answer grows with the request past what one answer holds (RESPONSE_MAX_MB, http/json-within.ts):
// an event carrying many categories with long descriptions, read, embedded, listed and written in
// a batch, with the limit at 1 MB.
import { beforeAll, expect, it } from 'vitest';
import { describeEachDatabase } from '../setup/each-database.js';

const NS = '/calendar/events/v1';

describeEachDatabase(
  'the size of an answer',
  (s) => {
    let id = 0;
    beforeAll(async () => {
      // 20 categories of 60,000 characters: one event that carries them is 1.2 MB of JSON.
      const categories = [];
      for (let i = 0; i < 20; i++) {
        const r = await s.post('/categories', { name: `Heavy ${i}`, description: `${i} ${'d'.repeat(60_000)}` });
        categories.push(r.body.id as number);
      }
      const event = await s.post('/events', {
        title: 'Heavy event',
        start_date: '2043-01-01 10:00',
        end_date: '2043-01-01 11:00',
        categories,
      });
      expect(event.status, event.text.slice(0, 200)).toBe(201);
      id = event.body.id as number;
    });

    it('refuses a read whose answer would pass the limit, saying what to ask instead', async () => {
      for (const path of [
        `/events/${id}`,
        '/events?start_date=2043-01-01&end_date=2043-01-02',
        `/events/${id}?_embed`,
      ]) {
        const r = await s.get(path, { as: null });
        expect([r.status, r.body.code], path).toEqual([400, 'rest_answer_too_large']);
        expect(r.body.message).toContain('_fields');
      }
      const narrow = await s.get(`/events/${id}?_fields=id,title`, { as: null });
      expect(narrow.body).toEqual({ id, title: 'Heavy event' });
    });

    it('answers a write that was done, whatever the size of its answer', async () => {
      const r = await s.request('PATCH', `/events/${id}?_embed`, { body: { title: 'Heavy event' } });
      expect(r.status).toBe(200);
      expect(r.body.categories).toHaveLength(20);
    });

    it('runs no more of a batch once its answers fill the limit, and applies none of those it did not run', async () => {
      const requests = ['One', 'Two', 'Three'].map((title) => ({
        method: 'PATCH',
        path: `${NS}/events/${id}`,
        body: { title: `Heavy ${title}` },
      }));
      const r = await s.post('/batch/v1', { requests }, { fromRoot: true });
      const statuses = (r.body.responses as { status: number; body: { code?: string } }[]).map((a) => [
        a.status,
        a.body.code,
      ]);
      expect(statuses).toEqual([
        [200, undefined],
        [400, 'rest_answer_too_large'],
        [400, 'rest_answer_too_large'],
      ]);
      const stored = await s.db.prisma.event.findUnique({ where: { id }, select: { title: true } });
      expect(stored?.title).toBe('Heavy One');
    });
  },
  { env: { RESPONSE_MAX_MB: '1' } },
);
