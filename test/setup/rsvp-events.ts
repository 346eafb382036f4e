// Events open to RSVP for the RSVP tests (test/http/rsvp*.test.ts).
import { expect } from 'vitest';
import type { TestServer } from './server.js';

let n = 0;

/**
 * A published event open to RSVP with `rsvp`'s settings, by the author (an organiser of it), far
 * enough ahead not to close during the run unless `body` moves it; answers the event.
 */
export async function openRsvpEvent(
  s: TestServer,
  rsvp: Record<string, unknown> = {},
  body: Record<string, unknown> = {},
) {
  const r = await s.post(
    '/events',
    {
      title: `RSVP event ${++n}`,
      start_date: '2043-05-10 19:00',
      end_date: '2043-05-10 21:00',
      status: 'publish',
      rsvp: { open: true, ...rsvp },
      ...body,
    },
    { as: 'author' },
  );
  expect(r.status, r.text).toBe(201);
  return r.body;
}

/** An RSVP the organiser (the event's author) takes for someone by name, at `<name>@example.org`. */
export async function rsvpFor(s: TestServer, eventId: number, who: string, body: Record<string, unknown> = {}) {
  const r = await s.post(
    `/events/${eventId}/rsvps`,
    { name: who, email: `${who}@example.org`, ...body },
    { as: 'author' },
  );
  expect(r.status, r.text).toBe(201);
  return r.body;
}
