// A post's status as STATUS and CLASS, both ways (src/ical/status.ts): what the export writes, what
// the import takes back from another program's calendar, and what CalDAV takes back from a client's
// edit of what it was served.
import { describe, expect, it } from 'vitest';
import { POST_STATUSES } from '../../../src/domain/posts.js';
import { readStatus, writtenStatus } from '../../../src/ical/status.js';
import { calendar, only, vevent } from './read.js';
import { read } from './read.js';

/** STATUS and CLASS as a reader is given them: '' when absent. */
const given = (status = '', privacy = '') => ({ status, class: privacy });

describe('STATUS and CLASS', () => {
  it('are written for each post status', () => {
    expect(Object.fromEntries(POST_STATUSES.map((s) => [s, writtenStatus(s)]))).toEqual({
      publish: { status: 'CONFIRMED' },
      future: { status: 'CONFIRMED' },
      private: { status: 'CONFIRMED', class: 'PRIVATE' },
      draft: { status: 'TENTATIVE' },
      pending: { status: 'TENTATIVE' },
      trash: { status: 'CANCELLED' },
    });
    expect(writtenStatus('auto-draft')).toEqual({});
  });

  it('read back by CalDAV give each status written the one a client confirming it keeps', () => {
    const back = Object.fromEntries(
      POST_STATUSES.map((s) => {
        const written = writtenStatus(s);
        return [s, readStatus(given(written.status, written.class), 'caldav')];
      }),
    );
    // What is read back is what the event is to the client: published, private or a draft.
    expect(back).toEqual({
      publish: 'publish',
      future: 'publish',
      private: 'private',
      draft: 'draft',
      pending: 'draft',
      trash: 'draft',
    });
  });

  it.each([
    // [STATUS, CLASS, the import's reading, CalDAV's]
    ['', '', 'publish', 'publish'],
    ['CONFIRMED', '', 'publish', 'publish'],
    ['TENTATIVE', '', 'publish', 'draft'],
    ['CANCELLED', '', 'draft', 'draft'],
    ['', 'PRIVATE', 'private', 'private'],
    ['', 'CONFIDENTIAL', 'private', 'private'],
    ['', 'PUBLIC', 'publish', 'publish'],
    ['CANCELLED', 'PRIVATE', 'draft', 'private'],
    ['TENTATIVE', 'PRIVATE', 'private', 'private'],
    ['tentative', 'private', 'private', 'private'],
  ])('STATUS %j and CLASS %j are %s to the import and %s to CalDAV', (status, privacy, imported, caldav) => {
    expect(readStatus(given(status, privacy), 'import')).toBe(imported);
    expect(readStatus(given(status, privacy), 'caldav')).toBe(caldav);
  });

  it('are read from a VEVENT as the reader is told whose text it is', () => {
    const text = calendar(...vevent('UID:t', 'SUMMARY:T', 'DTSTART:20270301T090000Z', 'STATUS:TENTATIVE'));
    expect(only(text).body.status).toBe('publish');
    expect(read(text, { statuses: 'caldav' }).items[0].body.status).toBe('draft');
  });
});
