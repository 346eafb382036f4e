// What the change feed says changed of an event (migration event_status_and_online, docs/decisions.md
// "Cancelled, postponed, online"), in the sequences where a union of writes or a comparison of names
// would say the wrong thing: net of a batch, a series' new rule, a split from a date cancelled alone,
// a date in the trash, a tombstone, a zone that moves nothing; and the link to join a meeting needs
// a host. Both databases.
import { expect, it } from 'vitest';
import { describeEachDatabase } from '../setup/each-database.js';
import { changesSince, feedEnd } from '../setup/feed.js';
import type { TestServer } from '../setup/server.js';

const WINDOW = 'start_date=2042-03-01&end_date=2042-05-30 23:59:59';

let n = 0;
async function create(s: TestServer, body: Record<string, unknown> = {}) {
  const r = await s.post('/events', {
    title: `Changed event ${++n}`,
    start_date: '2042-03-10 19:00',
    end_date: '2042-03-10 21:00',
    ...body,
  });
  expect(r.status, r.text).toBe(201);
  return r.body;
}

async function dates(s: TestServer, series: number) {
  const r = await s.get(`/events?${WINDOW}&post_parent=${series}&per_page=50`);
  expect(r.status, r.text).toBe(200);
  return r.body.events as { id: number; start_date: string }[];
}

describeEachDatabase('what a change says changed', (s) => {
  it('is net of a batch: cancelled and put back on in one request is nothing', async () => {
    const event = await create(s);
    const cursor = await feedEnd(s);
    const path = `/calendar/events/v1/events/${event.id}`;
    const r = await s.post(
      '/batch/v1',
      {
        validation: 'require-all-validate',
        requests: [
          { method: 'PATCH', path, body: { event_status: 'canceled', event_status_reason: 'x' } },
          { method: 'PATCH', path, body: { event_status: 'scheduled' } },
        ],
      },
      { fromRoot: true },
    );
    expect(r.status, r.text).toBe(207);
    const [change] = await changesSince(s, cursor);
    expect(change).toMatchObject({ id: event.id, changed: [] });
  });

  it("names a series' recurrence when its rule moves or drops dates", async () => {
    const series = await create(s, { recurrence: ['RRULE:FREQ=WEEKLY;COUNT=4'] });
    const cursor = await feedEnd(s);
    expect((await s.post(`/events/${series.id}`, { recurrence: ['RRULE:FREQ=DAILY;COUNT=2'] })).status).toBe(200);
    expect((await dates(s, series.id)).map((d) => d.start_date)).toEqual([
      '2042-03-10 19:00:00',
      '2042-03-11 19:00:00',
    ]);
    const [change] = await changesSince(s, cursor);
    expect(change).toMatchObject({ id: series.id, action: 'updated', changed: ['recurrence'] });
  });

  it('keeps a date cancelled alone so when the series changes from it on, and says nothing of it', async () => {
    const series = await create(s, { recurrence: ['RRULE:FREQ=WEEKLY;COUNT=4'] });
    const third = (await dates(s, series.id))[2];
    await s.post(`/events/${third.id}?scope=this`, { event_status: 'canceled', event_status_reason: 'Holiday' });
    const cursor = await feedEnd(s);
    const r = await s.post(`/events/${third.id}?scope=following`, { title: 'New name from here on' });
    expect(r.status, r.text).toBe(200);
    const after = (await s.get(`/events/${third.id}`)).body;
    expect(after).toMatchObject({
      title: 'New name from here on',
      event_status: 'canceled',
      event_status_reason: 'Holiday',
    });
    const own = (await changesSince(s, cursor)).find((c) => c.id === third.id);
    expect(own?.changed ?? []).toEqual([]);
    // Sent with the change, the status is the new series' for that date too.
    const fourth = (await dates(s, r.body.id)).at(-1)!;
    await s.post(`/events/${fourth.id}?scope=this`, { event_status: 'postponed' });
    const back = await s.post(`/events/${fourth.id}?scope=following`, { event_status: 'scheduled' });
    expect((await s.get(`/events/${fourth.id}`)).body.event_status).toBe('scheduled');
    expect(back.status).toBe(200);
  });

  it('leaves a date in the trash as it is when its series is called off', async () => {
    const series = await create(s, { recurrence: ['RRULE:FREQ=WEEKLY;COUNT=4'] });
    const second = (await dates(s, series.id))[1];
    expect((await s.request('DELETE', `/events/${second.id}?scope=this`)).status).toBe(200);
    const trashed = await s.db.prisma.event.findUniqueOrThrow({ where: { id: second.id } });
    const cursor = await feedEnd(s);
    await s.post(`/events/${series.id}`, { event_status: 'canceled', event_status_reason: 'Season over' });
    expect((await changesSince(s, cursor)).map((c) => c.id)).toEqual([series.id]);
    const still = await s.db.prisma.event.findUniqueOrThrow({ where: { id: second.id } });
    expect(still).toMatchObject({ modifiedAt: trashed.modifiedAt, eventStatus: 'scheduled' });
  });

  it('tells a reader who may not read the event nothing of what changed', async () => {
    const event = await create(s, { status: 'draft', is_virtual: true });
    const cursor = await feedEnd(s);
    await s.post(`/events/${event.id}`, { virtual_url: 'https://meet.example.org/draft-secret' });
    const [anonymous] = await changesSince(s, cursor, null);
    expect(anonymous).toMatchObject({ id: event.id, tombstone: true, object: null, changed: [] });
    const [editor] = await changesSince(s, cursor, 'editor');
    expect(editor).toMatchObject({ id: event.id, changed: ['virtual_url'] });
  });

  it('counts times as changed when the wall clock or the instant moves, not the name of the zone', async () => {
    const event = await create(s, { timezone: 'UTC' });
    const cursor = await feedEnd(s);
    // On 10 March 2042 London keeps GMT: the same wall clock, the same instant.
    const r = await s.post(`/events/${event.id}`, { timezone: 'Europe/London' });
    expect(r.body).toMatchObject({ utc_start_date: event.utc_start_date, start_date: event.start_date });
    expect((await changesSince(s, cursor))[0].changed).toEqual([]);
    // In Paris the same wall clock is another instant.
    const next = await feedEnd(s);
    await s.post(`/events/${event.id}`, { timezone: 'Europe/Paris' });
    expect((await changesSince(s, next))[0].changed).toEqual(['end_date', 'start_date']);
  });

  it('takes a link to join only with a host', async () => {
    const event = await create(s);
    for (const url of ['https:///join', 'https://?x=1', 'https://#a']) {
      const r = await s.post(`/events/${event.id}`, { virtual_url: url });
      expect(r.status, url).toBe(400);
    }
    const ok = await s.post(`/events/${event.id}`, { virtual_url: 'https://meet.example.org:8443/j?pwd=a#b' });
    expect(ok.status, ok.text).toBe(200);
  });
});
