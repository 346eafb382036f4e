// The event as an iTIP message (RFC 5546) attached to a message, which mail clients offer to add to
// the recipient's calendar (REQUEST) or take out of it (CANCEL): the export's own VEVENT
// (ical/write-calendar.ts), with the recipient as its one ATTENDEE and the service as ORGANIZER.
import addressparser from 'nodemailer/lib/addressparser/index.js';
import type { EventRecord } from '../domain/records.js';
import type { Urls } from '../http/urls.js';
import { eventsCalendar } from '../ical/write-calendar.js';
import { MAIL_READER } from './messages.js';

/** 2020-01-01 in seconds: SEQUENCE counts seconds from it, so that each message of an event outranks the one before. */
const SEQUENCE_EPOCH = 1_577_836_800;

export async function invitationOf(
  row: EventRecord,
  method: 'REQUEST' | 'CANCEL',
  to: { name: string; email: string },
  { urls, from }: { urls: Urls; from: string },
): Promise<string> {
  const calendar = await eventsCalendar([row], {
    urls,
    caller: MAIL_READER,
    name: row.title,
    invitation: {
      method,
      organizer: organizerOf(from),
      attendee: to,
      sequence: Math.max(0, Math.floor(Date.now() / 1000) - SEQUENCE_EPOCH),
    },
  });
  return calendar.toString('utf8');
}

/** The From address as ORGANIZER: its name and address. */
function organizerOf(from: string): { name: string; email: string } {
  const [first] = addressparser(from, { flatten: true });
  return { name: first?.name || 'Calendar', email: first?.address || from };
}
