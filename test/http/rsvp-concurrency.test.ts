// Exactly N under concurrency (docs/decisions.md, "RSVP"): 300 RSVPs at once for 50 seats through
// two instances of the app, each with its own pool on the one PostgreSQL database, seat exactly 50;
// the rest wait, nothing fails (each instance queues the event's writes and holds one connection for
// them, services/rsvps/queue.ts, so the other requests never wait past the pool's limit: before the
// queue, some answered 503); cancellations then seat exactly as many from the waiting list, in the
// order it came.
import { expect } from 'vitest';
import { describeEachDatabase, itOnPostgres } from '../setup/each-database.js';
import { secondInstance } from '../setup/second-instance.js';

const SEATS = 50;
const RSVPS = 300;

describeEachDatabase('RSVP under concurrency', (s, kind) => {
  itOnPostgres(
    kind,
    'seats exactly 50 of 300 sent at once through two instances',
    'two pools on one database',
    async () => {
      const event = await s.post('/events', {
        title: 'Fifty seats',
        start_date: '2044-02-01 19:00',
        end_date: '2044-02-01 21:00',
        rsvp: { open: true, capacity: SEATS },
      });
      expect(event.status, event.text).toBe(201);
      const instance = await secondInstance(s);
      try {
        const second = instance.base;
        const answers = await Promise.all(
          Array.from({ length: RSVPS }, async (_, i) => {
            const r = await fetch(`${i % 2 ? second : s.base}/events/${event.body.id}/rsvps`, {
              method: 'POST',
              headers: { authorization: `Bearer ${s.users.editor.appPassword}`, 'content-type': 'application/json' },
              body: JSON.stringify({ name: `Person ${i}`, email: `person${i}@example.org` }),
            });
            return { status: r.status, body: (await r.json()) as { id: number; status: string } };
          }),
        );
        expect(answers.filter((a) => a.status !== 201)).toEqual([]);
        const going = answers.filter((a) => a.body.status === 'going');
        expect(going).toHaveLength(SEATS);
        expect(answers.filter((a) => a.body.status === 'waiting')).toHaveLength(RSVPS - SEATS);
        const stored = await s.db.prisma.rsvp.groupBy({
          by: ['status'],
          where: { eventId: event.body.id },
          _count: true,
        });
        expect(Object.fromEntries(stored.map((g) => [g.status, g._count]))).toEqual({
          going: SEATS,
          waiting: RSVPS - SEATS,
        });

        // Ten cancellations at once, through both instances: the first ten of the waiting list are seated.
        const waitingInOrder = await s.db.prisma.rsvp.findMany({
          where: { eventId: event.body.id, status: 'waiting' },
          orderBy: { arrival: 'asc' },
          take: 10,
        });
        const cancelled = await Promise.all(
          going.slice(0, 10).map(async (a, i) => {
            const r = await fetch(`${i % 2 ? second : s.base}/events/${event.body.id}/rsvps/${a.body.id}`, {
              method: 'DELETE',
              headers: { authorization: `Bearer ${s.users.editor.appPassword}` },
            });
            return r.status;
          }),
        );
        expect(cancelled).toEqual(Array(10).fill(200));
        const seated = await s.db.prisma.rsvp.findMany({
          where: { id: { in: waitingInOrder.map((r) => r.id) } },
          select: { status: true },
        });
        expect(seated.map((r) => r.status)).toEqual(Array(10).fill('going'));
        const counts = (await s.get(`/events/${event.body.id}`, { as: null })).body.rsvp;
        expect(counts).toMatchObject({ going: SEATS, waiting: RSVPS - SEATS - 10, remaining: 0 });
      } finally {
        await instance.close();
      }
    },
  );
});
