// An event's status and where it happens (docs/decisions.md, "Cancelled, postponed, online") through
// the REST door and the batch door, on both databases: written, read, filtered, one date of a series
// cancelled alone, the change feed naming what changed, and the link to join kept from those who may
// not read the event.
import { expect, it } from 'vitest';
import { describeEachDatabase, itOnPostgres } from '../setup/each-database.js';
import { changesSince, feedEnd } from '../setup/feed.js';
import type { TestServer } from '../setup/server.js';

/** The events' dates lie beyond the list's default window of two years. */
const WINDOW = 'start_date=2042-03-01&end_date=2042-04-30 23:59:59';

let n = 0;
async function create(
  s: TestServer,
  body: Record<string, unknown> = {},
  as: 'administrator' | 'author' = 'administrator',
) {
  const r = await s.post(
    '/events',
    { title: `Status event ${++n}`, start_date: '2042-03-10 19:00', end_date: '2042-03-10 21:00', ...body },
    { as },
  );
  expect(r.status, r.text).toBe(201);
  return r.body;
}

async function listed(s: TestServer, query: string, search: string, as: 'administrator' | null = 'administrator') {
  const r = await s.get(`/events?${WINDOW}&per_page=50&search=${encodeURIComponent(search)}&${query}`, { as });
  expect(r.status, r.text).toBe(200);
  return r.body.events.map((e: { id: number }) => e.id);
}

describeEachDatabase('event status and online events', (s, kind) => {
  it('is scheduled and offline unless told, and takes every status with a reason', async () => {
    const plain = await create(s);
    expect(plain).toMatchObject({
      event_status: 'scheduled',
      event_status_reason: '',
      is_virtual: false,
      is_hybrid: false,
      virtual_url: null,
    });
    const cancelled = await create(s, { event_status: 'canceled', event_status_reason: '  The hall flooded.  ' });
    expect(cancelled).toMatchObject({ event_status: 'canceled', event_status_reason: 'The hall flooded.' });
    const postponed = await s.post(`/events/${plain.id}`, { event_status: 'postponed', event_status_reason: 'Ill' });
    expect(postponed.body).toMatchObject({ event_status: 'postponed', event_status_reason: 'Ill' });
    // An unrelated edit keeps both; back on schedule, the reason goes unless one is sent.
    const edited = await s.post(`/events/${plain.id}`, { title: 'Renamed status event' });
    expect(edited.body).toMatchObject({ event_status: 'postponed', event_status_reason: 'Ill' });
    const back = await s.post(`/events/${plain.id}`, { event_status: 'scheduled' });
    expect(back.body).toMatchObject({ event_status: 'scheduled', event_status_reason: '' });
    // The modelled service's spellings only.
    for (const wrong of ['cancelled', 'CANCELED', '', 'rescheduled', 1]) {
      const r = await s.post(`/events/${plain.id}`, { event_status: wrong });
      expect(r.status, `${String(wrong)}: ${r.text}`).toBe(400);
      expect(r.body.code).toBe('rest_invalid_param');
    }
    const long = await s.post(`/events/${plain.id}`, { event_status_reason: 'x'.repeat(2001) });
    expect(long.status).toBe(400);
  });

  it('takes an online event with its link, hybrid only when online, and only an https link', async () => {
    const online = await create(s, { is_virtual: true, virtual_url: 'https://meet.example.org/abc-def' });
    expect(online).toMatchObject({
      is_virtual: true,
      is_hybrid: false,
      virtual_url: 'https://meet.example.org/abc-def',
    });
    const hybrid = await s.post(`/events/${online.id}`, { is_hybrid: true });
    expect(hybrid.body).toMatchObject({ is_virtual: true, is_hybrid: true });
    // Taken offline, it is no longer hybrid; hybrid alone is refused, naming the field.
    const offline = await s.post(`/events/${online.id}`, { is_virtual: false });
    expect(offline.body).toMatchObject({ is_virtual: false, is_hybrid: false });
    const refused = await s.post(`/events/${online.id}`, { is_hybrid: true });
    expect(refused.status, refused.text).toBe(400);
    expect(refused.body.data.params).toHaveProperty('is_hybrid');
    const refusedCreate = await s.post('/events', {
      title: 'Hybrid but not online',
      start_date: '2042-03-10 19:00',
      end_date: '2042-03-10 20:00',
      is_hybrid: true,
    });
    expect(refusedCreate.status).toBe(400);
    for (const url of ['http://meet.example.org/x', 'javascript:alert(1)', 'meet.example.org', 'https://a b']) {
      const r = await s.post(`/events/${online.id}`, { virtual_url: url });
      expect(r.status, `${url}: ${r.text}`).toBe(400);
    }
    const cleared = await s.post(`/events/${online.id}`, { virtual_url: '' });
    expect(cleared.body.virtual_url).toBeNull();
  });

  it('keeps cancelled and postponed events in lists by default, and filters by status and by online', async () => {
    const tag = `statusfilter${Date.now()}`;
    const on = await create(s, { title: `${tag} on` });
    const off = await create(s, { title: `${tag} off`, event_status: 'canceled' });
    const later = await create(s, { title: `${tag} later`, event_status: 'postponed', is_virtual: true });
    expect((await listed(s, '', tag)).sort()).toEqual([on.id, off.id, later.id].sort());
    expect(await listed(s, '', tag, null)).toHaveLength(3);
    expect(await listed(s, 'event_status=scheduled', tag)).toEqual([on.id]);
    expect((await listed(s, 'event_status=canceled,postponed', tag)).sort()).toEqual([off.id, later.id].sort());
    expect(await listed(s, 'event_status=canceled&event_status=scheduled', tag)).toHaveLength(2);
    expect(await listed(s, 'is_virtual=true', tag)).toEqual([later.id]);
    expect(await listed(s, 'is_virtual=0', tag)).toHaveLength(2);
    const bad = await s.get(`/events?event_status=cancelled`);
    expect(bad.status).toBe(400);
    // The filter travels in the page links.
    const page = await s.get(`/events?${WINDOW}&per_page=1&search=${tag}&event_status=canceled,postponed`);
    expect(page.headers.get('link')).toContain('event_status=canceled%2Cpostponed');
  });

  it('cancels one date of a weekly series alone, and the series edited later leaves it cancelled', async () => {
    const series = await create(s, {
      title: `Weekly status series ${Date.now()}`,
      recurrence: ['RRULE:FREQ=WEEKLY;COUNT=4'],
    });
    const dates = await s.get(`/events?${WINDOW}&post_parent=${series.id}&per_page=10`);
    expect(dates.body.events).toHaveLength(4);
    const second = dates.body.events[1];
    const cancelled = await s.post(`/events/${second.id}?scope=this`, {
      event_status: 'canceled',
      event_status_reason: 'Public holiday',
    });
    expect(cancelled.status, cancelled.text).toBe(200);
    expect(cancelled.body).toMatchObject({ id: second.id, event_status: 'canceled', recurring_event_id: series.id });
    // The series goes online: every date follows, the cancelled one too (it showed the series' old
    // place), keeping its own status.
    const moved = await s.post(`/events/${series.id}`, { is_virtual: true, virtual_url: 'https://meet.example.org/w' });
    expect(moved.status, moved.text).toBe(200);
    const after = await s.get(`/events?${WINDOW}&post_parent=${series.id}&per_page=10`);
    const statuses = after.body.events.map((e: any) => [e.id === second.id, e.event_status, e.virtual_url]);
    expect(statuses).toEqual([
      [false, 'scheduled', 'https://meet.example.org/w'],
      [true, 'canceled', 'https://meet.example.org/w'],
      [false, 'scheduled', 'https://meet.example.org/w'],
      [false, 'scheduled', 'https://meet.example.org/w'],
    ]);
    // So say their JSON-LD: the cancelled date and the others, all online.
    const ld = async (id: number) => (await s.get(`/events/${id}`)).body.json_ld;
    const online = { '@type': 'VirtualLocation', url: 'https://meet.example.org/w' };
    expect(await ld(second.id)).toMatchObject({
      eventStatus: 'https://schema.org/EventCancelled',
      eventAttendanceMode: 'https://schema.org/OnlineEventAttendanceMode',
      location: online,
    });
    expect(await ld(after.body.events[2].id)).toMatchObject({
      eventStatus: 'https://schema.org/EventScheduled',
      eventAttendanceMode: 'https://schema.org/OnlineEventAttendanceMode',
      location: online,
    });
    // A date given a link of its own keeps it when the series' link changes (a leaked one replaced).
    await s.post(`/events/${second.id}?scope=this`, { virtual_url: 'https://meet.example.org/own' });
    await s.post(`/events/${series.id}`, { virtual_url: 'https://meet.example.org/new' });
    const relinked = await s.get(`/events?${WINDOW}&post_parent=${series.id}&per_page=10`);
    expect(relinked.body.events.map((e: any) => e.virtual_url.split('/').at(-1))).toEqual(['new', 'own', 'new', 'new']);
    // A third date moved alone, a fourth postponed alone; then the whole series is called off: the
    // moved date follows (it had the series' status), the postponed one keeps what was said of it.
    const [, , third, fourth] = after.body.events;
    await s.post(`/events/${third.id}?scope=this`, { start_date: third.start_date.replace('19:00', '18:00') });
    await s.post(`/events/${fourth.id}?scope=this`, { event_status: 'postponed', event_status_reason: 'Later' });
    await s.post(`/events/${series.id}`, { event_status: 'canceled', event_status_reason: 'Season over' });
    const called = await s.get(`/events?${WINDOW}&post_parent=${series.id}&per_page=10`);
    expect(called.body.events.map((e: any) => [e.event_status, e.event_status_reason])).toEqual([
      ['canceled', 'Season over'],
      ['canceled', 'Public holiday'],
      ['canceled', 'Season over'],
      ['postponed', 'Later'],
    ]);
    expect(called.body.events[2].start_date).toContain('18:00');
    // Back on schedule, the dates that followed it come back with it; the one cancelled alone, with a
    // reason of its own, stays so.
    await s.post(`/events/${series.id}`, { event_status: 'scheduled' });
    const back = await s.get(`/events?${WINDOW}&post_parent=${series.id}&per_page=10`);
    expect(back.body.events.map((e: any) => e.event_status)).toEqual([
      'scheduled',
      'canceled',
      'scheduled',
      'postponed',
    ]);
  });

  it('says in the change feed what a status change changed, and nothing for other edits', async () => {
    const event = await create(s);
    const cursor = await feedEnd(s);
    await s.post(`/events/${event.id}`, { event_status: 'canceled', event_status_reason: 'Storm' });
    const [cancel] = await changesSince(s, cursor);
    expect(cancel).toMatchObject({ id: event.id, action: 'updated', changed: ['event_status', 'event_status_reason'] });
    expect(cancel.object).toMatchObject({ event_status: 'canceled', event_status_reason: 'Storm' });
    const next = await feedEnd(s);
    await s.post(`/events/${event.id}`, { title: 'Quietly renamed', is_virtual: true, start_date: '2042-03-10 18:00' });
    const [rename] = await changesSince(s, next);
    expect(rename.changed).toEqual(['is_virtual', 'start_date']);
    const last = await feedEnd(s);
    await s.post(`/events/${event.id}`, { excerpt: 'Nothing people planning to come need' });
    const [quiet] = await changesSince(s, last);
    expect(quiet.changed).toEqual([]);
  });

  it('lets whoever may edit the event change it, and no one else', async () => {
    const mine = await create(s, {}, 'author');
    const byContributor = await s.post(`/events/${mine.id}`, { event_status: 'canceled' }, { as: 'contributor' });
    expect(byContributor.status).toBe(403);
    const anonymous = await s.post(`/events/${mine.id}`, { event_status: 'canceled' }, { as: null });
    expect(anonymous.status).toBe(401);
    const byEditor = await s.post(`/events/${mine.id}`, { event_status: 'canceled' }, { as: 'editor' });
    expect(byEditor.status, byEditor.text).toBe(200);
  });

  it("describes the status and where to attend in the event's JSON-LD: offline, online, hybrid", async () => {
    const url = 'https://meet.example.org/ld';
    const venue = { venue: { venue: 'Status Hall', city: 'Lyon' } };
    const ld = async (body: Record<string, unknown>) => {
      const event = await create(s, body);
      const r = await s.get(`/events/${event.id}`, { as: null });
      expect(r.status, r.text).toBe(200);
      return r.body.json_ld;
    };
    const place = { '@type': 'Place', name: 'Status Hall', address: { addressLocality: 'Lyon' } };
    const online = { '@type': 'VirtualLocation', url };
    const atVenue = await ld(venue);
    expect(atVenue).toMatchObject({
      eventStatus: 'https://schema.org/EventScheduled',
      eventAttendanceMode: 'https://schema.org/OfflineEventAttendanceMode',
      location: place,
    });
    // Online only: the venue is not where people attend, and no link leaves no location.
    const cancelled = await ld({ ...venue, event_status: 'canceled', is_virtual: true, virtual_url: url });
    expect(cancelled).toMatchObject({
      eventStatus: 'https://schema.org/EventCancelled',
      eventAttendanceMode: 'https://schema.org/OnlineEventAttendanceMode',
    });
    expect(cancelled.location).toStrictEqual(online);
    expect(await ld({ ...venue, is_virtual: true })).not.toHaveProperty('location');
    // Hybrid: both, the venue first; either alone when the other is missing.
    const both = await ld({ ...venue, event_status: 'postponed', is_virtual: true, is_hybrid: true, virtual_url: url });
    expect(both).toMatchObject({
      eventStatus: 'https://schema.org/EventPostponed',
      eventAttendanceMode: 'https://schema.org/MixedEventAttendanceMode',
      location: [place, online],
    });
    expect(both).not.toHaveProperty('previousStartDate');
    expect((await ld({ ...venue, is_virtual: true, is_hybrid: true })).location).toMatchObject(place);
    expect((await ld({ is_virtual: true, is_hybrid: true, virtual_url: url })).location).toStrictEqual(online);
  });

  it('shows the link to join a draft or private event only to those who may read it', async () => {
    const url = `https://meet.example.org/secret-${Date.now()}`;
    for (const status of ['draft', 'private']) {
      const hidden = await create(s, { status, is_virtual: true, virtual_url: url, title: `Hidden ${status} ${url}` });
      expect(hidden.virtual_url).toBe(url);
      const single = await s.get(`/events/${hidden.id}`, { as: null });
      expect([401, 403, 404]).toContain(single.status);
      expect(single.text).not.toContain(url);
      const list = await s.get(`/events?${WINDOW}&per_page=50`, { as: null });
      expect(list.text).not.toContain(url);
      const feed = await s.get('/changes?per_page=500', { as: null });
      expect(feed.text).not.toContain(url);
      const calendar = await s.get(`/events.ics?${WINDOW}`, { as: null });
      expect(calendar.text).not.toContain('secret-');
    }
  });

  it("puts the link to join on a public event's page alone, never on a page of a draft or private one", async () => {
    const hall = (await s.post('/venues', { venue: `Online hall ${Date.now()}` })).body;
    const host = (await s.post('/organizers', { organizer: `Online host ${Date.now()}` })).body;
    // Soon: a venue's page lists what is to come within the lists' default window.
    const soon = new Date(Date.now() + 20 * 86_400_000).toISOString().slice(0, 10);
    const times = { start_date: `${soon} 19:00`, end_date: `${soon} 20:00` };
    const links = { ...times, venue: hall.id, organizer: [host.id], is_virtual: true };
    const page = async (url: string) => {
      const r = await fetch(url);
      return { status: r.status, html: await r.text() };
    };
    const open = await create(s, { ...links, virtual_url: 'https://meet.example.org/open' });
    const shown = await page(open.url);
    expect(shown.status).toBe(200);
    expect(shown.html).toContain('<a href="https://meet.example.org/open">Join online</a>');
    const secret = `https://meet.example.org/secret-page-${Date.now()}`;
    for (const status of ['draft', 'private']) {
      const hidden = await create(s, { ...links, status, virtual_url: secret });
      expect((await page(hidden.url)).status).toBe(404);
    }
    // The venue's and organizer's pages list the public event, with no link to join any.
    for (const url of [open.url, hall.url, host.url]) {
      const { status, html } = await page(url);
      expect(status, url).toBe(200);
      expect(html, url).not.toContain(secret);
    }
    for (const url of [hall.url, host.url]) {
      const { html } = await page(url);
      expect(html, url).toContain(open.url);
      expect(html, url).not.toContain('meet.example.org');
    }
  });

  it("writes a page's own words in the reader's language: English, French, German, Spanish", async () => {
    const event = await create(s, {
      event_status: 'canceled',
      event_status_reason: 'Storm',
      is_virtual: true,
      virtual_url: 'https://meet.example.org/words',
    });
    const words = {
      en: ['Cancelled.', 'Join online'],
      fr: ['Annulé.', 'Rejoindre en ligne'],
      de: ['Abgesagt.', 'Online teilnehmen'],
      es: ['Cancelado.', 'Unirse en línea'],
    };
    for (const [asked, language] of [
      ['', 'en'],
      ['de-AT, en;q=0.5', 'de'],
      ['es', 'es'],
      ['it, fr;q=0.8', 'fr'],
      ['ja', 'en'],
    ] as const) {
      const r = await fetch(event.url, { headers: asked ? { 'accept-language': asked } : {} });
      const html = await r.text();
      expect(r.headers.get('content-language'), asked).toBe(language);
      expect(r.headers.get('vary'), asked).toContain('Accept-Language');
      expect(html, asked).toContain(`<html lang="${language}">`);
      const [status, join] = words[language];
      expect(html, asked).toContain(`<strong>${status}</strong> Storm</p>`);
      expect(html, asked).toContain(`>${join}</a>`);
    }
    const missing = await fetch(`${s.origin}/event/no-such-event-here/`, { headers: { 'accept-language': 'fr' } });
    expect(missing.status).toBe(404);
    expect(await missing.text()).toContain('<h1>Page introuvable</h1>');
  });

  itOnPostgres(
    kind,
    'never leaves an event hybrid and offline when one writer takes it offline as another makes it hybrid',
    'writers run one at a time on one connection',
    async () => {
      // Each update checks is_hybrid against the row it locked (services/events/scope.ts lockTarget),
      // and the table's constraint holds whatever the order.
      for (let round = 0; round < 10; round++) {
        const event = await create(s, { is_virtual: true });
        const [offline, hybrid] = await Promise.all([
          s.post(`/events/${event.id}`, { is_virtual: false }),
          s.post(`/events/${event.id}`, { is_hybrid: true }),
        ]);
        expect(offline.status, offline.text).toBe(200);
        expect([200, 400]).toContain(hybrid.status);
        // Either order ends offline and not hybrid: hybrid first is undone by going offline, and
        // hybrid second is refused.
        const stored = (await s.get(`/events/${event.id}`)).body;
        expect(stored).toMatchObject({ is_virtual: false, is_hybrid: false });
      }
    },
  );

  it('takes the fields in a batch as a request alone takes them', async () => {
    const event = await create(s);
    const r = await s.post(
      '/batch/v1',
      {
        requests: [
          { method: 'PATCH', path: `/calendar/events/v1/events/${event.id}`, body: { event_status: 'postponed' } },
          { method: 'PATCH', path: `/calendar/events/v1/events/${event.id}`, body: { is_hybrid: true } },
          {
            method: 'POST',
            path: '/calendar/events/v1/events',
            body: {
              title: 'Batched online',
              start_date: '2042-03-11 10:00',
              end_date: '2042-03-11 11:00',
              is_virtual: true,
              is_hybrid: true,
              virtual_url: 'https://meet.example.org/batched',
            },
          },
        ],
      },
      { fromRoot: true },
    );
    expect(r.status, r.text).toBe(207);
    const [postponed, hybrid, created] = r.body.responses;
    expect(postponed.status).toBe(200);
    expect(postponed.body.event_status).toBe('postponed');
    expect(hybrid.status).toBe(400);
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      is_virtual: true,
      is_hybrid: true,
      virtual_url: 'https://meet.example.org/batched',
    });
  });
});
