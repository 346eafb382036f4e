// An RSVP as its owner and the event's organisers read it (the document's Rsvp); only they are
// served it (services/rsvps/read.ts).
import type { components } from '../../generated/api.js';
import type { Rsvp } from '../../generated/prisma/client.js';
import { formatDateTime } from '../lib/dates.js';

export function serializeRsvp(
  row: Pick<
    Rsvp,
    | 'id'
    | 'eventId'
    | 'name'
    | 'email'
    | 'guests'
    | 'answer'
    | 'status'
    | 'checkInCode'
    | 'confirmed'
    | 'createdAt'
    | 'modifiedAt'
  >,
): components['schemas']['Rsvp'] {
  return {
    id: row.id,
    event: row.eventId,
    name: row.name,
    email: row.email,
    guests: row.guests,
    answer: row.answer,
    status: row.status,
    check_in_code: row.checkInCode,
    confirmed: row.confirmed,
    created_utc: formatDateTime(row.createdAt, 'UTC'),
    modified_utc: formatDateTime(row.modifiedAt, 'UTC'),
  };
}
