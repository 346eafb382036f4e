// RSVP (docs/decisions.md, "RSVP") through the REST door, on both databases: each status and
// transition, the waiting list seated in order with guests, capacity never lowered below the seats
// taken, and who may read names and e-mail addresses: at every door that shows events, counts only.
import { expect, it } from 'vitest';
import type { Role } from '../../src/auth/roles.js';
import { openRsvpEvent, rsvpFor } from '../setup/rsvp-events.js';
import { describeEachDatabase } from '../setup/each-database.js';
import { settled } from '../setup/feed.js';
import type { TestServer } from '../setup/server.js';

const NS = '/calendar/events/v1';

const openEvent = openRsvpEvent;

const counts = async (s: TestServer, eventId: number, as: Role | null = null) => {
  const r = await s.get(`/events/${eventId}`, { as });
  expect(r.status, r.text).toBe(200);
  return r.body.rsvp;
};

const statuses = async (s: TestServer, eventId: number) => {
  const r = await s.get(`/events/${eventId}/rsvps?per_page=100`, { as: 'author' });
  expect(r.status, r.text).toBe(200);
  return Object.fromEntries(r.body.rsvps.map((x: { name: string; status: string }) => [x.name, x.status]));
};

describeEachDatabase('RSVP', (s) => {
  it('shows settings and counts on every event, closed by default, closing at the start', async () => {
    const r = await s.post('/events', {
      title: 'No RSVP',
      start_date: '2043-05-01 10:00',
      end_date: '2043-05-01 11:00',
    });
    expect(r.body.rsvp).toEqual({
      open: false,
      closes_at: '2043-05-01 10:00:00',
      capacity: null,
      guests_max: 0,
      approval: false,
      anonymous: false,
      going: 0,
      waiting: 0,
      checked_in: 0,
      remaining: null,
    });
    const refused = await s.post(`/events/${r.body.id}/rsvps`, {}, { as: 'subscriber' });
    expect(refused.status, refused.text).toBe(409);
    expect(refused.body.code).toBe('rest_rsvp_not_open');
    // closes_at is kept relative to the start: the event moved, it closes as long before.
    const set = await s.post(`/events/${r.body.id}`, { rsvp: { open: true, closes_at: '2043-05-01 08:30' } });
    expect(set.body.rsvp).toMatchObject({ open: true, closes_at: '2043-05-01 08:30:00' });
    const moved = await s.post(`/events/${r.body.id}`, {
      start_date: '2043-05-02 10:00',
      end_date: '2043-05-02 11:00',
    });
    expect(moved.body.rsvp.closes_at).toBe('2043-05-02 08:30:00');
    const stored = await s.db.prisma.event.findUniqueOrThrow({ where: { id: r.body.id } });
    expect(stored.rsvpClosesBefore).toBe(5400);
  });

  it('seats a signed-in caller as itself, then waits, with guests counted as seats', async () => {
    const event = await openEvent(s, { capacity: 3, guests_max: 2 });
    const mine = await s.post(`/events/${event.id}/rsvps`, { guests: 1 }, { as: 'subscriber' });
    expect(mine.status, mine.text).toBe(201);
    expect(mine.body).toMatchObject({
      name: 'subscriber',
      email: 'subscriber@example.org',
      guests: 1,
      status: 'going',
    });
    expect(mine.headers.get('location')).toBe(`${s.base}/events/${event.id}/rsvps/${mine.body.id}`);
    const stored = await s.db.prisma.rsvp.findUniqueOrThrow({ where: { id: mine.body.id } });
    expect(stored).toMatchObject({ accountId: s.users.subscriber.id, status: 'going', guests: 1 });
    // Two seats left of three? One: the subscriber and a guest take two.
    const big = await rsvpFor(s, event.id, 'big', { guests: 1 });
    expect(big.status).toBe('waiting');
    const small = await rsvpFor(s, event.id, 'small');
    expect(small.status).toBe('going');
    expect(await counts(s, event.id)).toMatchObject({ going: 3, waiting: 2, remaining: 0, capacity: 3 });
    // Too many guests, or the same address again, are refused.
    const tooMany = await s.post(
      `/events/${event.id}/rsvps`,
      { name: 'x', email: 'x@example.org', guests: 3 },
      { as: 'author' },
    );
    expect(tooMany.status).toBe(400);
    const again = await s.post(
      `/events/${event.id}/rsvps`,
      { name: 'Small', email: 'SMALL@example.org' },
      { as: 'author' },
    );
    expect(again.status).toBe(409);
    expect(again.body).toMatchObject({ code: 'rest_rsvp_exists', data: { rsvp_id: small.id } });
    // Not the organiser: no RSVP for another address.
    const other = await s.post(`/events/${event.id}/rsvps`, { email: 'someone@example.org' }, { as: 'contributor' });
    expect(other.status).toBe(400);
    expect(other.body.data.params).toHaveProperty('email');
  });

  it('seats the waiting list in the order it came, each that fits with its guests', async () => {
    const event = await openEvent(s, { capacity: 4, guests_max: 3 });
    const a = await rsvpFor(s, event.id, 'a', { guests: 3 });
    const b = await rsvpFor(s, event.id, 'b', { guests: 2 });
    const c = await rsvpFor(s, event.id, 'c', { guests: 3 });
    const d = await rsvpFor(s, event.id, 'd');
    expect([a.status, b.status, c.status, d.status]).toEqual(['going', 'waiting', 'waiting', 'waiting']);
    // A's four seats free: b (3) fits first, c (4) no longer does, d (1) does.
    const cancelled = await s.request('DELETE', `/events/${event.id}/rsvps/${a.id}`, { as: 'author' });
    expect(cancelled.body.status).toBe('cancelled');
    expect(await statuses(s, event.id)).toEqual({ a: 'cancelled', b: 'going', c: 'waiting', d: 'going' });
    expect(await counts(s, event.id)).toMatchObject({ going: 4, waiting: 4, remaining: 0 });
    // Fewer guests free seats too; a raised capacity seats c.
    await s.request('PATCH', `/events/${event.id}/rsvps/${b.id}`, { body: { guests: 0 }, as: 'author' });
    expect((await statuses(s, event.id)).c).toBe('waiting');
    const raised = await s.post(`/events/${event.id}`, { rsvp: { capacity: 6 } }, { as: 'author' });
    expect(raised.body.rsvp).toMatchObject({ going: 6, waiting: 0, remaining: 0 });
    expect((await statuses(s, event.id)).c).toBe('going');
    // Answering going again, a's RSVP is taken up again, at the end of the list.
    const back = await s.post(`/events/${event.id}/rsvps`, { name: 'a', email: 'a@example.org' }, { as: 'author' });
    expect(back.status, back.text).toBe(201);
    expect(back.body).toMatchObject({ id: a.id, status: 'waiting' });
  });

  it('refuses a capacity below the seats taken and more guests than fit, changing nothing', async () => {
    const event = await openEvent(s, { capacity: 5, guests_max: 4 });
    const a = await rsvpFor(s, event.id, 'a', { guests: 2 });
    await rsvpFor(s, event.id, 'b');
    const lower = await s.post(
      `/events/${event.id}`,
      { rsvp: { capacity: 3 }, title: 'Smaller room' },
      { as: 'author' },
    );
    expect(lower.status, lower.text).toBe(409);
    expect(lower.body).toMatchObject({ code: 'rest_rsvp_capacity_below_seats', data: { status: 409, seats_taken: 4 } });
    expect(lower.body.message).toContain('4 seats are taken');
    const stored = await s.db.prisma.event.findUniqueOrThrow({ where: { id: event.id } });
    expect(stored).toMatchObject({ rsvpCapacity: 5, title: event.title });
    expect((await s.post(`/events/${event.id}`, { rsvp: { capacity: 4 } }, { as: 'author' })).status).toBe(200);
    const more = await s.request('PATCH', `/events/${event.id}/rsvps/${a.id}`, { body: { guests: 4 }, as: 'author' });
    expect(more.status, more.text).toBe(409);
    expect(more.body.code).toBe('rest_rsvp_no_room');
    expect((await s.db.prisma.rsvp.findUniqueOrThrow({ where: { id: a.id } })).guests).toBe(2);
  });

  it('goes through pending, approval, decline, not_going and check-in', async () => {
    const event = await openEvent(s, { capacity: 2, approval: true });
    const mine = await s.post(`/events/${event.id}/rsvps`, {}, { as: 'subscriber' });
    expect(mine.body.status).toBe('pending');
    expect((await counts(s, event.id)).going).toBe(0);
    // The owner may not approve itself; the organiser may.
    const self = await s.request('PATCH', `/events/${event.id}/rsvps/${mine.body.id}`, {
      body: { status: 'going' },
      as: 'subscriber',
    });
    expect(self.status).toBe(403);
    const approved = await s.request('PATCH', `/events/${event.id}/rsvps/${mine.body.id}`, {
      body: { status: 'going' },
      as: 'author',
    });
    expect(approved.body.status).toBe('going');
    // An organiser's RSVP counts at once; check-in keeps the seat, and only a seated RSVP is checked in.
    const phone = await rsvpFor(s, event.id, 'phone');
    expect(phone.status).toBe('going');
    const arrived = await s.request('PATCH', `/events/${event.id}/rsvps/${phone.id}`, {
      body: { status: 'checked_in' },
      as: 'author',
    });
    expect(arrived.body.status).toBe('checked_in');
    expect(await counts(s, event.id)).toMatchObject({ going: 2, remaining: 0 });
    // The organiser's RSVP skips approval, not the capacity.
    const late = await rsvpFor(s, event.id, 'late');
    expect(late.status).toBe('waiting');
    const notSeated = await s.request('PATCH', `/events/${event.id}/rsvps/${late.id}`, {
      body: { status: 'checked_in' },
      as: 'author',
    });
    expect(notSeated.status).toBe(409);
    // not_going by the owner declines and frees the seat; the organiser's decline cannot be undone by the owner.
    const no = await s.request('PATCH', `/events/${event.id}/rsvps/${mine.body.id}`, {
      body: { answer: 'not_going' },
      as: 'subscriber',
    });
    expect(no.body).toMatchObject({ status: 'declined', answer: 'not_going' });
    expect((await statuses(s, event.id)).late).toBe('going');
    const declined = await s.request('PATCH', `/events/${event.id}/rsvps/${late.id}`, {
      body: { status: 'declined' },
      as: 'author',
    });
    expect(declined.body.status).toBe('declined');
    const answerNo = await s.post(`/events/${event.id}/rsvps`, { answer: 'not_going' }, { as: 'editor' });
    expect(answerNo.body.status).toBe('declined');
  });

  it("closes every date as long before its start as a date's closes_at sent with scope=all says", async () => {
    const series = await openEvent(s, {}, { recurrence: ['RRULE:FREQ=WEEKLY;COUNT=3'] });
    const dates = async () =>
      (await s.get(`/events?post_parent=${series.id}&start_date=2043-05-01&end_date=2043-06-30`)).body.events as {
        id: number;
        rsvp: { closes_at: string };
      }[];
    const [, second] = await dates();
    const r = await s.post(
      `/events/${second.id}?scope=all`,
      { rsvp: { closes_at: '2043-05-17 17:00' } },
      { as: 'author' },
    );
    expect(r.status, r.text).toBe(200);
    expect((await dates()).map((d) => d.rsvp.closes_at)).toEqual([
      '2043-05-10 17:00:00',
      '2043-05-17 17:00:00',
      '2043-05-24 17:00:00',
    ]);
  });

  it('refuses RSVP to a series, a cancelled or closed event, and without an account', async () => {
    const series = await openEvent(s, {}, { recurrence: ['RRULE:FREQ=WEEKLY;COUNT=3'] });
    const toSeries = await s.post(`/events/${series.id}/rsvps`, {}, { as: 'subscriber' });
    expect(toSeries.status).toBe(400);
    expect(toSeries.body.code).toBe('rest_rsvp_series');
    // Each date copies the series' settings and has RSVPs of its own.
    const dates = await s.get(`/events?post_parent=${series.id}&start_date=2043-05-01&end_date=2043-06-30`);
    expect(dates.body.events).toHaveLength(3);
    const [first, second] = dates.body.events;
    expect(first.rsvp).toMatchObject({ open: true, closes_at: '2043-05-10 19:00:00' });
    expect(second.rsvp.closes_at).toBe('2043-05-17 19:00:00');
    expect((await s.post(`/events/${first.id}/rsvps`, {}, { as: 'subscriber' })).status).toBe(201);
    expect((await counts(s, first.id)).going).toBe(1);
    expect((await counts(s, second.id)).going).toBe(0);

    const cancelled = await openEvent(s, {}, { event_status: 'canceled' });
    const toCancelled = await s.post(`/events/${cancelled.id}/rsvps`, {}, { as: 'subscriber' });
    expect(toCancelled.body.code).toBe('rest_rsvp_event_canceled');
    const closed = await openEvent(s, {}, { start_date: '2020-01-01 10:00', end_date: '2020-01-01 11:00' });
    const toClosed = await s.post(`/events/${closed.id}/rsvps`, {}, { as: 'subscriber' });
    expect(toClosed.body.code).toBe('rest_rsvp_closed');

    const anonymous = await s.post(`/events/${first.id}/rsvps`, { name: 'A', email: 'a@example.org' }, { as: null });
    expect(anonymous.status).toBe(401);
    await s.post(`/events/${second.id}`, { rsvp: { anonymous: true } }, { as: 'author', headers: {} });
    const allowed = await s.post(`/events/${second.id}/rsvps`, { name: 'A', email: 'a@example.org' }, { as: null });
    expect(allowed.status).toBe(403);
    expect(allowed.body.code).toBe('rest_rsvp_needs_confirmation');
    expect(allowed.body.message).toContain('e-mail');

    const draft = await openEvent(s, {}, { status: 'draft' });
    expect((await s.post(`/events/${draft.id}/rsvps`, {}, { as: 'subscriber' })).status).toBe(403);
  });

  it('finds events open to RSVP with ticketed', async () => {
    const tag = `ticketed${Date.now()}`;
    const open = await openEvent(s, {}, { title: `${tag} open` });
    const closedRsvp = await s.post('/events', {
      title: `${tag} plain`,
      start_date: '2043-05-10 19:00',
      end_date: '2043-05-10 20:00',
    });
    const cancelled = await openEvent(s, {}, { title: `${tag} off`, event_status: 'canceled' });
    const list = async (flag: string) =>
      (await s.get(`/events?start_date=2043-05-01&end_date=2043-05-31&search=${tag}&ticketed=${flag}`)).body.events
        .map((e: { id: number }) => e.id)
        .sort();
    expect(await list('true')).toEqual([open.id]);
    expect(await list('false')).toEqual([closedRsvp.body.id, cancelled.id].sort());
  });

  it("takes, cancels and seats RSVPs in a batch's one transaction, and undoes them with it", async () => {
    const event = await openEvent(s, { capacity: 2, guests_max: 1 });
    const path = `${NS}/events/${event.id}/rsvps`;
    const first = await rsvpFor(s, event.id, 'batchfirst', { guests: 1 });
    const batch = (requests: unknown[]) =>
      s.post('/batch/v1', { validation: 'require-all-validate', requests }, { fromRoot: true, as: 'author' });

    const applied = await batch([
      { path, body: { name: 'batchwaits', email: 'batchwaits@example.org' } },
      { method: 'DELETE', path: `${path}/${first.id}` },
    ]);
    expect(applied.status, applied.text).toBe(207);
    expect(applied.body.responses.map((a: { status: number; body: { status: string } }) => a.body.status)).toEqual([
      'waiting',
      'cancelled',
    ]);
    expect(await statuses(s, event.id)).toEqual({ batchfirst: 'cancelled', batchwaits: 'going' });

    const undone = await batch([
      { path, body: { name: 'batchundone', email: 'batchundone@example.org' } },
      { method: 'DELETE', path: `${path}/987654321` },
    ]);
    expect(undone.body.failed).toBe('transaction');
    expect(await statuses(s, event.id)).toEqual({ batchfirst: 'cancelled', batchwaits: 'going' });
    expect(await counts(s, event.id)).toMatchObject({ going: 1, waiting: 0, remaining: 1 });
  });

  it('shows names and e-mail addresses to organisers only, counts at every door', async () => {
    const event = await openEvent(s, { capacity: 10 });
    await rsvpFor(s, event.id, 'secretperson');
    const mine = await s.post(`/events/${event.id}/rsvps`, {}, { as: 'subscriber' });
    // The list: the organiser sees all; another account its own; an anonymous caller none.
    const all = await s.get(`/events/${event.id}/rsvps`, { as: 'author' });
    expect(all.body.total).toBe(2);
    const own = await s.get(`/events/${event.id}/rsvps`, { as: 'subscriber' });
    expect(own.body.rsvps.map((r: { id: number }) => r.id)).toEqual([mine.body.id]);
    const none = await s.get(`/events/${event.id}/rsvps`, { as: null });
    expect(none.body).toMatchObject({ rsvps: [], total: 0 });
    const secretId = all.body.rsvps.find((r: { name: string }) => r.name === 'secretperson').id;
    expect((await s.get(`/events/${event.id}/rsvps/${secretId}`, { as: 'contributor' })).status).toBe(404);
    expect((await s.request('DELETE', `/events/${event.id}/rsvps/${secretId}`, { as: 'contributor' })).status).toBe(
      404,
    );
    const leaks = (text: string) => text.includes('secretperson') || text.includes('subscriber@example.org');

    const single = await s.get(`/events/${event.id}`, { as: null });
    expect(single.body.rsvp.going).toBe(2);
    const listed = await s.get(`/events?start_date=2043-05-01&end_date=2043-05-31&per_page=50`, {
      as: 'administrator',
    });
    expect(listed.body.events.find((e: { id: number }) => e.id === event.id).rsvp.going).toBe(2);
    const ics = await s.get(`/events/${event.id}.ics`, { as: 'administrator' });
    expect(ics.status).toBe(200);
    const feed = await s.get(`/events.ics?start_date=2043-05-01&end_date=2043-05-31`, { as: 'administrator' });
    await settled(s);
    // Editors organise every event, yet the feed gives RSVPs to administrators only (rsvp-feed.test.ts).
    const changes = await s.get('/changes?per_page=500', { as: 'editor' });
    const batch = await s.post(
      '/batch/v1',
      { requests: [{ method: 'PATCH', path: `${NS}/events/${event.id}`, body: { featured: true } }] },
      { fromRoot: true, as: 'author' },
    );
    expect(batch.body.responses[0].body.rsvp.going).toBe(2);
    for (const answer of [single, listed, ics, feed, changes, batch]) expect(leaks(answer.text)).toBe(false);
  });
});
