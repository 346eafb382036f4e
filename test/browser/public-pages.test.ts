// The pages that events', venues' and organizers' `url`s name, in Chromium: every `url` resolves to
// a readable page with the object's JSON-LD and, for an event, a link that adds it to a calendar;
// a cancelled or postponed event says so, an online one has its link to join; hostile text stays text; what is not public is a 404. Screenshots go to test-artifacts/.
import { describe, expect, it } from 'vitest';
import { chromiumAvailable, serverAndBrowser } from '../setup/chromium.js';

describe.runIf(chromiumAvailable)('the public pages in Chromium', () => {
  const suite = serverAndBrowser();

  it("shows an event at its url: what, when, where, who, its JSON-LD and an 'add to calendar' link", async () => {
    const { s, browser } = suite;
    const soon = new Date(Date.now() + 20 * 86_400_000).toISOString().slice(0, 10);
    const title = 'Jazz <script>window.hacked = true</script> & Friends';
    const event = (
      await s.post('/events', {
        title,
        description: '<p>An evening of standards.</p><img src=x onerror="window.hacked = true">',
        start_date: `${soon} 19:30`,
        end_date: `${soon} 22:00`,
        timezone: 'Europe/Paris',
        cost: '15',
        venue: { venue: 'Blue Note Hall', address: '131 W 3rd St', city: 'New York' },
        organizer: [{ organizer: 'Harbor Arts', email: 'hello@harborarts.example' }],
        categories: ['Concerts'],
      })
    ).body;
    const page = await browser.newPage({ viewport: { width: 1000, height: 800 } });
    const outside: string[] = [];
    await page.route('**/*', (route) => {
      const url = new URL(route.request().url());
      if (url.protocol === 'data:' || url.hostname === '127.0.0.1') return route.continue();
      outside.push(url.href);
      return route.abort();
    });
    const response = await page.goto(event.url, { waitUntil: 'load' });
    expect(response?.status()).toBe(200);
    await page.screenshot({ path: 'test-artifacts/event-page.png' });
    expect(await page.locator('h1').innerText()).toBe(title);
    expect(await page.title()).toBe(title);
    expect(await page.evaluate(() => (globalThis as { hacked?: boolean }).hacked)).toBeUndefined();
    const details = await page.locator('dl').innerText();
    expect(details).toContain('Blue Note Hall');
    expect(details).toContain('Harbor Arts');
    expect(details).toContain('7:30');
    expect(details).toContain('$15');
    expect(await page.locator('time').first().getAttribute('datetime')).toMatch(new RegExp(`^${soon}T19:30:00`));
    // The JSON-LD is the event's own, whole, whatever its title holds.
    const ld = JSON.parse((await page.locator('script[type="application/ld+json"]').textContent()) ?? '');
    expect(ld).toEqual((await s.get(`/events/${event.id}`)).body.json_ld);
    expect(ld['@type']).toBe('Event');
    // "Add to calendar" gives the event as iCalendar.
    const add = page.getByRole('link', { name: 'Add to calendar (.ics)' });
    const calendar = await fetch((await add.getAttribute('href')) ?? '');
    expect(calendar.headers.get('content-type')).toBe('text/calendar; charset=utf-8');
    expect(await calendar.text()).toContain(`UID:${event.global_id}`);
    // The venue's and organizer's links lead to their pages, which list the event.
    await page.getByRole('link', { name: 'Blue Note Hall' }).click();
    await page.waitForURL(event.venue.url);
    await page.screenshot({ path: 'test-artifacts/venue-page.png' });
    expect(await page.locator('h1').innerText()).toBe('Blue Note Hall');
    expect(await page.getByRole('link', { name: title }).getAttribute('href')).toBe(event.url);
    const venueLd = JSON.parse((await page.locator('script[type="application/ld+json"]').textContent()) ?? '');
    expect(venueLd['@type']).toBe('Place');
    await page.goto(event.organizer[0].url);
    expect(await page.locator('h1').innerText()).toBe('Harbor Arts');
    expect(outside).toEqual([]);
    await page.close();
  });

  it('says near the title that an event is cancelled or postponed, and why, with a link to join one online', async () => {
    const { s, browser } = suite;
    const soon = new Date(Date.now() + 30 * 86_400_000).toISOString().slice(0, 10);
    const times = { start_date: `${soon} 18:00`, end_date: `${soon} 20:00` };
    const hybrid = (
      await s.post('/events', {
        title: 'Harbor Lecture',
        ...times,
        venue: { venue: 'Harbor Library' },
        event_status: 'postponed',
        event_status_reason: 'The speaker is ill; a new date follows.',
        is_virtual: true,
        is_hybrid: true,
        virtual_url: 'https://meet.example.org/harbor-lecture',
      })
    ).body;
    const page = await browser.newPage({ viewport: { width: 1000, height: 800 } });
    await page.goto(hybrid.url);
    await page.screenshot({ path: 'test-artifacts/event-page-postponed.png' });
    // Read right after the title, the word first.
    const notice = page.locator('h1 + p');
    expect(await notice.innerText()).toBe('Postponed. The speaker is ill; a new date follows.');
    expect(await notice.locator('strong').innerText()).toBe('Postponed.');
    const join = page.getByRole('link', { name: 'Join online' });
    expect(await join.getAttribute('href')).toBe('https://meet.example.org/harbor-lecture');
    expect(await page.locator('dl').innerText()).toContain('Harbor Library');
    const ld = JSON.parse((await page.locator('script[type="application/ld+json"]').textContent()) ?? '');
    expect(ld).toMatchObject({
      eventStatus: 'https://schema.org/EventPostponed',
      eventAttendanceMode: 'https://schema.org/MixedEventAttendanceMode',
      location: [
        { '@type': 'Place', name: 'Harbor Library' },
        { '@type': 'VirtualLocation', url: 'https://meet.example.org/harbor-lecture' },
      ],
    });
    // In the reader's language: the page's words, not what the editors wrote.
    const french = await browser.newPage({ locale: 'fr-FR' });
    await french.goto(hybrid.url);
    expect(await french.locator('html').getAttribute('lang')).toBe('fr');
    expect(await french.locator('h1 + p').innerText()).toBe('Reporté. The speaker is ill; a new date follows.');
    expect(await french.getByRole('link', { name: 'Rejoindre en ligne' }).count()).toBe(1);
    await french.close();
    // Cancelled, without a reason: the word alone; taken offline, no link.
    await s.post(`/events/${hybrid.id}`, { event_status: 'canceled', event_status_reason: '', is_virtual: false });
    await page.reload();
    expect(await notice.innerText()).toBe('Cancelled.');
    expect(await page.getByRole('link', { name: 'Join online' }).count()).toBe(0);
    // The venue's page lists it as cancelled.
    await page.goto(hybrid.venue.url);
    expect(await page.getByRole('listitem').first().innerText()).toContain('Harbor Lecture (Cancelled)');
    // An event that happens as announced says nothing of it.
    const plain = (await s.post('/events', { title: 'Harbor Walk', ...times })).body;
    await page.goto(plain.url);
    expect(await page.locator('.status').count()).toBe(0);
    await page.close();
  });

  it('answers 404 with a page for what is missing or not public', async () => {
    const { s } = suite;
    const draft = (
      await s.post('/events', {
        title: 'Not yet',
        start_date: '2040-01-01 10:00',
        end_date: '2040-01-01 11:00',
        status: 'draft',
      })
    ).body;
    for (const url of [draft.url, `${s.origin}/event/no-such-event/`, `${s.origin}/venue/nowhere/`]) {
      const r = await fetch(url);
      expect(r.status, url).toBe(404);
      expect(r.headers.get('content-type'), url).toBe('text/html; charset=utf-8');
      expect(await r.text(), url).toContain('<h1>Not found</h1>');
    }
  });
});
