// Taking, changing and cancelling RSVPs, each in one transaction that locks the event's row first
// (seats.ts says why and in which order), queued behind the event's other writes in this instance
// (transaction.ts). Signed-in callers answer for themselves; the event's organisers also for
// others, and approve, decline and check in (access.ts); without an account, RSVP is confirmed by
// e-mail (anonymous.ts), and its owner's token opens it. Every change of an RSVP's status tells its
// owner, in the same transaction (mail/outbox.ts).
import type { components } from '../../../generated/api.js';
import type { RsvpStatus, User } from '../../../generated/prisma/client.js';
import { assertMay } from '../../auth/capabilities.js';
import type { Driver } from '../../db/driver.js';
import { Forbidden, InvalidInput, NotFound, RsvpRefused } from '../../domain/errors.js';
import {
  answerBefore,
  findRsvp,
  insertRsvp,
  lockRsvpEvent,
  type RsvpEvent,
  type RsvpRow,
  rsvpSecrets,
  seatsTaken,
  updateRsvpRow,
} from '../../queries/rsvps.js';
import { queueMail, sendsMail, statusMail } from '../../mail/outbox.js';
import type { ServiceContext } from '../context.js';
import { chargeCreate } from '../quotas.js';
import { requestRsvp } from './anonymous.js';
import {
  assertGuests,
  assertOpen,
  assertRsvpTarget,
  declinedByOrganiser,
  ENDED,
  isOrganiser,
  ownsRsvp,
} from './access.js';
import { place, promote, seatsOf } from './seats.js';
import { matches } from '../secrets.js';
import { eventWrite } from './transaction.js';

type RsvpInput = components['schemas']['RsvpInput'];
type RsvpUpdate = components['schemas']['RsvpUpdate'];

const SEATED: RsvpStatus[] = ['going', 'checked_in'];

interface Target {
  event: RsvpEvent;
  organiser: boolean;
}

/** The event locked, checked as a target of RSVPs for this signed-in caller. */
export async function lockedTarget(run: Driver, ctx: ServiceContext, eventId: number): Promise<Target> {
  const event = assertRsvpTarget(ctx.caller, eventId, await lockRsvpEvent(run, eventId));
  return { event, organiser: isOrganiser(ctx.caller, event) };
}

/**
 * The owner of a new RSVP, or of one that changed status, is told (mail/outbox.ts), until the event
 * is over. `before` is what it was, if it counted: a claim nobody confirmed (anonymous.ts) did not.
 */
async function tell(
  ctx: ServiceContext,
  run: Driver,
  event: Pick<RsvpEvent, 'endUtc'>,
  before: Pick<RsvpRow, 'status' | 'confirmed'> | undefined,
  after: RsvpRow,
): Promise<void> {
  if (!sendsMail(ctx) || event.endUtc.getTime() <= Date.now()) return;
  const kind = statusMail(before?.confirmed ? before.status : undefined, after.status);
  if (kind) await queueMail(run, kind, [after.id]);
}

/**
 * A new RSVP, or one this e-mail address had cancelled or declined taken up again (one address has
 * one RSVP per event: migration rsvps). Organisers' RSVPs count at once, without approval, and may
 * be taken after RSVP closed.
 */
export async function createRsvp(
  ctx: ServiceContext,
  eventId: number,
  input: RsvpInput,
): Promise<RsvpRow | { requested: Date }> {
  const { caller } = ctx;
  if (caller === null) return { requested: await requestRsvp(ctx, eventId, input) };
  assertMay(caller, 'answer rsvps');
  // Read before the event's lock: the transaction that holds it does only what must be in it.
  const account = await ctx.db.user.findUniqueOrThrow({ where: { id: caller.id } });
  return eventWrite(ctx, eventId, async (run) => {
    const { event, organiser } = await lockedTarget(run, ctx, eventId);
    assertOpen(event, organiser ? undefined : new Date());
    const guests = input.guests ?? 0;
    assertGuests(event, guests);
    const who = person(account, input, organiser);
    const answer = input.answer ?? 'going';
    const { existing, seats } = await answerBefore(run, eventId, who.email);
    if (existing) assertTakenUp(existing, ctx, organiser);
    const status =
      answer === 'not_going' ? 'declined' : await place(run, event, guests, event.approval && !organiser, seats);
    const data = { ...who, guests, answer, status };
    // Taken up again, it joins the waiting list's order now; a new one takes its place by default.
    // An unconfirmed claim on the address (anonymous.ts) gives way: the account, or the organiser,
    // vouches for the address as its link would have.
    const vouched = { confirmed: true, confirmHash: null, confirmExpires: null };
    const written = existing
      ? await updateRsvpRow(run, existing.id, { ...data, ...vouched, anew: true })
      : await insertRsvp(run, { eventId, ...data });
    await tell(ctx, run, event, existing, written);
    // An account's RSVPs count among its creates of the hour (services/quotas.ts): its last lock.
    await chargeCreate(run, ctx);
    return written;
  });
}

/**
 * An RSVP from the same address may be taken up again when it ended (cancelled, or declined by its
 * owner; by the organisers, for them), or when nobody confirmed it yet: a claim without an account
 * on an address proves nothing, and must not keep the address's account, or the organisers, out.
 * Else 409, naming it to whoever may change it.
 */
function assertTakenUp(existing: RsvpRow, ctx: ServiceContext, organiser: boolean): void {
  if (!existing.confirmed && (organiser || !declinedByOrganiser(existing))) return;
  if (ENDED.includes(existing.status) && (organiser || !declinedByOrganiser(existing))) return;
  const yours = organiser || ownsRsvp(ctx.caller, existing) || existing.accountId === null;
  throw new RsvpRefused(
    'exists',
    `${existing.email} has an RSVP for this event already: change it${yours ? ` at rsvps/${existing.id}` : ''}.`,
    yours ? { rsvp_id: existing.id } : {},
  );
}

/**
 * Whose RSVP a create is: the caller's, named as its account is unless it sends a name, with its
 * account's e-mail address (another is confirmed by that address: anonymous.ts); an organiser's, anyone's it
 * names with `email` (and `name`).
 */
function person(account: Pick<User, 'id' | 'displayName' | 'email'>, input: RsvpInput, organiser: boolean) {
  const email = input.email ?? account.email;
  const other = email.toLowerCase() !== account.email.toLowerCase();
  if (other && !organiser) {
    throw new InvalidInput({
      email:
        "An RSVP for an address other than your account's is confirmed by that address: RSVP without signing in, where the event allows it.",
    });
  }
  if (other && input.name === undefined) throw new InvalidInput({ name: 'name is required with another e-mail.' });
  return {
    name: input.name?.trim() ?? account.displayName,
    email,
    accountId: other ? null : account.id,
  };
}

/**
 * The RSVP the caller may manage (its own, by its account or its owner's `token`, or any of an
 * organiser's event), locked after its event.
 */
async function lockedRsvp(run: Driver, ctx: ServiceContext, eventId: number, rsvpId: number, token?: string) {
  const target = await lockedTarget(run, ctx, eventId);
  const rsvp = await findRsvp(run, eventId, rsvpId);
  // Someone else's RSVP does not exist for the caller: its existence would say who answered.
  if (!rsvp || !(target.organiser || ownsRsvp(ctx.caller, rsvp) || (await holdsToken(run, rsvp, token)))) {
    throw new NotFound('rsvp', rsvpId);
  }
  return { ...target, rsvp };
}

/** Whether `token` is the RSVP's owner's (secrets.ts: compared in constant time). */
export async function holdsToken(run: Driver, rsvp: Pick<RsvpRow, 'id' | 'eventId'>, token: string | undefined) {
  if (!token) return false;
  return matches(token, (await rsvpSecrets(run, rsvp.eventId, rsvp.id))?.tokenHash);
}

/**
 * A change of an RSVP and its seats, then the waiting list seated as far as seats freed allow, in
 * one transaction. More guests than fit on a seated RSVP are refused and change nothing.
 */
export async function updateRsvp(
  ctx: ServiceContext,
  eventId: number,
  rsvpId: number,
  input: RsvpUpdate,
  token?: string,
): Promise<RsvpRow> {
  return eventWrite(ctx, eventId, async (run) => {
    const { event, organiser, rsvp } = await lockedRsvp(run, ctx, eventId, rsvpId, token);
    if (!organiser && (input.status !== undefined || input.email !== undefined)) {
      // 403 to an RSVP's owner by its token too: it is known, and may not do this.
      throw new Forbidden(true, "Only the event's organisers change an RSVP's status or e-mail address.");
    }
    if (!organiser) assertOwnersToChange(rsvp);
    if (input.guests !== undefined && input.guests > rsvp.guests) assertGuests(event, input.guests);
    const guests = input.guests ?? rsvp.guests;
    const status = await nextStatus(run, { event, organiser, rsvp, input, guests });
    if (SEATED.includes(status) && SEATED.includes(rsvp.status)) await assertRoom(run, event, rsvp, guests);
    const updated = await updateRsvpRow(run, rsvp.id, {
      name: input.name?.trim(),
      email: input.email,
      guests,
      answer: input.answer,
      status,
      // Approved, or answering `going` again: it joins the waiting list's order now.
      anew: ['pending', ...ENDED].includes(rsvp.status) && !ENDED.includes(status),
    });
    await tell(ctx, run, event, rsvp, updated);
    await promote(run, event, sendsMail(ctx));
    // Promotion may have seated this very RSVP (one that waits with fewer guests now).
    return updated.status === 'waiting' ? ((await findRsvp(run, eventId, updated.id)) ?? updated) : updated;
  });
}

/**
 * What its owner may no longer change: an RSVP the organisers declined (only they take it up
 * again), and one checked in (attendance is the organisers' record).
 */
function assertOwnersToChange(rsvp: RsvpRow): void {
  if (declinedByOrganiser(rsvp)) throw new RsvpRefused('status', "The event's organisers declined this RSVP.");
  if (rsvp.status === 'checked_in') {
    throw new RsvpRefused('status', "This RSVP is checked in: ask the event's organisers to change it.");
  }
}

/** More guests on a seated RSVP must fit in the seats left; else 409 and the RSVP keeps its guests. */
async function assertRoom(run: Driver, event: RsvpEvent, rsvp: RsvpRow, guests: number): Promise<void> {
  if (event.capacity === null || guests <= rsvp.guests) return;
  const taken = await seatsTaken(run, event.id);
  if (taken - seatsOf(rsvp.guests) + seatsOf(guests) <= event.capacity) return;
  const left = event.capacity - taken;
  throw new RsvpRefused(
    'no-room',
    `Only ${left} seat${left === 1 ? ' is' : 's are'} left: the RSVP keeps its ${rsvp.guests} guests.`,
    { remaining: left },
  );
}

interface Change {
  event: RsvpEvent;
  organiser: boolean;
  rsvp: RsvpRow;
  input: RsvpUpdate;
  guests: number;
}

/** The status a change leads to; a change of status that does not apply is refused (409). */
async function nextStatus(run: Driver, { event, organiser, rsvp, input, guests }: Change): Promise<RsvpStatus> {
  if (input.status === 'declined' || input.answer === 'not_going') return 'declined';
  if (input.status !== undefined) return statusSet(run, event, rsvp, input.status, guests);
  if (input.answer === 'going' && ENDED.includes(rsvp.status)) {
    if (!organiser && declinedByOrganiser(rsvp)) {
      throw new RsvpRefused('status', "The event's organisers declined this RSVP.");
    }
    // A claim nobody confirmed counts only by its link (anonymous.ts), whoever answers for it.
    if (!rsvp.confirmed) throw new RsvpRefused('status', 'This RSVP is not confirmed by its e-mail address yet.');
    if (!organiser) assertOpen(event, new Date());
    return place(run, event, guests, event.approval && !organiser);
  }
  // More guests ask for more seats: only while RSVP is open, for its owner.
  if (!organiser && guests > rsvp.guests) assertOpen(event, new Date());
  return rsvp.status;
}

/** What an organiser's `status` of `going` or `checked_in` leads to (`declined` needs no check). */
export async function statusSet(
  run: Driver,
  event: RsvpEvent,
  rsvp: RsvpRow,
  wanted: NonNullable<RsvpUpdate['status']>,
  guests: number,
): Promise<RsvpStatus> {
  const refuse = (message: string) => new RsvpRefused('status', message);
  // Not confirmed by its address: nobody is known to come (anonymous.ts); only a decline applies.
  if (!rsvp.confirmed) throw refuse('This RSVP is not confirmed by its e-mail address yet.');
  if (wanted === 'checked_in') {
    if (!SEATED.includes(rsvp.status))
      throw refuse(`Only a seated RSVP can be checked in; this one is ${rsvp.status}.`);
    return 'checked_in';
  }
  if (rsvp.status === 'pending') return place(run, event, guests, false);
  if (SEATED.includes(rsvp.status)) return 'going';
  const why = rsvp.status === 'waiting' ? 'it is seated when seats free' : 'its owner answers again';
  throw refuse(`A ${rsvp.status} RSVP cannot be made going: ${why}.`);
}

/** Cancels an RSVP (kept, cancelled) and seats the waiting list as far as its seats allow. */
export async function cancelRsvp(
  ctx: ServiceContext,
  eventId: number,
  rsvpId: number,
  token?: string,
): Promise<RsvpRow> {
  return eventWrite(ctx, eventId, async (run) => {
    const { event, organiser, rsvp } = await lockedRsvp(run, ctx, eventId, rsvpId, token);
    if (!organiser) assertOwnersToChange(rsvp);
    const cancelled = rsvp.status === 'cancelled' ? rsvp : await updateRsvpRow(run, rsvp.id, { status: 'cancelled' });
    await tell(ctx, run, event, rsvp, cancelled);
    await promote(run, event, sendsMail(ctx));
    return cancelled;
  });
}
