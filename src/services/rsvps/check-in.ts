// Checking an RSVP in at the door by the code it shows (docs/decisions.md, "RSVP"): the same change
// as an organiser's PATCH of `status` to `checked_in` (write.ts statusSet), found by code instead of
// ID, in the event's locked transaction, so that a check-in and a cancellation of the same RSVP
// happen one after the other, each seeing the other's result.
import { forbidden } from '../../auth/permissions.js';
import { RsvpRefused } from '../../domain/errors.js';
import { normaliseCheckInCode } from '../../lib/check-in-code.js';
import { findRsvpByCode, type RsvpRow, updateRsvpRow } from '../../queries/rsvps.js';
import type { ServiceContext } from '../context.js';
import { eventWrite } from './transaction.js';
import { lockedTarget, statusSet } from './write.js';

/**
 * The RSVP with this code checked in, for the event's organisers. Checked in already, it is answered
 * as it is, unchanged: a code scanned twice at the door is not an error, and its `modified_utc`
 * still says when it came in.
 */
export async function checkInByCode(ctx: ServiceContext, eventId: number, typed: string): Promise<RsvpRow> {
  const code = normaliseCheckInCode(typed);
  return eventWrite(ctx, eventId, async (run) => {
    const { event, organiser } = await lockedTarget(run, ctx, eventId);
    // Before the code is looked up: whether a code exists is the organisers' to know.
    if (!organiser) throw forbidden(ctx.caller, "Only the event's organisers check RSVPs in.");
    const rsvp = await findRsvpByCode(run, eventId, code);
    if (!rsvp) throw new RsvpRefused('unknown-code', `No RSVP of this event has the check-in code ${code}.`);
    if (rsvp.status === 'checked_in') return rsvp;
    const status = await statusSet(run, event, rsvp, 'checked_in', rsvp.guests);
    // Seats stay as they were (checked in is seated): nobody to promote.
    return updateRsvpRow(run, rsvp.id, { status });
  });
}
