// The messages a change sends, queued in the change's own transaction (migration rsvp_mail): sent
// if and only if the change commits, by the sender of any instance (sender.ts), whatever happens to
// this process after the commit. Only who to tell, and about what, is queued; the message is written
// when it is sent, from the event as it is then (messages.ts).
import type { RsvpStatus } from '../../generated/prisma/client.js';
import type { Driver } from '../db/driver.js';
import type { ServiceContext } from '../services/context.js';

/**
 * What a message tells: `confirm` carries the one-use link of an RSVP without an account; `going`
 * (seated, with an invitation), `waiting`, `pending` (for the organiser's approval), `promoted`
 * (seated from the waiting list, with an invitation), `cancelled` (the RSVP ended, with a
 * cancellation for the calendar that had it); `event-canceled` is queued by a trigger on events.
 */
export type MailKind =
  'confirm' | 'going' | 'waiting' | 'pending' | 'promoted' | 'cancelled' | 'event-canceled' | SubmissionMailKind;

/** What a submission tells its submitter (services/submissions/mail.ts). */
export type SubmissionMailKind = 'submission-received' | 'submission-approved' | 'submission-rejected';

/** Secrets a message carries to its recipient alone: a link's one-use code, the owner's token. */
export interface MailSecrets {
  code?: string;
  token?: string;
}

const SEATED: RsvpStatus[] = ['going', 'checked_in'];
const EXPECTED: RsvpStatus[] = ['going', 'checked_in', 'waiting', 'pending'];

/**
 * Whether this service sends mail (config/mail.ts SMTP_URL): without it nothing is queued, so that
 * an RSVP write holding its event's lock writes no message that no one will send. (An event's
 * cancellation is queued by a trigger, which cannot know: the sender drops those.)
 */
export const sendsMail = (ctx: Pick<ServiceContext, 'mail'>) => Boolean(ctx.mail?.smtpUrl);

/** What an RSVP's move from `before` (none: new) to `after` tells its owner, if anything. */
export function statusMail(before: RsvpStatus | undefined, after: RsvpStatus): MailKind | undefined {
  if (before === after) return undefined;
  if (SEATED.includes(after)) return before !== undefined && SEATED.includes(before) ? undefined : 'going';
  if (after === 'waiting') return 'waiting';
  if (after === 'pending') return 'pending';
  // Declined or cancelled: told only to someone who expected the event (a new `not_going` did not).
  return before !== undefined && EXPECTED.includes(before) ? 'cancelled' : undefined;
}

/**
 * Queues `kind` to the owners of these RSVPs that have an address and are confirmed (an unconfirmed
 * RSVP is told only `confirm`, which `force` sends), in the caller's transaction.
 */
export async function queueMail(
  run: Driver,
  kind: MailKind,
  rsvpIds: number[],
  secrets?: MailSecrets,
  force = false,
): Promise<void> {
  if (!rsvpIds.length) return;
  await run(
    `INSERT INTO mail_outbox (kind, event_id, rsvp_id, recipient, name, secrets)
    SELECT $1::text, event_id, id, email, name, $3::jsonb FROM rsvps
    WHERE id = ANY($2::int[]) AND email IS NOT NULL AND (confirmed OR $4::boolean)`,
    [kind, rsvpIds, secrets ? JSON.stringify(secrets) : null, force],
  );
}
