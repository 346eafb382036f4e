// Taking, changing and cancelling RSVPs, each in one transaction that locks the event's row first
// (seats.ts says why and in which order). Signed-in callers answer for themselves; the event's
// organisers also for others, and approve, decline and check in (access.ts). Anonymous RSVP waits
// for confirmation by e-mail (issue 53, phase 2).
import type { components } from '../../../generated/api.js';
import type { Rsvp, RsvpStatus, User } from '../../../generated/prisma/client.js';
import { assertMay } from '../../auth/capabilities.js';
import { forbidden } from '../../auth/permissions.js';
import type { Tx } from '../../db/client.js';
import { InvalidInput, NotFound, RsvpRefused } from '../../domain/errors.js';
import { answerBefore, lockRsvpEvent, nextArrival, type RsvpEvent, seatsTaken } from '../../queries/rsvps.js';
import type { ServiceContext } from '../context.js';
import { inTransaction } from '../retry.js';
import { assertOpen, assertRsvpTarget, isOrganiser, ownsRsvp } from './access.js';
import { place, promote, seatsOf } from './seats.js';

type RsvpInput = components['schemas']['RsvpInput'];
type RsvpUpdate = components['schemas']['RsvpUpdate'];

const SEATED: RsvpStatus[] = ['going', 'checked_in'];
/** Statuses an RSVP leaves by a new answer of `going` from the same address. */
const ENDED: RsvpStatus[] = ['declined', 'cancelled'];

interface Target {
  event: RsvpEvent;
  organiser: boolean;
}

/** The event locked, checked as a target of RSVPs for this signed-in caller. */
async function lockedTarget(tx: Tx, ctx: ServiceContext, eventId: number): Promise<Target> {
  const event = assertRsvpTarget(ctx.caller, eventId, await lockRsvpEvent(tx, eventId));
  return { event, organiser: isOrganiser(ctx.caller, event) };
}

/** Without an account, RSVP needs confirmation by e-mail (phase 2 of issue 53); until then, refused. */
async function refuseAnonymous(tx: Tx, ctx: ServiceContext, eventId: number): Promise<never> {
  const { event } = await lockedTarget(tx, ctx, eventId);
  if (event.anonymous) {
    throw new RsvpRefused(
      'needs-confirmation',
      'RSVP without an account needs confirmation by e-mail, which this service does not send yet (SMTP_URL); sign in to RSVP.',
    );
  }
  throw forbidden(null, 'Sign in to RSVP to this event.');
}

function assertGuests(event: RsvpEvent, guests: number | undefined): void {
  if (guests !== undefined && guests > event.guestsMax) {
    throw new InvalidInput({ guests: `This event takes ${event.guestsMax} guests per RSVP at most.` });
  }
}

/**
 * A new RSVP, or one this e-mail address had cancelled or declined taken up again (one address has
 * one RSVP per event: migration rsvps). Organisers' RSVPs count at once, without approval, and may
 * be taken after RSVP closed.
 */
export async function createRsvp(ctx: ServiceContext, eventId: number, input: RsvpInput): Promise<Rsvp> {
  const { caller } = ctx;
  if (caller === null) return inTransaction(ctx, (tx) => refuseAnonymous(tx, ctx, eventId));
  assertMay(caller, 'answer rsvps');
  // Read before the event's lock: the transaction that holds it does only what must be in it.
  const account = await ctx.db.user.findUniqueOrThrow({ where: { id: caller.id } });
  return inTransaction(ctx, async (tx) => {
    const { event, organiser } = await lockedTarget(tx, ctx, eventId);
    assertOpen(event, organiser ? undefined : new Date());
    const guests = input.guests ?? 0;
    assertGuests(event, guests);
    const who = person(account, input, organiser);
    const answer = input.answer ?? 'going';
    const before = await answerBefore(tx, eventId, who.email);
    const existing =
      before.existing === undefined ? null : await tx.rsvp.findUniqueOrThrow({ where: { id: before.existing } });
    if (existing) assertTakenUp(existing, ctx, organiser);
    const status =
      answer === 'not_going' ? 'declined' : await place(tx, event, guests, event.approval && !organiser, before.seats);
    const data = { ...who, guests, answer, status, modifiedAt: new Date() };
    // Taken up again, it joins the waiting list's order now; a new one takes its place by default.
    return existing
      ? tx.rsvp.update({ where: { id: existing.id }, data: { ...data, arrival: await nextArrival(tx) } })
      : tx.rsvp.create({ data: { eventId, ...data } });
  });
}

/**
 * An RSVP from the same address may be taken up again when it ended: cancelled, or declined by its
 * owner (or by the organisers, for them). Else 409, naming it to whoever may change it.
 */
function assertTakenUp(existing: Rsvp, ctx: ServiceContext, organiser: boolean): void {
  if (ENDED.includes(existing.status) && (organiser || !declinedByOrganiser(existing))) return;
  const yours = organiser || ownsRsvp(ctx.caller, existing) || existing.accountId === null;
  throw new RsvpRefused(
    'exists',
    `${existing.email} has an RSVP for this event already: change it${yours ? ` at rsvps/${existing.id}` : ''}.`,
    yours ? { rsvp_id: existing.id } : {},
  );
}

/** Turned down by the organiser rather than by its owner's answer: its owner cannot take it up again. */
const declinedByOrganiser = (rsvp: Rsvp) => rsvp.status === 'declined' && rsvp.answer === 'going';

/**
 * Whose RSVP a create is: the caller's, named as its account is unless it sends a name, with its
 * account's e-mail address (another would need confirming: phase 2); an organiser's, anyone's it
 * names with `email` (and `name`).
 */
function person(account: Pick<User, 'id' | 'displayName' | 'email'>, input: RsvpInput, organiser: boolean) {
  const email = input.email ?? account.email;
  const other = email.toLowerCase() !== account.email.toLowerCase();
  if (other && !organiser) {
    throw new InvalidInput({
      email:
        "An RSVP for an address other than your account's needs confirmation by e-mail, which this service does not send yet.",
    });
  }
  if (other && input.name === undefined) throw new InvalidInput({ name: 'name is required with another e-mail.' });
  return {
    name: input.name?.trim() ?? account.displayName,
    email,
    accountId: other ? null : account.id,
  };
}

/** The RSVP the caller may manage (its own, or any of an organiser's event), locked after its event. */
async function lockedRsvp(tx: Tx, ctx: ServiceContext, eventId: number, rsvpId: number) {
  const target = await lockedTarget(tx, ctx, eventId);
  const rsvp = await tx.rsvp.findFirst({ where: { id: rsvpId, eventId } });
  // Someone else's RSVP does not exist for the caller: its existence would say who answered.
  if (!rsvp || !(target.organiser || ownsRsvp(ctx.caller, rsvp))) throw new NotFound('rsvp', rsvpId);
  return { ...target, rsvp };
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
): Promise<Rsvp> {
  return inTransaction(ctx, async (tx) => {
    const { event, organiser, rsvp } = await lockedRsvp(tx, ctx, eventId, rsvpId);
    if (!organiser && (input.status !== undefined || input.email !== undefined)) {
      throw forbidden(ctx.caller, "Only the event's organisers change an RSVP's status or e-mail address.");
    }
    if (input.guests !== undefined && input.guests > rsvp.guests) assertGuests(event, input.guests);
    const guests = input.guests ?? rsvp.guests;
    const status = await nextStatus(tx, { event, organiser, rsvp, input, guests });
    if (SEATED.includes(status) && SEATED.includes(rsvp.status)) await assertRoom(tx, event, rsvp, guests);
    // Approved, or answering `going` again: it joins the waiting list's order now.
    const placedAnew = ['pending', ...ENDED].includes(rsvp.status) && !ENDED.includes(status);
    const updated = await tx.rsvp.update({
      where: { id: rsvp.id },
      data: {
        name: input.name?.trim(),
        email: input.email,
        guests,
        answer: input.answer,
        status,
        ...(placedAnew ? { arrival: await nextArrival(tx) } : {}),
        modifiedAt: new Date(),
      },
    });
    await promote(tx, event);
    return (await tx.rsvp.findUnique({ where: { id: updated.id } })) ?? updated;
  });
}

/** More guests on a seated RSVP must fit in the seats left; else 409 and the RSVP keeps its guests. */
async function assertRoom(tx: Tx, event: RsvpEvent, rsvp: Rsvp, guests: number): Promise<void> {
  if (event.capacity === null || guests <= rsvp.guests) return;
  const taken = await seatsTaken(tx, event.id);
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
  rsvp: Rsvp;
  input: RsvpUpdate;
  guests: number;
}

/** The status a change leads to; a change of status that does not apply is refused (409). */
async function nextStatus(tx: Tx, { event, organiser, rsvp, input, guests }: Change): Promise<RsvpStatus> {
  if (input.status === 'declined' || input.answer === 'not_going') return 'declined';
  if (input.status !== undefined) return statusSet(tx, event, rsvp, input.status, guests);
  if (input.answer === 'going' && ENDED.includes(rsvp.status)) {
    if (!organiser && declinedByOrganiser(rsvp)) {
      throw new RsvpRefused('status', "The event's organisers declined this RSVP.");
    }
    if (!organiser) assertOpen(event, new Date());
    return place(tx, event, guests, event.approval && !organiser);
  }
  // More guests ask for more seats: only while RSVP is open, for its owner.
  if (!organiser && guests > rsvp.guests) assertOpen(event, new Date());
  return rsvp.status;
}

/** What an organiser's `status` of `going` or `checked_in` leads to (`declined` needs no check). */
async function statusSet(
  tx: Tx,
  event: RsvpEvent,
  rsvp: Rsvp,
  wanted: NonNullable<RsvpUpdate['status']>,
  guests: number,
): Promise<RsvpStatus> {
  const refuse = (message: string) => new RsvpRefused('status', message);
  if (wanted === 'checked_in') {
    if (!SEATED.includes(rsvp.status))
      throw refuse(`Only a seated RSVP can be checked in; this one is ${rsvp.status}.`);
    return 'checked_in';
  }
  if (rsvp.status === 'pending') return place(tx, event, guests, false);
  if (SEATED.includes(rsvp.status)) return 'going';
  const why = rsvp.status === 'waiting' ? 'it is seated when seats free' : 'its owner answers again';
  throw refuse(`A ${rsvp.status} RSVP cannot be made going: ${why}.`);
}

/** Cancels an RSVP (kept, cancelled) and seats the waiting list as far as its seats allow. */
export async function cancelRsvp(ctx: ServiceContext, eventId: number, rsvpId: number): Promise<Rsvp> {
  return inTransaction(ctx, async (tx) => {
    const { event, rsvp } = await lockedRsvp(tx, ctx, eventId, rsvpId);
    const cancelled =
      rsvp.status === 'cancelled'
        ? rsvp
        : await tx.rsvp.update({ where: { id: rsvp.id }, data: { status: 'cancelled', modifiedAt: new Date() } });
    await promote(tx, event);
    return cancelled;
  });
}
