// The mail sender of one instance: every `pollMs`, and shortly after a write nudges it, it takes the
// messages due from the queue (outbox.ts), writes and sends each, and deletes it once the SMTP
// server took it. Several instances may run it at once: a message is leased (its `due` moved past
// the lease, under FOR UPDATE SKIP LOCKED) before it is sent, so that no two send it, and one leased
// by an instance that died is sent again when the lease ends. A failed send is tried again with
// growing delays, MAX_ATTEMPTS times in all (about a day), then given up and reported.
import nodemailer, { type Transporter } from 'nodemailer';
import type { MailSettings } from '../config/mail.js';
import type { Database } from '../db/client.js';
import type { Urls } from '../http/urls.js';
import { mailMessages, trackMailQueue } from '../metrics/registry.js';
import { NotFound } from '../domain/errors.js';
import { readBack } from '../services/events/read.js';
import { invitationOf } from './invitation.js';
import { type MailTo, messageOf } from './messages.js';
import type { MailKind, MailSecrets } from './outbox.js';

/** How long a message is held by the instance sending it. */
const LEASE_SECONDS = 120;
/** Messages taken in one round. */
const BATCH = 20;
const MAX_ATTEMPTS = 12;
/** The nudge's delay: the writes of a busy moment are sent in one round. */
const NUDGE_DELAY_MS = 25;

export interface MailSender {
  nudge(): void;
  /** Sends what is due now, once (tests; the poll does it otherwise). */
  flush(): Promise<void>;
  stop(): Promise<void>;
}

interface Leased {
  id: bigint;
  kind: MailKind;
  event_id: number;
  rsvp_id: number | null;
  recipient: string;
  name: string;
  secrets: MailSecrets | null;
  attempts: number;
  check_in_code: string | null;
  submission_id: number | null;
  reason: string | null;
}

export interface SenderOptions {
  urls: Urls;
  mail: MailSettings;
  pollMs?: number;
  /** The first retry's delay; each next one doubles it, up to an hour. */
  retryBaseMs?: number;
}

export function startMailSender(db: Database, options: SenderOptions, onError: (err: unknown) => void): MailSender {
  const transport: Transporter | undefined = options.mail.smtpUrl
    ? nodemailer.createTransport({
        url: options.mail.smtpUrl,
        // A send ends, sent or failed, well within its lease, so that no other instance takes it meanwhile.
        connectionTimeout: 20_000,
        greetingTimeout: 20_000,
        socketTimeout: 60_000,
      })
    : undefined;
  let running: Promise<void> | undefined;
  // Set when work was asked for while a round ran: the running one goes round once more.
  let again = false;
  const askedAgain = () => again;
  let stopped = false;
  let nudged: NodeJS.Timeout | undefined;

  const round = (): Promise<void> => {
    if (running) {
      again = true;
      return running;
    }
    running = (async () => {
      do {
        again = false;
        while (!stopped && (await sendDue())) {
          // a full batch: there may be more
        }
      } while (askedAgain() && !stopped);
    })()
      .catch(onError)
      .finally(() => {
        running = undefined;
      });
    return running;
  };

  /** Sends one batch; answers whether it was full. */
  async function sendDue(): Promise<boolean> {
    const leased = await db.prisma.$queryRaw<Leased[]>`
      UPDATE mail_outbox SET due = now() + make_interval(secs => ${LEASE_SECONDS}), attempts = attempts + 1
      WHERE id IN (SELECT id FROM mail_outbox WHERE due <= now() ORDER BY due, id LIMIT ${BATCH} FOR UPDATE SKIP LOCKED)
      RETURNING id, kind, event_id, rsvp_id, recipient, name, secrets, attempts, submission_id,
        (SELECT check_in_code FROM rsvps r WHERE r.id = mail_outbox.rsvp_id) AS check_in_code,
        (SELECT reason FROM submissions s WHERE s.id = mail_outbox.submission_id) AS reason`;
    await Promise.all(leased.map((mail) => sendOne(mail)));
    return leased.length === BATCH;
  }

  async function sendOne(mail: Leased): Promise<void> {
    if (!transport) return done(mail, 'dropped');
    try {
      // An event deleted for good meanwhile has nothing left to say (its queued messages go with it,
      // migration rsvp_mail); any other failure to read it is tried again, as a failed send is.
      const row = await readBack(db.prisma, mail.event_id).catch((err: unknown) => {
        if (err instanceof NotFound) return undefined;
        throw err;
      });
      if (!row) {
        await done(mail, 'dropped');
        return;
      }
      const to: MailTo = {
        kind: mail.kind,
        eventId: mail.event_id,
        rsvpId: mail.rsvp_id,
        name: mail.name,
        secrets: mail.secrets,
        checkInCode: mail.check_in_code,
        submissionId: mail.submission_id,
        reason: mail.reason,
      };
      const message = messageOf(to, row, options.urls);
      const invitation = message.invitation
        ? await invitationOf(
            row,
            message.invitation,
            { name: mail.name, email: mail.recipient },
            {
              urls: options.urls,
              from: options.mail.from,
            },
          )
        : undefined;
      await transport.sendMail({
        from: options.mail.from,
        to: { name: mail.name, address: mail.recipient },
        subject: message.subject,
        text: message.text,
        // nodemailer sends it as the text/calendar alternative with its METHOD, as mail clients expect.
        ...(invitation && message.invitation ? { icalEvent: { method: message.invitation, content: invitation } } : {}),
      });
      await done(mail, 'sent');
    } catch (err) {
      if (mail.attempts >= MAX_ATTEMPTS) {
        await done(mail, 'failed');
        onError(new Error(`mail ${mail.id} (${mail.kind}) given up after ${mail.attempts} attempts: ${String(err)}`));
        return;
      }
      const delayMs = Math.min(3_600_000, (options.retryBaseMs ?? 30_000) * 2 ** (mail.attempts - 1));
      await db.prisma.$executeRaw`
        UPDATE mail_outbox SET due = now() + make_interval(secs => ${delayMs / 1000}) WHERE id = ${mail.id}`;
      mailMessages.inc({ outcome: 'retry' });
    }
  }

  /** The message leaves the queue: sent, given up or dropped; the queue keeps no copy. */
  async function done(mail: Leased, outcome: 'sent' | 'failed' | 'dropped'): Promise<void> {
    await db.prisma.$executeRaw`DELETE FROM mail_outbox WHERE id = ${mail.id}`;
    mailMessages.inc({ outcome });
  }

  // The queue as /metrics reports it.
  const untrack = trackMailQueue(async () => {
    const [{ n }] = await db.prisma.$queryRaw<{ n: number }[]>`SELECT count(*)::int AS n FROM mail_outbox`;
    return n;
  });
  const timer = setInterval(() => void round(), options.pollMs ?? 2000);
  timer.unref();
  return {
    nudge() {
      // Without SMTP_URL this instance queues no message (outbox.ts sendsMail) and sends none; its
      // polls still drop what others queued. A write's nudge would only ask the queue again.
      if (stopped || nudged || !transport) return;
      nudged = setTimeout(() => {
        nudged = undefined;
        void round();
      }, NUDGE_DELAY_MS);
    },
    flush: () => round(),
    async stop() {
      stopped = true;
      untrack();
      clearInterval(timer);
      clearTimeout(nudged);
      await running;
      transport?.close();
    },
  };
}
