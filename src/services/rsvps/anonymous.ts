// RSVP without an account (docs/decisions.md, "RSVP"), where the event allows it and the service
// sends mail (config/mail.ts). The request is answered the same whether or not the address has an
// RSVP already, so that nobody learns who answered: a link goes to the address, and only its
// mailbox can use it. A new RSVP waits, pending and unconfirmed, counting for nothing; the link's
// one-use code confirms it (seated, waiting, or pending for the organiser, as any RSVP) and gives
// its owner a token that reads, changes and cancels it (write.ts lockedRsvp). For an address whose
// RSVP exists, the same link gives a new token: the way back for an owner who lost theirs.
import type { components } from '../../../generated/api.js';
import { forbidden } from '../../auth/permissions.js';
import type { Driver } from '../../db/driver.js';
import { InvalidInput, QuotaExceeded, RsvpRefused } from '../../domain/errors.js';
import { queueMail, statusMail } from '../../mail/outbox.js';
import {
  answerBefore,
  findRsvp,
  insertRsvp,
  lockRsvpEvent,
  type RsvpRow,
  rsvpSecrets,
  updateRsvpRow,
} from '../../queries/rsvps.js';
import type { ServiceContext } from '../context.js';
import { assertGuests, assertOpen, assertRsvpTarget, declinedByOrganiser, ENDED } from './access.js';
import { place } from './seats.js';
import { matches, newSecret } from '../secrets.js';
import { eventWrite } from './transaction.js';

type RsvpInput = components['schemas']['RsvpInput'];

/**
 * Sends a confirmation link for an RSVP of `input.email` to the event; answers when the link
 * expires. The RSVP is written (or taken up again, when it had ended) unconfirmed; one that exists
 * stays as it is until the link is used.
 */
export async function requestRsvp(ctx: ServiceContext, eventId: number, input: RsvpInput): Promise<Date> {
  const { mail } = ctx;
  return eventWrite(ctx, eventId, async (run) => {
    const event = assertRsvpTarget(null, eventId, await lockRsvpEvent(run, eventId));
    if (!event.anonymous) throw forbidden(null, 'Sign in to RSVP to this event.');
    if (!mail?.smtpUrl) {
      throw new RsvpRefused(
        'needs-confirmation',
        'RSVP without an account is confirmed by e-mail, which this service does not send (no SMTP_URL): sign in to RSVP.',
      );
    }
    assertOpen(event, new Date());
    const { name, email } = input;
    if (email === undefined || name === undefined) {
      throw new InvalidInput({
        ...(email === undefined ? { email: 'Your e-mail address: the confirmation link goes there.' } : {}),
        ...(name === undefined ? { name: 'Your name.' } : {}),
      });
    }
    const guests = input.guests ?? 0;
    assertGuests(event, guests);
    const code = newSecret();
    const expires = new Date(Date.now() + mail.confirmationHours * 3_600_000);
    const unconfirmed = { confirmHash: code.hash, confirmExpires: expires };
    const { existing } = await answerBefore(run, eventId, email);
    let rsvp: RsvpRow;
    if (!existing) {
      rsvp = await insertRsvp(run, {
        eventId,
        accountId: null,
        name: name.trim(),
        email,
        guests,
        answer: 'going',
        status: 'pending',
        unconfirmed,
      });
    } else if (startsAnew(existing)) {
      // Not counting yet, or ended by its owner: it waits for this link as a new one would.
      rsvp = await updateRsvpRow(run, existing.id, {
        name: name.trim(),
        guests,
        answer: 'going',
        status: 'pending',
        confirmed: false,
        ...unconfirmed,
        // A new claim: a token given for what it was opens it no more.
        tokenHash: null,
        anew: true,
      });
    } else {
      // It stands as it is (it counts, an account holds it, or the organisers declined it): the
      // link only gives its owner a new token.
      rsvp = await updateRsvpRow(run, existing.id, unconfirmed);
    }
    await queueMail(run, 'confirm', [rsvp.id], { code: code.text }, true);
    // The address's messages of the day, counted last (its row the last lock), so that a request
    // refused for any other reason counts for nothing.
    await chargeConfirmation(run, email, mail.confirmationsPerDay);
    return expires;
  });
}

/**
 * Whether a request without an account takes the address's RSVP up as a new one: one nobody holds
 * (no account), that the organisers did not decline, and that is not confirmed or ended by its owner.
 * An account's RSVP is never changed from here: a stranger must not unsettle it.
 */
const startsAnew = (existing: RsvpRow) =>
  existing.accountId === null &&
  !declinedByOrganiser(existing) &&
  (!existing.confirmed || ENDED.includes(existing.status));

/**
 * Counts a confirmation message to this address today, or refuses it (429 until the next day, UTC).
 * The conditional upsert is the read-modify-write: requests for one address queue on its row, and
 * only those that find room add one (migration rsvp_mail).
 */
async function chargeConfirmation(run: Driver, email: string, perDay: number): Promise<void> {
  const rows = await run(
    `INSERT INTO mail_requests AS m (address_hash, day, requests)
    VALUES (sha256(convert_to(lower($1::text), 'UTF8')), current_date, 1)
    ON CONFLICT (address_hash, day) DO UPDATE SET requests = m.requests + 1 WHERE m.requests < $2::int
    RETURNING requests`,
    [email, perDay],
  );
  if (!rows.length) {
    const tomorrow = Math.ceil((Date.now() + 1) / 86_400_000) * 86_400_000;
    throw new QuotaExceeded('confirmations', perDay, Math.max(1, Math.ceil((tomorrow - Date.now()) / 1000)));
  }
}

/**
 * Uses a confirmation link's code: the RSVP counts from now (unless it counted already) and its
 * owner gets a new token, answered here once and sent with the message that tells where the RSVP
 * stands. A code works once, until it expires; a wrong, used or expired one is refused alike.
 */
export async function confirmRsvp(
  ctx: ServiceContext,
  eventId: number,
  rsvpId: number,
  code: string,
): Promise<{ rsvp: RsvpRow; token: string }> {
  return eventWrite(ctx, eventId, async (run) => {
    const event = assertRsvpTarget(null, eventId, await lockRsvpEvent(run, eventId));
    const secrets = await rsvpSecrets(run, eventId, rsvpId);
    const rsvp = await findRsvp(run, eventId, rsvpId);
    const valid =
      matches(code, secrets?.confirmHash) && secrets?.confirmExpires && secrets.confirmExpires.getTime() > Date.now();
    if (!rsvp || !valid) {
      throw new RsvpRefused(
        'confirmation',
        'This link does not confirm an RSVP: it was used, or it expired. Ask for a new one.',
      );
    }
    const token = newSecret();
    const used = { confirmHash: null, confirmExpires: null, tokenHash: token.hash };
    // Only an RSVP waiting for this link is placed; any other (it counts already, or the organisers
    // declined it meanwhile) stays as it is, and its owner gets the token.
    if (rsvp.confirmed || rsvp.status !== 'pending') {
      return { rsvp: await updateRsvpRow(run, rsvp.id, used), token: token.text };
    }
    assertOpen(event, new Date());
    const status = await place(run, event, rsvp.guests, event.approval);
    const confirmed = await updateRsvpRow(run, rsvp.id, { ...used, confirmed: true, status, anew: true });
    const kind = statusMail(undefined, status);
    if (kind) await queueMail(run, kind, [confirmed.id], { token: token.text });
    return { rsvp: confirmed, token: token.text };
  });
}
