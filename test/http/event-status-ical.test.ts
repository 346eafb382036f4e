// An event's status and where it happens online as iCalendar (src/ical/status.ts, write-calendar.ts,
// read-online.ts) through the service, on both databases: the feed and a single event's .ics written
// for each status and for online and hybrid events, a weekly series with one date cancelled through
// the REST API read by ical.js (the other dates on, that one CANCELLED), and CalDAV clients that
// cancel an event or one date of a series, put it back on schedule, and add a link to join.
import ICAL from 'ical.js';
import { expect, it } from 'vitest';
import { describeEachDatabase } from '../setup/each-database.js';
import type { TestServer } from '../setup/server.js';

const WINDOW = 'start_date=2043-05-01&end_date=2043-06-30';

/** The feed of the window, series as their rule, as a reader without an account gets it. */
async function feed(s: TestServer, query = '') {
  const r = await s.get(`/events.ics?${WINDOW}&${query}`, { as: null });
  expect(r.status, r.text).toBe(200);
  return r.text;
}

/** The VEVENTs of a calendar, unfolded. */
const vevents = (text: string) =>
  text
    .replace(/\r\n[ \t]/g, '')
    .split('BEGIN:VEVENT')
    .slice(1);

const titled = (text: string, title: string) => vevents(text).filter((v) => v.includes(`SUMMARY:${title}\r\n`));

async function dav(s: TestServer, method: 'GET' | 'PUT', path: string, body?: string) {
  const user = s.users.editor;
  const response = await fetch(`${s.origin}${path}`, {
    method,
    headers: {
      authorization: `Basic ${Buffer.from(`${user.login}:${user.appPassword}`).toString('base64')}`,
      ...(body === undefined ? {} : { 'content-type': 'text/calendar; charset=utf-8' }),
    },
    body,
  });
  return { status: response.status, text: await response.text() };
}

const resource = (id: number) => `/caldav/calendars/events/${id}.ics`;

let n = 0;
async function weekly(s: TestServer, title: string) {
  const r = await s.post('/events', {
    title: `${title} ${++n}`,
    start_date: '2043-05-04 19:00:00',
    end_date: '2043-05-04 21:00:00',
    timezone: 'Europe/Berlin',
    recurrence: ['RRULE:FREQ=WEEKLY;COUNT=4'],
  });
  expect(r.status, r.text).toBe(201);
  const list = await s.get(`/events?post_parent=${r.body.id}&${WINDOW}&per_page=10`);
  expect(list.body.events).toHaveLength(4);
  return { series: r.body, occurrences: list.body.events as { id: number; start_date: string }[] };
}

/** The REST API's view of a series' dates: start and event status. */
async function dates(s: TestServer, series: { id: number }) {
  const r = await s.get(`/events?post_parent=${series.id}&${WINDOW}&per_page=10`);
  return r.body.events.map((e: any) => `${e.start_date} ${e.event_status}`);
}

describeEachDatabase('event status and online events as iCalendar', (s) => {
  it('writes each status: CANCELLED with its reason, a postponed event as scheduled with its X- property', async () => {
    const at = { start_date: '2043-05-10 10:00', end_date: '2043-05-10 11:00' };
    const off = (
      await s.post('/events', {
        title: 'Called off',
        ...at,
        event_status: 'canceled',
        event_status_reason: 'The hall flooded, sorry',
      })
    ).body;
    await s.post('/events', { title: 'Put off', ...at, event_status: 'postponed', event_status_reason: 'Ill' });
    await s.post('/events', { title: 'Going ahead', ...at });
    const text = await feed(s);
    const [cancelled] = titled(text, 'Called off');
    expect(cancelled).toContain('STATUS:CANCELLED\r\n');
    expect(cancelled).toContain('X-CALENDAR-EVENTS-STATUS-REASON:The hall flooded\\, sorry\r\n');
    const [postponed] = titled(text, 'Put off');
    expect(postponed).toContain('STATUS:CONFIRMED\r\n');
    expect(postponed).toContain('X-CALENDAR-EVENTS-STATUS:POSTPONED\r\n');
    const [on] = titled(text, 'Going ahead');
    expect(on).toContain('STATUS:CONFIRMED\r\n');
    expect(on).not.toContain('X-CALENDAR-EVENTS-STATUS');
    // The single event's .ics and CalDAV say the same.
    const single = await s.get(`/events/${off.id}.ics`, { as: null });
    expect(single.text).toContain('STATUS:CANCELLED\r\n');
    expect((await dav(s, 'GET', resource(off.id))).text).toContain('STATUS:CANCELLED\r\n');
    // A private cancelled event stays private, and out of what an anonymous reader gets.
    const secret = (
      await s.post('/events', {
        title: 'Secret off',
        ...at,
        status: 'private',
        event_status: 'canceled',
        is_virtual: true,
        virtual_url: 'https://meet.example.org/secret-room',
      })
    ).body;
    expect(text).not.toContain('Secret off');
    expect(await feed(s)).not.toContain('secret-room');
    const own = (await s.get(`/events/${secret.id}.ics`)).text.replace(/\r\n[ \t]/g, '');
    expect(own).toContain('CLASS:PRIVATE\r\n');
    expect(own).toContain('STATUS:CANCELLED\r\n');
    expect(own).toContain(
      'CONFERENCE;VALUE=URI;FEATURE=AUDIO,VIDEO;LABEL=Join online:https://meet.example.org/secret-room',
    );
  });

  it('writes the link of an online event as CONFERENCE, beside its venue when hybrid', async () => {
    const at = { start_date: '2043-05-12 18:00', end_date: '2043-05-12 19:00' };
    await s.post('/events', {
      title: 'Stream only',
      ...at,
      is_virtual: true,
      virtual_url: 'https://stream.example.org/live?room=7&lang=en',
    });
    await s.post('/events', {
      title: 'Hall and stream',
      ...at,
      is_virtual: true,
      is_hybrid: true,
      virtual_url: 'https://stream.example.org/hall',
      venue: { venue: 'Status Hall', address: '1 Main St' },
    });
    await s.post('/events', { title: 'Online with no link yet', ...at, is_virtual: true });
    const text = await feed(s);
    const [stream] = titled(text, 'Stream only');
    expect(stream).toContain(
      'CONFERENCE;VALUE=URI;FEATURE=AUDIO,VIDEO;LABEL=Join online:https://stream.example.org/live?room=7&lang=en\r\n',
    );
    expect(stream).not.toContain('LOCATION');
    const [hybrid] = titled(text, 'Hall and stream');
    expect(hybrid).toContain('LOCATION:Status Hall\\n1 Main St\r\n');
    expect(hybrid).toContain('Join online:https://stream.example.org/hall\r\n');
    expect(titled(text, 'Online with no link yet')[0]).not.toContain('CONFERENCE');
    // ical.js reads it as RFC 7986 defines it.
    const component = new ICAL.Component(ICAL.parse(text))
      .getAllSubcomponents('vevent')
      .find((v) => v.getFirstPropertyValue('summary') === 'Stream only');
    const conference = component?.getFirstProperty('conference');
    expect(conference?.getParameter('feature')).toBe('AUDIO,VIDEO');
    expect(conference?.getFirstValue()).toBe('https://stream.example.org/live?room=7&lang=en');
  });

  it('writes a weekly series with one date cancelled as its rule and that date CANCELLED, as ical.js reads it', async () => {
    const { series, occurrences } = await weekly(s, 'Choir');
    const r = await s.post(`/events/${occurrences[2].id}?scope=this`, {
      event_status: 'canceled',
      event_status_reason: 'Conductor away',
    });
    expect(r.status, r.text).toBe(200);
    const text = await feed(s, `search=${encodeURIComponent(series.title)}&single_events=false`);
    const calendar = new ICAL.Component(ICAL.parse(text));
    for (const zone of calendar.getAllSubcomponents('vtimezone')) ICAL.TimezoneService.register(zone);
    const components = calendar.getAllSubcomponents('vevent');
    expect(components).toHaveLength(2);
    const master = components.find((c) => !c.hasProperty('recurrence-id'))!;
    expect(master.getFirstPropertyValue('status')).toBe('CONFIRMED');
    const event = new ICAL.Event(master);
    for (const c of components) if (c !== master) event.relateException(c);
    const iterator = event.iterator();
    const shown: string[] = [];
    for (let next = iterator.next(); next; next = iterator.next()) {
      const details = event.getOccurrenceDetails(next);
      const status = details.item.component.getFirstPropertyValue('status');
      shown.push(`${details.startDate.toString()} ${String(status)}`);
    }
    expect(shown).toEqual([
      '2043-05-04T19:00:00 CONFIRMED',
      '2043-05-11T19:00:00 CONFIRMED',
      '2043-05-18T19:00:00 CANCELLED',
      '2043-05-25T19:00:00 CONFIRMED',
    ]);
    // Every date an event of its own (single_events): the same.
    const single = vevents(await feed(s, `search=${encodeURIComponent(series.title)}&single_events=true`));
    expect(single.map((v) => /STATUS:(\w+)/.exec(v)?.[1])).toEqual([
      'CONFIRMED',
      'CONFIRMED',
      'CANCELLED',
      'CONFIRMED',
    ]);
  });

  it('takes a CalDAV client cancelling one date of a series, then putting it back on schedule', async () => {
    const { series } = await weekly(s, 'Rehearsal');
    const served = await dav(s, 'GET', resource(series.id));
    expect(served.status).toBe(200);
    expect(served.text).not.toContain('RECURRENCE-ID');
    // As calendar apps write it: the date as an override of the series' UID, with STATUS:CANCELLED.
    const master = vevents(served.text)[0];
    const uid = /UID:(.*)\r\n/.exec(master)![1];
    const override = [
      'BEGIN:VEVENT',
      `UID:${uid}`,
      'DTSTAMP:20430101T000000Z',
      'RECURRENCE-ID;TZID=Europe/Berlin:20430511T190000',
      'DTSTART;TZID=Europe/Berlin:20430511T190000',
      'DTEND;TZID=Europe/Berlin:20430511T210000',
      `SUMMARY:${series.title}`,
      'STATUS:CANCELLED',
      'END:VEVENT',
      '',
    ].join('\r\n');
    const cancelled = served.text.replace(/END:VCALENDAR\r\n$/, `${override}END:VCALENDAR\r\n`);
    expect((await dav(s, 'PUT', resource(series.id), cancelled)).status).toBe(204);
    expect(await dates(s, series)).toEqual([
      '2043-05-04 19:00:00 scheduled',
      '2043-05-11 19:00:00 canceled',
      '2043-05-18 19:00:00 scheduled',
      '2043-05-25 19:00:00 scheduled',
    ]);
    expect((await s.get(`/events/${series.id}`)).body.event_status).toBe('scheduled');
    // Served back as it was sent: the date CANCELLED, the series not.
    const again = await dav(s, 'GET', resource(series.id));
    const [back, date] = vevents(again.text);
    expect(back).toContain('STATUS:CONFIRMED');
    expect(date).toContain('STATUS:CANCELLED');
    // The same text again changes nothing; the date confirmed is on schedule again.
    expect((await dav(s, 'PUT', resource(series.id), again.text)).status).toBe(204);
    expect((await dates(s, series))[1]).toBe('2043-05-11 19:00:00 canceled');
    const confirmed = again.text.replace(/(RECURRENCE-ID[\s\S]*?)STATUS:CANCELLED/, '$1STATUS:CONFIRMED');
    expect((await dav(s, 'PUT', resource(series.id), confirmed)).status).toBe(204);
    expect((await dates(s, series))[1]).toBe('2043-05-11 19:00:00 scheduled');
  });

  it('takes a CalDAV client cancelling an event and adding a link, and keeps what it did not change', async () => {
    const event = (
      await s.post('/events', {
        title: 'Workshop',
        start_date: '2043-06-02 09:00',
        end_date: '2043-06-02 12:00',
        event_status: 'postponed',
        event_status_reason: 'Room not ready',
        venue: { venue: 'Status Annex' },
      })
    ).body;
    const served = (await dav(s, 'GET', resource(event.id))).text;
    expect(served).toContain('X-CALENDAR-EVENTS-STATUS:POSTPONED');
    // A title changed alone leaves the status, its reason and the offline event as they were.
    const renamed = served.replace('SUMMARY:Workshop', 'SUMMARY:Workshop (new)');
    expect((await dav(s, 'PUT', resource(event.id), renamed)).status).toBe(204);
    expect((await s.get(`/events/${event.id}`)).body).toMatchObject({
      title: 'Workshop (new)',
      event_status: 'postponed',
      event_status_reason: 'Room not ready',
      is_virtual: false,
    });
    const text = (await dav(s, 'GET', resource(event.id))).text;
    // Not stored beside the event as a line the client wrote: served once.
    expect(text.match(/X-CALENDAR-EVENTS-STATUS:/g)).toHaveLength(1);
    const changed = text
      .replace('STATUS:CONFIRMED', 'STATUS:CANCELLED')
      .replace(
        /END:VEVENT/,
        'CONFERENCE;VALUE=URI;FEATURE=PHONE:tel:+1-555-0100\r\nCONFERENCE;VALUE=URI:https://meet.example.org/workshop\r\nEND:VEVENT',
      );
    expect((await dav(s, 'PUT', resource(event.id), changed)).status).toBe(204);
    expect((await s.get(`/events/${event.id}`)).body).toMatchObject({
      status: 'publish',
      event_status: 'canceled',
      is_virtual: true,
      is_hybrid: true,
      virtual_url: 'https://meet.example.org/workshop',
    });
    // The link written once as the service writes it, the phone number kept as the client wrote it.
    const after = (await dav(s, 'GET', resource(event.id))).text;
    expect(after.match(/CONFERENCE/g)).toHaveLength(2);
    expect(after).toMatch(/CONFERENCE;[A-Z=;]*FEATURE=PHONE[A-Z=;]*:tel:\+1-555-0100\r\n/);
    // A cancelled draft is served as CANCELLED too, and stays a draft when a client renames it.
    const draft = (
      await s.post('/events', {
        title: 'Draft off',
        start_date: '2043-06-03 09:00',
        end_date: '2043-06-03 10:00',
        status: 'draft',
        event_status: 'canceled',
      })
    ).body;
    const draftText = (await dav(s, 'GET', resource(draft.id))).text;
    expect(draftText).toContain('STATUS:CANCELLED\r\n');
    expect(
      (await dav(s, 'PUT', resource(draft.id), draftText.replace('SUMMARY:Draft off', 'SUMMARY:Draft off!'))).status,
    ).toBe(204);
    expect((await s.get(`/events/${draft.id}`)).body).toMatchObject({
      title: 'Draft off!',
      status: 'draft',
      event_status: 'canceled',
    });
    // Its CANCELLED and CONFERENCE removed: on schedule and offline again.
    const undone = after
      .replace('STATUS:CANCELLED', 'STATUS:CONFIRMED')
      .replace(/CONFERENCE;VALUE=URI;FEATURE=AUDIO,VIDEO[^\r]*\r\n/, '');
    expect((await dav(s, 'PUT', resource(event.id), undone)).status).toBe(204);
    expect((await s.get(`/events/${event.id}`)).body).toMatchObject({
      event_status: 'scheduled',
      event_status_reason: '',
      is_virtual: false,
      virtual_url: null,
    });
  });
});
