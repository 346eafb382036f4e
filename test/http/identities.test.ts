// Identities and permalinks come from the site's public address, not from the Host a client used:
// the same event has one global ID, one iCalendar UID and one page under every host name, while
// links into the API follow the request.
import http from 'node:http';
import { expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { describeEachDatabase } from '../setup/each-database.js';
import type { TestServer } from '../setup/server.js';

/** A GET with the given Host header (fetch would send the URL's own). */
function getWithHost(s: TestServer, path: string, host: string, accept = 'application/json') {
  const url = new URL(`${s.base}${path}`);
  return new Promise<{ status: number; text: string }>((resolve, reject) => {
    const req = http.request(
      {
        host: url.hostname,
        port: url.port,
        path: `${url.pathname}${url.search}`,
        headers: { Host: host, Accept: accept },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (text += chunk));
        res.on('end', () => {
          resolve({ status: res.statusCode ?? 0, text });
        });
      },
    );
    req.on('error', reject);
    req.end();
  });
}

async function createEvent(s: TestServer) {
  const created = await s.post('/events', {
    title: `Same everywhere ${Math.random().toString(36).slice(2, 8)}`,
    start_date: '2031-03-01 18:00',
    end_date: '2031-03-01 20:00',
    venue: { venue: `Identity hall ${Math.random().toString(36).slice(2, 8)}` },
  });
  expect(created.status).toBe(201);
  return created.body;
}

const uidOf = (calendar: string) => /^UID:(.*)$/m.exec(calendar)?.[1]?.trim();

describeEachDatabase('Identities by default', (s) => {
  it('gives one global ID, UID and permalink under localhost and 127.0.0.1, and request-relative REST URLs', async () => {
    const event = await createEvent(s);
    const port = new URL(s.origin).port;
    const [viaName, viaAddress] = await Promise.all(
      [`localhost:${port}`, `127.0.0.1:${port}`].map(async (host) =>
        JSON.parse((await getWithHost(s, `/events/${event.id}`, host)).text),
      ),
    );
    // The service listens on 127.0.0.1 in the tests: that is its address.
    expect(viaName.global_id).toBe(`127.0.0.1:${port}?id=${event.id}`);
    expect(viaAddress.global_id).toBe(viaName.global_id);
    expect(viaName.url).toBe(viaAddress.url);
    expect(viaName.url).toBe(`http://127.0.0.1:${port}/event/${event.slug}/`);
    expect(viaName.venue.global_id).toBe(viaAddress.venue.global_id);
    expect(viaName.venue.url).toBe(viaAddress.venue.url);
    expect(viaName.rest_url).toBe(`http://localhost:${port}/wp-json/calendar/events/v1/events/${event.id}`);
    expect(viaAddress.rest_url).toBe(`http://127.0.0.1:${port}/wp-json/calendar/events/v1/events/${event.id}`);
    const [uidByName, uidByAddress] = await Promise.all(
      [`localhost:${port}`, `127.0.0.1:${port}`].map(async (host) =>
        uidOf((await getWithHost(s, `/events/${event.id}.ics`, host, 'text/calendar')).text),
      ),
    );
    expect(uidByName).toBe(viaName.global_id);
    expect(uidByAddress).toBe(uidByName);
  });
});

describeEachDatabase(
  'Identities with PUBLIC_URL',
  (s) => {
    it('builds global IDs, UIDs and permalinks from PUBLIC_URL, whatever the Host', async () => {
      const event = await createEvent(s);
      const port = new URL(s.origin).port;
      for (const host of [`localhost:${port}`, 'calendar.internal']) {
        const body = JSON.parse((await getWithHost(s, `/events/${event.id}`, host)).text);
        expect(body.global_id).toBe(`events.example.org?id=${event.id}`);
        expect(body.url).toBe(`https://events.example.org/calendar/event/${event.slug}/`);
        expect(body.venue.url).toBe(`https://events.example.org/calendar/venue/${event.venue.slug}/`);
        expect(body.rest_url).toBe(`http://${host}/wp-json/calendar/events/v1/events/${event.id}`);
        const calendar = (await getWithHost(s, `/events/${event.id}.ics`, host, 'text/calendar')).text;
        expect(uidOf(calendar)).toBe(`events.example.org?id=${event.id}`);
      }
      const root = (await (await fetch(`${s.origin}/wp-json/`)).json()) as { url: string; home: string };
      expect(root.url).toBe('https://events.example.org/calendar');
      expect(root.home).toBe('https://events.example.org/calendar');
    });
  },
  { env: { PUBLIC_URL: 'https://events.example.org/calendar/' } },
);

it('refuses a PUBLIC_URL that is no http(s) address, naming the variable', () => {
  for (const value of [
    'events.example.org',
    'ftp://example.org',
    'https://u:p@example.org',
    'https://example.org/?a=1',
    'https://example.org/#x',
  ]) {
    expect(() => loadConfig({ PUBLIC_URL: value }), value).toThrow(/PUBLIC_URL/);
  }
  expect(loadConfig({ PUBLIC_URL: ' https://example.org/ ' }).publicUrl).toBe('https://example.org');
  expect(loadConfig({}).publicUrl).toBeUndefined();
});
