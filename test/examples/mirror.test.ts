// The change feed example keeps a copy in sync: after any writes, the copy holds exactly what the
// service's routes answer the same reader (here anonymous: published objects only).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Copy, follow } from '../../examples/mirror.js';
import { startServer, type TestServer } from '../setup/server.js';

describe('the mirror example', () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startServer('pglite');
  });
  afterAll(() => s?.close());

  it('ends with what the routes answer, after creates, updates, drafts, trash and deletes', async () => {
    const copy: Copy = new Map();
    const event = (when: string, extra = {}) =>
      s.post('/events', { title: `Mirror ${when}`, start_date: `${when} 19:00`, end_date: `${when} 21:00`, ...extra });
    const venue = (await s.post('/venues', { venue: 'Mirror Hall' })).body;
    const first = (await event('2042-01-01', { venue: venue.id, tags: ['mirror'] })).body;
    const second = (await event('2042-01-02')).body;
    let cursor = await follow(s.base, copy);
    expect(copy.has(`event:${first.id}`)).toBe(true);

    await s.post(`/venues/${venue.id}`, { venue: 'Mirror Hall (renamed)' });
    await s.request('PATCH', `/events/${second.id}`, { body: { status: 'draft' } });
    const third = (await event('2042-01-03')).body;
    await s.request('DELETE', `/events/${third.id}?force=true`);
    // A series: its occurrences come, change and go with it, and one changed on its own stays.
    const series = (await event('2042-02-01', { recurrence: ['RRULE:FREQ=WEEKLY;COUNT=6'] })).body;
    cursor = await follow(s.base, copy, cursor);
    const occurrences = () =>
      [...copy.values()].filter((o) => 'recurring_event_id' in o && o.recurring_event_id === series.id);
    expect(occurrences()).toHaveLength(6);
    const own = occurrences()[1];
    await s.request('PATCH', `/events/${own.id}`, { body: { title: 'Moved on its own' } });
    await s.request('PATCH', `/events/${series.id}`, {
      body: { description: 'Now weekly for four weeks', recurrence: ['RRULE:FREQ=WEEKLY;COUNT=4'] },
    });
    cursor = await follow(s.base, copy, cursor);

    const read = async (path: string) => {
      const r = await s.get(path, { as: null });
      return r.status === 200 ? r.body : undefined;
    };
    expect(copy.get(`event:${first.id}`)).toEqual(await read(`/events/${first.id}`));
    expect(copy.get(`venue:${venue.id}`)).toEqual(await read(`/venues/${venue.id}`));
    expect((copy.get(`event:${first.id}`) as { venue: { venue: string } }).venue.venue).toBe('Mirror Hall (renamed)');
    expect(copy.has(`event:${second.id}`)).toBe(false);
    expect(copy.has(`event:${third.id}`)).toBe(false);
    const listed = async (id: number) =>
      (await s.get(`/events?post_parent=${id}&start_date=0001-01-01&end_date=9999-12-30&per_page=50`, { as: null }))
        .body.events;
    expect(occurrences().sort((a, b) => a.id - b.id)).toEqual(
      (await listed(series.id)).sort((a: { id: number }, b: { id: number }) => a.id - b.id),
    );
    expect(occurrences()).toHaveLength(4);
    expect(occurrences().map((o) => (o as { description: string }).description)).toContain('Now weekly for four weeks');
    expect((copy.get(`event:${own.id}`) as { title: string }).title).toBe('Moved on its own');
    // Nothing new: the cursor stays good and the copy as it is.
    const size = copy.size;
    expect(await follow(s.base, copy, cursor)).toBe(cursor);
    expect(copy.size).toBe(size);
  });
});
