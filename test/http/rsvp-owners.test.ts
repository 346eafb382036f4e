// What an RSVP's owner may not undo and a stranger's claim may not take (docs/decisions.md, "RSVP"),
// on both databases: an organiser's decline stays (however its owner goes about it), a check-in is
// the organisers' record, an RSVP without an account counts for nothing until its address confirms
// it (organisers cannot seat it, and an account or an organiser takes its address over), a
// stranger's request leaves an account's RSVP alone, and seats freed after the start go to nobody.
// Hostile input at the RSVP routes and page answers 4xx, never 5xx.
import { expect, it } from 'vitest';
import { openRsvpEvent } from '../setup/rsvp-events.js';
import { describeEachDatabase } from '../setup/each-database.js';
import type { TestServer } from '../setup/server.js';

/** An event open to RSVP (test/setup/rsvp-events.ts) starting at `start`; answers its ID. */
const openEvent = async (s: TestServer, rsvp: Record<string, unknown> = {}, start = '2043-07-10 19:00') =>
  (await openRsvpEvent(s, rsvp, { start_date: start, end_date: start.replace(/ \d\d:/, ' 23:') })).id as number;

/** The code of the last confirmation link queued for this RSVP (no sender runs here). */
async function codeOf(s: TestServer, rsvpId: number): Promise<string> {
  const [mail] = await s.db.prisma.mailOutbox.findMany({
    where: { rsvpId, kind: 'confirm' },
    orderBy: { id: 'desc' },
    take: 1,
  });
  return (mail.secrets as { code: string }).code;
}

async function anonymous(s: TestServer, id: number, name: string, email: string) {
  const r = await s.post(`/events/${id}/rsvps`, { name, email }, { as: null });
  expect(r.status, r.text).toBe(202);
  const row = await s.db.prisma.rsvp.findFirst({
    where: { eventId: id, email: { equals: email, mode: 'insensitive' } },
  });
  return row!;
}

describeEachDatabase(
  'What an RSVP owner may not undo',
  (s) => {
    it("keeps an organiser's decline, whatever its owner sends", async () => {
      const id = await openEvent(s);
      const mine = await s.post(`/events/${id}/rsvps`, {}, { as: 'subscriber' });
      const path = `/events/${id}/rsvps/${mine.body.id}`;
      expect((await s.request('PATCH', path, { as: 'author', body: { status: 'declined' } })).body.status).toBe(
        'declined',
      );
      for (const body of [{ answer: 'not_going' }, { answer: 'going' }, { guests: 0 }]) {
        const r = await s.request('PATCH', path, { as: 'subscriber', body });
        expect(r.status, JSON.stringify(body)).toBe(409);
      }
      expect((await s.request('DELETE', path, { as: 'subscriber' })).status).toBe(409);
      expect((await s.post(`/events/${id}/rsvps`, {}, { as: 'subscriber' })).status).toBe(409);
      expect((await s.get(path, { as: 'author' })).body.status).toBe('declined');
    });

    it('leaves a check-in to the organisers', async () => {
      const id = await openEvent(s);
      const mine = await s.post(`/events/${id}/rsvps`, {}, { as: 'subscriber' });
      const path = `/events/${id}/rsvps/${mine.body.id}`;
      await s.request('PATCH', path, { as: 'author', body: { status: 'checked_in' } });
      expect((await s.request('PATCH', path, { as: 'subscriber', body: { answer: 'not_going' } })).status).toBe(409);
      expect((await s.request('DELETE', path, { as: 'subscriber' })).status).toBe(409);
      expect((await s.get(`/events/${id}`, { as: null })).body.rsvp).toMatchObject({ going: 1, checked_in: 1 });
    });

    it('counts an RSVP without an account only once its address confirms it', async () => {
      const id = await openEvent(s, { anonymous: true, capacity: 1 });
      const claim = await anonymous(s, id, 'Una', 'una@example.org');
      const path = `/events/${id}/rsvps/${claim.id}`;
      const seat = await s.request('PATCH', path, { as: 'author', body: { status: 'going' } });
      expect(seat.status).toBe(409);
      expect(seat.body.code).toBe('rest_rsvp_status');
      // Declined before it was confirmed, it stays declined: its link, old or new, only gives a token.
      expect((await s.request('PATCH', path, { as: 'author', body: { status: 'declined' } })).body.status).toBe(
        'declined',
      );
      const code = await codeOf(s, claim.id);
      const used = await s.post(`/events/${id}/rsvps/${claim.id}/confirm`, { code }, { as: null });
      expect(used.body).toMatchObject({ status: 'declined' });
      await anonymous(s, id, 'Una again', 'una@example.org');
      const again = await s.post(
        `/events/${id}/rsvps/${claim.id}/confirm`,
        { code: await codeOf(s, claim.id) },
        { as: null },
      );
      expect(again.body).toMatchObject({ status: 'declined', name: 'Una' });
      expect((await s.get(`/events/${id}`, { as: null })).body.rsvp).toMatchObject({ going: 0, remaining: 1 });
    });

    it("gives an address's account its RSVP, over a stranger's claim", async () => {
      const id = await openEvent(s, { anonymous: true });
      const claim = await anonymous(s, id, 'Stranger', 'contributor@example.org');
      const code = await codeOf(s, claim.id);
      const mine = await s.post(`/events/${id}/rsvps`, {}, { as: 'contributor' });
      expect(mine.status, mine.text).toBe(201);
      expect(mine.body).toMatchObject({ id: claim.id, status: 'going', confirmed: true, name: 'contributor' });
      // The stranger's link no longer works, and a new request leaves the account's RSVP as it is.
      expect((await s.post(`/events/${id}/rsvps/${claim.id}/confirm`, { code }, { as: null })).status).toBe(403);
      await s.request('DELETE', `/events/${id}/rsvps/${claim.id}`, { as: 'contributor' });
      await anonymous(s, id, 'Stranger', 'contributor@example.org');
      const kept = await s.get(`/events/${id}/rsvps/${claim.id}`, { as: 'contributor' });
      expect(kept.body).toMatchObject({ name: 'contributor', status: 'cancelled', confirmed: true });
      const back = await s.request('PATCH', `/events/${id}/rsvps/${claim.id}`, {
        as: 'contributor',
        body: { answer: 'going' },
      });
      expect(back.body.status).toBe('going');
    });

    it('seats nobody from the waiting list once the event started', async () => {
      const id = await openEvent(s, { capacity: 1 }, '2020-07-10 19:00');
      const first = await s.post(
        `/events/${id}/rsvps`,
        { name: 'First', email: 'first@example.org' },
        { as: 'author' },
      );
      const second = await s.post(
        `/events/${id}/rsvps`,
        { name: 'Second', email: 'second@example.org' },
        { as: 'author' },
      );
      expect(second.body.status).toBe('waiting');
      await s.request('DELETE', `/events/${id}/rsvps/${first.body.id}`, { as: 'author' });
      expect((await s.get(`/events/${id}/rsvps/${second.body.id}`, { as: 'author' })).body.status).toBe('waiting');
      // Cancelled after it happened, it tells nobody.
      await s.post(`/events/${id}`, { event_status: 'canceled' });
      expect(await s.db.prisma.mailOutbox.count({ where: { eventId: id, kind: 'event-canceled' } })).toBe(0);
    });

    it('keeps a date people answered when its series drops it: cancelled, and they are told', async () => {
      const series = await openRsvpEvent(s, {}, { recurrence: ['RRULE:FREQ=WEEKLY;COUNT=3'] });
      const dates = async () =>
        (await s.get(`/events?post_parent=${series.id}&start_date=2043-05-01&end_date=2043-06-30&status=publish`)).body
          .events as { id: number; event_status: string; start_date: string }[];
      const [, second, third] = await dates();
      await s.post(`/events/${second.id}/rsvps`, { name: 'Kept', email: 'kept@example.org' }, { as: 'author' });
      // Two dates instead of three: the third, unanswered, goes; then the series is one event, and
      // the second, answered, stays, cancelled, and its RSVP with it.
      expect((await s.post(`/events/${series.id}`, { recurrence: ['RRULE:FREQ=WEEKLY;COUNT=2'] })).status).toBe(200);
      expect((await s.get(`/events/${third.id}`)).status).toBe(404);
      expect((await s.post(`/events/${series.id}`, { recurrence: [] })).status).toBe(200);
      const kept = await s.get(`/events/${second.id}`);
      expect(kept.status, kept.text).toBe(200);
      expect(kept.body).toMatchObject({ event_status: 'canceled', rsvp: { going: 1 } });
      expect(await s.db.prisma.mailOutbox.count({ where: { eventId: second.id, kind: 'event-canceled' } })).toBe(1);
    });

    it('tells those who answered an event moved to the trash, and again if it comes back and is cancelled', async () => {
      const event = await openRsvpEvent(s);
      await s.post(`/events/${event.id}/rsvps`, { name: 'Trash', email: 'trash@example.org' }, { as: 'author' });
      expect((await s.request('DELETE', `/events/${event.id}`)).status).toBe(200);
      await s.post(`/events/${event.id}`, { status: 'publish' });
      await s.post(`/events/${event.id}`, { event_status: 'canceled' });
      expect(await s.db.prisma.mailOutbox.count({ where: { eventId: event.id, kind: 'event-canceled' } })).toBe(2);
    });

    it('seats no claim nobody confirmed, whoever answers for it, and a new claim voids the old token', async () => {
      const id = await openEvent(s, { anonymous: true });
      const claim = await anonymous(s, id, 'Nobody', 'nobody@example.org');
      const path = `/events/${id}/rsvps/${claim.id}`;
      await s.request('PATCH', path, { as: 'author', body: { status: 'declined' } });
      expect((await s.request('PATCH', path, { as: 'author', body: { answer: 'going' } })).status).toBe(409);
      await s.request('DELETE', path, { as: 'author' });
      expect((await s.request('PATCH', path, { as: 'author', body: { answer: 'going' } })).status).toBe(409);

      const own = await anonymous(s, id, 'Owner', 'owner@example.org');
      const token = (
        await s.post(`/events/${id}/rsvps/${own.id}/confirm`, { code: await codeOf(s, own.id) }, { as: null })
      ).body.token as string;
      const withToken = { as: null, headers: { 'RSVP-Token': token } };
      await s.request('DELETE', `/events/${id}/rsvps/${own.id}`, withToken);
      await anonymous(s, id, 'Someone', 'owner@example.org');
      expect((await s.get(`/events/${id}/rsvps/${own.id}`, withToken)).status).toBe(404);
      expect((await s.get(`/events/${id}`, { as: null })).body.rsvp.going).toBe(0);
    });

    it('gives a seat freed before a postponement to the waiting list, not to a newcomer', async () => {
      const id = await openEvent(s, { capacity: 1 }, '2021-03-01 19:00');
      const first = await s.post(`/events/${id}/rsvps`, { name: 'First', email: 'p1@example.org' }, { as: 'author' });
      const second = await s.post(`/events/${id}/rsvps`, { name: 'Second', email: 'p2@example.org' }, { as: 'author' });
      await s.request('DELETE', `/events/${id}/rsvps/${first.body.id}`, { as: 'author' });
      // Closing RSVP after the start seats nobody either.
      await s.post(`/events/${id}`, { rsvp: { open: false } });
      expect((await s.get(`/events/${id}/rsvps/${second.body.id}`, { as: 'author' })).body.status).toBe('waiting');
      await s.post(`/events/${id}`, {
        start_date: '2043-03-01 19:00',
        end_date: '2043-03-01 23:00',
        rsvp: { open: true },
      });
      expect((await s.get(`/events/${id}/rsvps/${second.body.id}`, { as: 'author' })).body.status).toBe('going');
      expect((await s.post(`/events/${id}/rsvps`, {}, { as: 'subscriber' })).body.status).toBe('waiting');
    });

    it('tells what a claim taken over becomes, and nothing once the event is over', async () => {
      const id = await openEvent(s, { anonymous: true, approval: true });
      const claim = await anonymous(s, id, 'Stranger', 'contributor@example.org');
      const mine = await s.post(`/events/${id}/rsvps`, { answer: 'going' }, { as: 'contributor' });
      expect(mine.body).toMatchObject({ id: claim.id, status: 'pending' });
      const other = await anonymous(s, id, 'Stranger', 'subscriber@example.org');
      const declined = await s.post(`/events/${id}/rsvps`, { answer: 'not_going' }, { as: 'subscriber' });
      expect(declined.body).toMatchObject({ id: other.id, status: 'declined' });
      const kinds = async (rsvpId: number) =>
        (await s.db.prisma.mailOutbox.findMany({ where: { rsvpId }, orderBy: { id: 'asc' } })).map((m) => m.kind);
      expect(await kinds(claim.id)).toEqual(['confirm', 'pending']);
      expect(await kinds(other.id)).toEqual(['confirm']);

      const past = await openEvent(s, {}, '2020-03-01 19:00');
      const late = await s.post(
        `/events/${past}/rsvps`,
        { name: 'Late', email: 'late2@example.org' },
        { as: 'author' },
      );
      await s.request('PATCH', `/events/${past}/rsvps/${late.body.id}`, { as: 'author', body: { status: 'declined' } });
      expect(await kinds(late.body.id)).toEqual([]);
    });

    it('refuses hostile input with 4xx at the RSVP routes and page', async () => {
      const id = await openEvent(s, { anonymous: true });
      for (const name of ['a\u0000b', '   ', 'x'.repeat(251)]) {
        expect((await s.post(`/events/${id}/rsvps`, { name, email: 'nul@example.org' }, { as: null })).status).toBe(
          400,
        );
        expect((await s.post(`/events/${id}/rsvps`, { name, email: 'nul@example.org' }, { as: 'author' })).status).toBe(
          400,
        );
      }
      for (const query of [`event=${id}&rsvp=9999999999&token=abc`, `event=9999999999&rsvp=1&code=abc`]) {
        expect((await fetch(`${s.origin}/rsvp/?${query}`)).status).toBe(404);
      }
      // A link whose event was cancelled meanwhile says so on a page.
      const claim = await anonymous(s, id, 'Late', 'late@example.org');
      await s.post(`/events/${id}`, { event_status: 'canceled' });
      const form = new URLSearchParams({
        event: String(id),
        rsvp: String(claim.id),
        code: await codeOf(s, claim.id),
        action: 'confirm',
      });
      const page = await fetch(`${s.origin}/rsvp/`, { method: 'POST', body: form });
      expect(page.status).toBe(409);
      expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    });

    it('takes an RSVP without an account in a batch that applies all or none', async () => {
      const id = await openEvent(s, { anonymous: true });
      const r = await s.post(
        '/batch/v1',
        {
          validation: 'require-all-validate',
          requests: [
            {
              method: 'POST',
              path: `/calendar/events/v1/events/${id}/rsvps`,
              body: { name: 'Batch', email: 'batch@example.org' },
            },
          ],
        },
        { fromRoot: true, as: null },
      );
      expect(r.status, r.text).toBe(207);
      expect(r.body.responses[0].status).toBe(202);
    });
  },
  // Messages are queued where the service sends mail; none is sent here (no sender runs).
  { env: { SMTP_URL: 'smtp://127.0.0.1:9' } },
);
