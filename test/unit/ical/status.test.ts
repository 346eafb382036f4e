// A post's status and an event's status as STATUS, CLASS and X- properties, both ways
// (src/ical/status.ts): what the export writes, what the import takes back from another program's
// calendar, and what CalDAV takes back from a client's edit of what it was served.
import { describe, expect, it } from 'vitest';
import { POST_STATUSES } from '../../../src/domain/posts.js';
import { type EventStatus, readStatus, writtenStatus } from '../../../src/ical/status.js';
import { calendar, only, vevent } from './read.js';
import { read } from './read.js';

/** STATUS and CLASS as a reader is given them: '' when absent. */
const given = (status = '', privacy = '', eventStatus = '') => ({ status, class: privacy, eventStatus });

describe('STATUS and CLASS', () => {
  it('are written for each post status', () => {
    expect(Object.fromEntries(POST_STATUSES.map((s) => [s, writtenStatus(s)]))).toEqual({
      publish: { status: 'CONFIRMED', x: [] },
      future: { status: 'CONFIRMED', x: [] },
      private: { status: 'CONFIRMED', class: 'PRIVATE', x: [] },
      draft: { status: 'TENTATIVE', x: [] },
      pending: { status: 'TENTATIVE', x: [] },
      trash: { status: 'CANCELLED', x: [] },
    });
    expect(writtenStatus('auto-draft')).toEqual({ x: [] });
  });

  it('say CANCELLED for a cancelled event whatever its post status, and POSTPONED beside STATUS', () => {
    expect(writtenStatus('publish', 'canceled', 'Flooded')).toEqual({
      status: 'CANCELLED',
      x: [{ key: 'X-CALENDAR-EVENTS-STATUS-REASON', value: 'Flooded' }],
    });
    // CLASS stays as the post status says; a draft called off is CANCELLED too.
    expect(writtenStatus('private', 'canceled')).toEqual({ status: 'CANCELLED', class: 'PRIVATE', x: [] });
    expect(writtenStatus('draft', 'canceled').status).toBe('CANCELLED');
    expect(writtenStatus('publish', 'postponed', 'Ill')).toEqual({
      status: 'CONFIRMED',
      x: [
        { key: 'X-CALENDAR-EVENTS-STATUS', value: 'POSTPONED' },
        { key: 'X-CALENDAR-EVENTS-STATUS-REASON', value: 'Ill' },
      ],
    });
    // A scheduled event has no reason to give.
    expect(writtenStatus('publish', 'scheduled', 'left over')).toEqual({ status: 'CONFIRMED', x: [] });
  });

  it('read back by CalDAV give each status written the one a client confirming it keeps', () => {
    const events: EventStatus[] = ['scheduled', 'canceled', 'postponed'];
    const back = Object.fromEntries(
      POST_STATUSES.flatMap((s) =>
        events.map((e) => {
          const written = writtenStatus(s, e);
          const postponed = written.x.find((x) => x.key === 'X-CALENDAR-EVENTS-STATUS')?.value;
          const read = readStatus(given(written.status, written.class, postponed), 'caldav');
          return [`${s} ${e}`, `${read.status} ${read.eventStatus}`];
        }),
      ),
    );
    // What is read back is what the event is to the client: published, private or a draft, and its
    // event status. A cancelled draft reads as published: CalDAV writes only what the client
    // changed of what it was served (caldav/items.ts), so it stays a draft.
    expect(back).toEqual({
      'publish scheduled': 'publish scheduled',
      'publish canceled': 'publish canceled',
      'publish postponed': 'publish postponed',
      'future scheduled': 'publish scheduled',
      'future canceled': 'publish canceled',
      'future postponed': 'publish postponed',
      'private scheduled': 'private scheduled',
      'private canceled': 'private canceled',
      'private postponed': 'private postponed',
      'draft scheduled': 'draft scheduled',
      'draft canceled': 'publish canceled',
      'draft postponed': 'draft postponed',
      'pending scheduled': 'draft scheduled',
      'pending canceled': 'publish canceled',
      'pending postponed': 'draft postponed',
      'trash scheduled': 'publish canceled',
      'trash canceled': 'publish canceled',
      'trash postponed': 'publish canceled',
    });
  });

  it.each([
    // [STATUS, CLASS, X-CALENDAR-EVENTS-STATUS, the import's reading, CalDAV's]
    ['', '', '', 'publish scheduled', 'publish scheduled'],
    ['CONFIRMED', '', '', 'publish scheduled', 'publish scheduled'],
    ['TENTATIVE', '', '', 'publish scheduled', 'draft scheduled'],
    ['CANCELLED', '', '', 'publish canceled', 'publish canceled'],
    ['cancelled', '', '', 'publish canceled', 'publish canceled'],
    ['', 'PRIVATE', '', 'private scheduled', 'private scheduled'],
    ['', 'CONFIDENTIAL', '', 'private scheduled', 'private scheduled'],
    ['', 'PUBLIC', '', 'publish scheduled', 'publish scheduled'],
    ['CANCELLED', 'PRIVATE', '', 'private canceled', 'private canceled'],
    ['TENTATIVE', 'PRIVATE', '', 'private scheduled', 'private scheduled'],
    ['tentative', 'private', '', 'private scheduled', 'private scheduled'],
    ['CONFIRMED', '', 'POSTPONED', 'publish postponed', 'publish postponed'],
    ['TENTATIVE', '', 'postponed', 'publish postponed', 'draft postponed'],
    // Cancelled is cancelled, postponed or not.
    ['CANCELLED', '', 'POSTPONED', 'publish canceled', 'publish canceled'],
    ['CONFIRMED', '', 'SOMETHING', 'publish scheduled', 'publish scheduled'],
  ])('STATUS %j, CLASS %j and %j are %s to the import and %s to CalDAV', (status, privacy, x, imported, caldav) => {
    const shown = (r: ReturnType<typeof readStatus>) => `${r.status} ${r.eventStatus}`;
    expect(shown(readStatus(given(status, privacy, x), 'import'))).toBe(imported);
    expect(shown(readStatus(given(status, privacy, x), 'caldav'))).toBe(caldav);
  });

  it('are read from a VEVENT as the reader is told whose text it is', () => {
    const text = calendar(...vevent('UID:t', 'SUMMARY:T', 'DTSTART:20270301T090000Z', 'STATUS:TENTATIVE'));
    expect(only(text).body.status).toBe('publish');
    expect(read(text, { statuses: 'caldav' }).items[0].body.status).toBe('draft');
  });

  it('read a cancelled or postponed VEVENT with its reason, and no reason for one on schedule', () => {
    const event = (...lines: string[]) =>
      only(calendar(...vevent('UID:r', 'SUMMARY:R', 'DTSTART:20270301T090000Z', ...lines))).body;
    expect(event('STATUS:CANCELLED', 'X-CALENDAR-EVENTS-STATUS-REASON:Flooded\\, sorry')).toMatchObject({
      status: 'publish',
      event_status: 'canceled',
      event_status_reason: 'Flooded, sorry',
    });
    expect(event('X-CALENDAR-EVENTS-STATUS:POSTPONED')).toMatchObject({
      event_status: 'postponed',
      event_status_reason: '',
    });
    expect(event('STATUS:CONFIRMED', 'X-CALENDAR-EVENTS-STATUS-REASON:stale')).toMatchObject({
      event_status: 'scheduled',
      event_status_reason: '',
    });
  });
});
