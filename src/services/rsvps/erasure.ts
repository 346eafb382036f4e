// Erasing one person's RSVPs at every event, at an administrator's request (GDPR article 17;
// docs/decisions.md, "RSVP"). The rows stay, without personal data, so that counts stay right.
//
// Concurrent RSVP writes: each round is one transaction that locks the events with an RSVP of the
// address, in ID order, before it touches any RSVP (queries/rsvp-erasure.ts), as every RSVP write
// locks its event first (seats.ts); a create for the address at one of them waits for the erasure
// and then finds no RSVP of the address there (a new one is a new answer). Seats freed are promoted
// in the same transaction, so the counts are exact whatever runs beside it. An RSVP of the address
// created at another event while a round runs is found by the next round: the erasure answers when
// a round finds none left. Erasure is rare and touches many events, so it does not go through the
// per-event queues of queue.ts; the row locks decide.
import { assertMay } from '../../auth/capabilities.js';
import { RsvpRefused } from '../../domain/errors.js';
import { sendsMail } from '../../mail/outbox.js';
import { eraseRsvpsOf, eventsAnsweredBy, lockEventsInOrder } from '../../queries/rsvp-erasure.js';
import type { ServiceContext } from '../context.js';
import { promote } from './seats.js';
import { rsvpTransaction } from './transaction.js';

/** Rounds before giving up on an address that keeps answering while being erased (503, try again). */
const MAX_ROUNDS = 5;

export async function eraseRsvps(ctx: ServiceContext, email: string): Promise<{ erased: number; events: number[] }> {
  assertMay(ctx.caller, 'administer rsvps');
  let erased = 0;
  const events = new Set<number>();
  for (let round = 0; round < MAX_ROUNDS; round++) {
    const done = await rsvpTransaction(ctx, async (run) => {
      const ids = await eventsAnsweredBy(run, email);
      if (!ids.length) return undefined;
      const locked = await lockEventsInOrder(run, ids, new Date());
      const rows = await eraseRsvpsOf(run, email, locked);
      for (const event of locked) if (!event.started) await promote(run, event, sendsMail(ctx));
      return rows;
    });
    if (!done) return { erased, events: [...events].sort((a, b) => a - b) };
    erased += done.length;
    for (const id of done) events.add(id);
  }
  throw new RsvpRefused('busy', 'This address keeps answering while its RSVPs are erased; try again in a moment.');
}
