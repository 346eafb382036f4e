// How a remote ActivityStreams Event reads as an event of the API (src/federation/remote-event.ts):
// what is refused, and each field from the shapes Mobilizon, Gancio and this service write.
import { describe, expect, it } from 'vitest';
import { federationSettings } from '../../src/config/federation.js';
import { isBlocked } from '../../src/federation/remote-documents.js';
import { MAX_TAGS, remoteEventItem } from '../../src/federation/remote-event.js';

const base = {
  id: 'https://calendar.example.org/events/1',
  type: 'Event',
  name: 'Open air',
  startTime: '2031-06-21T19:00:00+02:00',
};

const read = (fields: Record<string, unknown>) => {
  const result = remoteEventItem({ ...base, ...fields }, 'America/Sao_Paulo');
  if ('refused' in result) throw new Error(result.refused);
  return result.item.body;
};

describe('a remote event read as an event', () => {
  it.each([
    [{ id: undefined }, 'the event has no http(s) id'],
    [{ id: 'urn:uuid:1' }, 'the event has no http(s) id'],
    [{ name: '  ' }, 'the event has no name'],
    [{ startTime: '21 June 2031' }, 'the event has no startTime with an offset'],
    [{ startTime: undefined }, 'the event has no startTime with an offset'],
  ])('refuses %j: %s', (fields, reason) => {
    expect(remoteEventItem({ ...base, ...fields }, 'UTC')).toEqual({ refused: reason });
  });

  it.each<[string, Record<string, unknown>, Record<string, unknown>]>([
    [
      'times in the event’s zone; an end before the start is the start',
      { timezone: 'Europe/Paris', endTime: '2031-06-21T18:00:00+02:00' },
      { start_date: '2031-06-21 19:00:00', end_date: '2031-06-21 19:00:00', timezone: 'Europe/Paris' },
    ],
    [
      'times in the site’s zone when the event names none, or one that is no zone',
      { timezone: 'Mars/Olympus', endTime: '2031-06-21T21:00:00Z' },
      { start_date: '2031-06-21 14:00:00', end_date: '2031-06-21 18:00:00', timezone: 'America/Sao_Paulo' },
    ],
    [
      'Gancio’s online event: a VirtualLocation alone',
      { location: [{ type: 'VirtualLocation', url: 'https://meet.example.org/room' }] },
      { is_virtual: true, is_hybrid: false, virtual_url: 'https://meet.example.org/room', venue: 0 },
    ],
    [
      'Mobilizon’s online event: isOnline and the "Website" link',
      {
        isOnline: true,
        attachment: [{ type: 'Link', name: 'Website', href: 'https://meet.example.org/x', mediaType: 'text/html' }],
      },
      { is_virtual: true, virtual_url: 'https://meet.example.org/x' },
    ],
    [
      'Mobilizon’s event in a place with a "Website" link: not online',
      { isOnline: false, attachment: [{ type: 'Link', name: 'Website', href: 'https://example.org' }] },
      { is_virtual: false, virtual_url: '' },
    ],
    [
      'an online address that is not https is left out',
      { isOnline: true, attachment: [{ type: 'Link', name: 'Website', href: 'http://meet.example.org/x' }] },
      { is_virtual: true, virtual_url: '' },
    ],
    [
      'this service’s image and its first venue of several',
      {
        image: { type: 'Image', url: 'https://calendar.example.org/uploads/1/poster.jpg' },
        location: [
          { type: 'Place', name: 'Hall A', address: { type: 'PostalAddress', addressLocality: 'Porto' } },
          { type: 'Place', name: 'Hall B' },
        ],
      },
      { image: 'https://calendar.example.org/uploads/1/poster.jpg', venue: { venue: 'Hall A', city: 'Porto' } },
    ],
    [
      'a Place without a name takes its street address; coordinates out of range are left out',
      { location: { type: 'Place', address: { streetAddress: '1 Main St' }, latitude: 91, longitude: 10 } },
      { venue: { venue: '1 Main St', address: '1 Main St' } },
    ],
    ['cancelled by `status` alone (Mobilizon 4 and later)', { status: 'CANCELLED' }, { event_status: 'canceled' }],
    ['TENTATIVE is no status of ours: scheduled', { 'ical:status': 'TENTATIVE' }, { event_status: 'scheduled' }],
    [
      'the summary when there is no content (Gancio), sanitised',
      { summary: '<b>Bold</b><iframe src="https://x.example"></iframe>' },
      { description: '<b>Bold</b>' },
    ],
    [
      'a page URL that is not http(s) falls back to the id',
      { url: 'javascript:alert(1)' },
      { website: 'https://calendar.example.org/events/1' },
    ],
  ])('reads %s', (_what, fields, expected) => {
    expect(read(fields)).toMatchObject(expected);
  });

  it('takes hashtags once each, without `#`, leaves out mentions and names of digits, and at most MAX_TAGS', () => {
    const tags = [
      { type: 'Hashtag', name: '#Jazz' },
      { type: 'Hashtag', name: '#jazz' },
      { type: 'Mention', name: '@ana@example.org' },
      { type: 'Hashtag', name: '#2031' },
      { type: 'Hashtag', name: '#a,b' },
      ...Array.from({ length: 40 }, (_, i) => ({ type: 'Hashtag', name: `#t${i}` })),
    ];
    const taken = read({ tag: tags }).tags as string[];
    expect(taken.slice(0, 2)).toEqual(['Jazz', 'a b']);
    expect(taken).toHaveLength(MAX_TAGS);
  });

  it('cuts a title to the API’s 500 characters and removes control characters', () => {
    const body = read({ name: `A\u0000B\u0007${'x'.repeat(600)}` });
    expect((body.title as string).startsWith('ABx')).toBe(true);
    expect(Array.from(body.title as string)).toHaveLength(500);
  });
});

describe('the instance blocklist', () => {
  it('blocks a host and its subdomains, nothing else', () => {
    const blocked = ['example.net', '10.0.0.1'];
    expect(isBlocked('https://example.net/actor', blocked)).toBe(true);
    expect(isBlocked('https://events.example.net/actor', blocked)).toBe(true);
    expect(isBlocked('https://notexample.net/actor', blocked)).toBe(false);
    expect(isBlocked('http://10.0.0.1:8080/x', blocked)).toBe(true);
    expect(isBlocked('not a url', blocked)).toBe(true);
  });

  it('reads FEDERATION_BLOCKED_HOSTS, and refuses a URL in it', () => {
    const site = 'https://calendar.example.org';
    expect(
      federationSettings({ FEDERATION_BLOCKED_HOSTS: ' Example.NET, spam.example  ' }, site)?.blockedHosts,
    ).toEqual(['example.net', 'spam.example']);
    expect(() => federationSettings({ FEDERATION_BLOCKED_HOSTS: 'https://example.net/' }, site)).toThrow(
      /FEDERATION_BLOCKED_HOSTS/,
    );
  });
});
