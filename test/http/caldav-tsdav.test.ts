// A CalDAV client library, tsdav, as a web or mobile app would use it against the service: it
// discovers the calendars from the site's address, lists and reads events (by time range too),
// creates, changes and deletes them, and keeps a copy in step with sync-collection.
import { calendarMultiGet, DAVClient, type DAVCalendar, type DAVCalendarObject } from 'tsdav';
import { expect, it } from 'vitest';
import { describeEachDatabase } from '../setup/each-database.js';
import { settled } from '../setup/feed.js';
import type { TestServer } from '../setup/server.js';

async function signedIn(s: TestServer, role: 'editor' | 'subscriber' = 'editor') {
  const client = new DAVClient({
    serverUrl: `${s.origin}/caldav/`,
    credentials: { username: s.users[role].login, password: s.users[role].appPassword },
    authMethod: 'Basic',
    defaultAccountType: 'caldav',
  });
  await client.login();
  return client;
}

const event = (uid: string, summary: string, day = '20440110') =>
  [
    'BEGIN:VCALENDAR',
    'VERSION:2.0',
    'PRODID:-//tsdav test//EN',
    'BEGIN:VEVENT',
    `UID:${uid}`,
    'DTSTAMP:20260101T000000Z',
    `DTSTART:${day}T090000Z`,
    `DTEND:${day}T100000Z`,
    `SUMMARY:${summary}`,
    'END:VEVENT',
    'END:VCALENDAR',
    '',
  ].join('\r\n');

describeEachDatabase('tsdav against the CalDAV surface', (s) => {
  let calendar: DAVCalendar;

  it('discovers the calendars from the well-known address', async () => {
    await s.post('/categories', { name: 'Talks' });
    const client = await signedIn(s);
    const calendars = await client.fetchCalendars();
    const urls = calendars.map((c) => new URL(c.url).pathname);
    expect(urls).toEqual(expect.arrayContaining(['/caldav/calendars/events/', '/caldav/calendars/category-talks/']));
    calendar = calendars.find((c) => c.url.endsWith('/caldav/calendars/events/'))!;
    expect(calendar.displayName).toBe('Events');
    expect(calendar.components).toEqual(['VEVENT']);
    expect(calendar.syncToken).toMatch(/^urn:calendar-events:sync:/);
    expect(calendar.ctag).toBe(calendar.syncToken);
  });

  it('creates, reads, changes and deletes events, and syncs a copy', async () => {
    const client = await signedIn(s);
    const made = await client.createCalendarObject({
      calendar,
      filename: 'tsdav-one.ics',
      iCalString: event('tsdav-one', 'Made by tsdav'),
    });
    expect(made.status).toBe(201);
    await s.post('/events', {
      title: 'Made by the API',
      start_date: '2044-01-11 09:00:00',
      end_date: '2044-01-11 10:00:00',
    });

    const inJanuary = await client.fetchCalendarObjects({
      calendar,
      timeRange: { start: '2044-01-01T00:00:00Z', end: '2044-02-01T00:00:00Z' },
    });
    const summaries = inJanuary.map((o) => /SUMMARY:(.*)\r\n/.exec(String(o.data))?.[1]).sort();
    expect(summaries).toEqual(['Made by the API', 'Made by tsdav']);
    const mine = inJanuary.find((o) => String(o.data).includes('UID:tsdav-one'))!;
    expect(mine.etag).toMatch(/^"/);

    const objects: DAVCalendarObject[] = await client.fetchCalendarObjects({ calendar });
    // What it fetches the changed objects with (a calendar-multiget).
    const copy = { ...calendar, objects, objectMultiGet: calendarMultiGet };
    await settled(s);

    const changed = await client.updateCalendarObject({
      calendarObject: { ...mine, data: String(mine.data).replace('SUMMARY:Made by tsdav', 'SUMMARY:Changed by tsdav') },
    });
    expect(changed.status).toBe(204);
    const stale = await client.updateCalendarObject({ calendarObject: { ...mine, data: String(mine.data) } });
    expect(stale.status).toBe(412);
    const other = await s.post('/events', {
      title: 'Added later',
      start_date: '2044-01-12 09:00:00',
      end_date: '2044-01-12 10:00:00',
    });
    await settled(s);

    const synced = await client.smartCollectionSyncDetailed({ collection: copy, method: 'webdav' });
    const { created, updated, deleted } = synced.objects;
    expect(created.map((o) => new URL(o.url).pathname)).toEqual([`/caldav/calendars/events/${other.body.id}.ics`]);
    expect(updated.map((o) => new URL(o.url).pathname)).toEqual(['/caldav/calendars/events/tsdav-one.ics']);
    expect(deleted).toEqual([]);

    const fresh = (await client.fetchCalendarObjects({ calendar, objectUrls: [mine.url] }))[0];
    const removed = await client.deleteCalendarObject({ calendarObject: fresh });
    expect(removed.status).toBe(204);
    const after = await client.fetchCalendarObjects({ calendar });
    expect(after.some((o) => o.url === mine.url)).toBe(false);
  });

  it('gives a subscriber a calendar it may read and not write', async () => {
    const client = await signedIn(s, 'subscriber');
    const [events] = (await client.fetchCalendars()).filter((c) => c.url.endsWith('/events/'));
    const refused = await client.createCalendarObject({
      calendar: events,
      filename: 'by-subscriber.ics',
      iCalString: event('by-subscriber', 'Not allowed'),
    });
    expect(refused.status).toBe(403);
  });
});
