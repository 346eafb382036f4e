// The words of each message (outbox.ts MailKind), written when it is sent from the event as it is
// then: its title, when and where, its page, and what the RSVP's owner can do next. Plain text in
// English; what the site's editors wrote (a title, a reason) is shown as written.
import { DateTime } from 'luxon';
import type { Principal } from '../auth/roles.js';
import type { EventRecord } from '../domain/records.js';
import type { Urls } from '../http/urls.js';
import { eventPermalink, readableLinks } from '../serializers/events.js';
import type { MailKind, MailSecrets, SubmissionMailKind } from './outbox.js';

/** Messages speak of the event as an administrator reads it (the recipient answered it). */
export const MAIL_READER: Principal = { id: 0, login: 'mail', role: 'administrator' };

export interface MailTo {
  kind: MailKind;
  eventId: number;
  rsvpId: number | null;
  name: string;
  secrets: MailSecrets | null;
  /** The RSVP's code for the door (services/rsvps/check-in.ts), printed when a seat is theirs. */
  checkInCode?: string | null;
  /** The submission a message is about, and the editors' reason when they rejected it. */
  submissionId?: number | null;
  reason?: string | null;
}

export interface Message {
  subject: string;
  text: string;
  /** Whether an iTIP invitation goes with it, and which (invitation.ts). */
  invitation?: 'REQUEST' | 'CANCEL';
}

/** Where the owner of an RSVP without an account confirms it, or cancels it with its token (pages/rsvp.ts). */
export const rsvpPageUrl = (
  urls: Urls,
  eventId: number,
  rsvpId: number,
  secret: { code: string } | { token: string },
) => {
  const query = new URLSearchParams({ event: String(eventId), rsvp: String(rsvpId), ...secret });
  return `${urls.site}/rsvp/?${query.toString()}`;
};

/** Where the submitter follows a submission, with its token (pages/submit.ts). */
export const submissionStatusUrl = (urls: Urls, submissionId: number, token: string) => {
  const query = new URLSearchParams({ submission: String(submissionId), token });
  return `${urls.site}/submit/status/?${query.toString()}`;
};

/** When, in the event's own zone. */
function when(row: EventRecord): string {
  const start = DateTime.fromJSDate(row.startLocal, { zone: 'UTC' });
  if (row.allDay) return start.toLocaleString(DateTime.DATE_HUGE, { locale: 'en' });
  const format = { ...DateTime.DATE_HUGE, hour: 'numeric' as const, minute: '2-digit' as const };
  return `${start.toLocaleString(format, { locale: 'en' })} (${row.timezone})`;
}

function about(row: EventRecord, urls: Urls): string {
  const { venues } = readableLinks(row, MAIL_READER);
  const lines = [row.title, `When: ${when(row)}`];
  if (venues[0]) lines.push(`Where: ${String(venues[0].title)}`);
  if (row.isVirtual) lines.push(`Online${row.virtualUrl ? `: ${row.virtualUrl}` : ''}`);
  lines.push(`More: ${eventPermalink(row.slug, urls)}`);
  return lines.join('\n');
}

/** The message of `mail` about `row`. */
export function messageOf(mail: MailTo, row: EventRecord, urls: Urls): Message {
  const title = row.title;
  const hello = `Hello ${mail.name},\n\n`;
  const event = `\n\n${about(row, urls)}\n`;
  const manage = manageText(mail, urls);
  if (isSubmissionMail(mail.kind)) return submissionMessage(mail, row, urls);
  switch (mail.kind) {
    case 'confirm':
      return {
        subject: `Confirm your RSVP: ${title}`,
        text: `${hello}Someone, we hope you, asked for an RSVP to this event with this address. It counts once you confirm it, within the link's life:\n\n${manage}\n\nIf it was not you, do nothing: it will be forgotten.${event}`,
      };
    case 'going':
      return {
        subject: `You're going: ${title}`,
        text: `${hello}Your place is kept. The invitation attached adds the event to your calendar.${door(mail)}${manage ? `\n\n${manage}` : ''}${event}`,
        invitation: 'REQUEST',
      };
    case 'promoted':
      return {
        subject: `A place is yours: ${title}`,
        text: `${hello}A place came free and it is yours now. The invitation attached adds the event to your calendar.${door(mail)}${event}`,
        invitation: 'REQUEST',
      };
    case 'waiting':
      return {
        subject: `On the waiting list: ${title}`,
        text: `${hello}The event is full, so your RSVP is on the waiting list. We will write again if a place comes free.${manage ? `\n\n${manage}` : ''}${event}`,
      };
    case 'pending':
      return {
        subject: `RSVP received: ${title}`,
        text: `${hello}The organisers approve each RSVP to this event; we will write again when they have.${manage ? `\n\n${manage}` : ''}${event}`,
      };
    case 'cancelled':
      return {
        subject: `RSVP cancelled: ${title}`,
        text: `${hello}Your RSVP to this event is cancelled. The cancellation attached takes it out of your calendar.${event}`,
        invitation: 'CANCEL',
      };
    case 'event-canceled':
      return {
        subject: `Cancelled: ${title}`,
        text: `${hello}This event is cancelled${row.eventStatusReason ? `: ${row.eventStatusReason}` : '.'} The cancellation attached takes it out of your calendar.${event}`,
        invitation: 'CANCEL',
      };
  }
}

const isSubmissionMail = (kind: MailKind): kind is SubmissionMailKind => kind.startsWith('submission-');

/** What a submission tells its submitter (services/submissions/mail.ts). */
function submissionMessage(mail: MailTo, row: EventRecord, urls: Urls): Message {
  const title = row.title;
  const hello = `Hello ${mail.name},\n\n`;
  const event = `\n\n${about(row, urls)}\n`;
  const submitted = `\n\n${title}\nWhen: ${when(row)}\n`;
  switch (mail.kind) {
    case 'submission-received': {
      const follow =
        mail.submissionId && mail.secrets?.token
          ? `\n\nFollow it here (keep this link to yourself):\n${submissionStatusUrl(urls, mail.submissionId, mail.secrets.token)}`
          : '';
      return {
        subject: `Submission received: ${title}`,
        text: `${hello}Thank you: your event waits for the editors, who read each one. We will write again when they have decided.${follow}${submitted}`,
      };
    }
    case 'submission-approved':
      return {
        subject: `Published: ${title}`,
        text: `${hello}The editors approved the event you suggested; it is on the calendar now.${event}`,
      };
    default:
      return {
        subject: `Not published: ${title}`,
        text: `${hello}The editors did not publish the event you suggested${mail.reason ? `, for this reason:\n\n${mail.reason}` : '.'}${submitted}`,
      };
  }
}

/** The check-in code, for the organisers at the door. */
const door = (mail: MailTo) => (mail.checkInCode ? `\n\nYour check-in code at the door: ${mail.checkInCode}` : '');

/** The link a message carries, if any: to confirm (with its code), or to see and cancel the RSVP (with the owner's token). */
function manageText(mail: MailTo, urls: Urls): string {
  const { code, token } = mail.secrets ?? {};
  if (mail.rsvpId === null) return '';
  if (code) return `Confirm: ${rsvpPageUrl(urls, mail.eventId, mail.rsvpId, { code })}`;
  if (token) {
    return [
      `See or cancel your RSVP: ${rsvpPageUrl(urls, mail.eventId, mail.rsvpId, { token })}`,
      `Keep this link to yourself: it is your RSVP's key. Apps can send it as the RSVP-Token header to ${urls.base}/events/${mail.eventId}/rsvps/${mail.rsvpId}.`,
    ].join('\n');
  }
  return '';
}
