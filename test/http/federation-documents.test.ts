// The ActivityStreams documents of events (src/federation/activity-streams.ts): served at the
// event's permalink by content negotiation and at its federation id, read by @fedify/vocab, and
// carrying what the peers read of them, as their own code reads it.
import { Event, Hashtag, Place } from '@fedify/vocab';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { databaseKinds } from '../setup/databases.js';
import { federatedInstance } from '../setup/federated-instance.js';
import { photo, uploadForm } from '../setup/images.js';

const AS = { accept: 'application/activity+json' };
const LD = { accept: 'application/ld+json; profile="https://www.w3.org/ns/activitystreams"' };

describe.each(databaseKinds)('federation documents on %s', (kind) => {
  let a: Awaited<ReturnType<typeof federatedInstance>>;
  let event: Record<string, any>;
  let doc: Record<string, any>;

  beforeAll(async () => {
    a = await federatedInstance(kind);
    const form = await uploadForm(await photo(400, 300), 'poster.jpg');
    const media = (await (
      await fetch(`${a.origin}/wp-json/calendar/events/v1/media`, {
        method: 'POST',
        headers: { ...a.adminHeaders, 'content-type': form.contentType },
        body: form.data,
      })
    ).json()) as { id: number };
    const created = await a.rest('POST', '/events', {
      title: 'Fête de quartier',
      description: '<p>Musique &amp; <em>danse</em>.</p>',
      start_date: '2031-06-21 18:00',
      end_date: '2031-06-21 23:00',
      timezone: 'Europe/Paris',
      image: media.id,
      venue: {
        venue: 'Place du Marché',
        address: '1 place du Marché',
        city: 'Lyon',
        zip: '69001',
        country: 'France',
        geo_lat: 45.767,
        geo_lng: 4.834,
      },
      tags: ['street music'],
      categories: ['Festivals'],
      is_virtual: true,
      is_hybrid: true,
      virtual_url: 'https://stream.example.org/fete',
      rsvp: { open: true, capacity: 40 },
    });
    expect(created.status).toBe(201);
    event = created.body!;
    const response = await fetch(event.url as string, { headers: AS });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^application\/activity\+json/);
    expect(response.headers.get('vary')).toMatch(/Accept/);
    doc = (await response.json()) as Record<string, any>;
  });
  afterAll(async () => {
    await a.close();
  });

  it('answers the permalink with the page to browsers and the same document to both ActivityStreams types', async () => {
    const page = await fetch(event.url as string, { headers: { accept: 'text/html,application/xhtml+xml,*/*;q=0.8' } });
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    // A cache between must not answer a browser with the document, nor a server with the page.
    expect(page.headers.get('vary')?.split(', ')).toEqual(expect.arrayContaining(['Accept', 'Accept-Language']));
    expect(await page.text()).toContain('Fête de quartier');
    const ld = (await (await fetch(event.url as string, { headers: LD })).json()) as Record<string, unknown>;
    expect(ld).toEqual(doc);
    const byId = (await (await fetch(doc.id as string, { headers: AS })).json()) as Record<string, unknown>;
    expect(byId).toEqual(doc);
    // A person who follows the id (Mobilizon links to it) is sent to the page.
    const followed = await fetch(doc.id as string, { redirect: 'manual' });
    expect(followed.status).toBe(302);
    expect(followed.headers.get('location')).toBe(event.url);
  });

  it('is an Event that @fedify/vocab reads, with its times, place, tags and image', async () => {
    const parsed = await Event.fromJsonLd(doc);
    expect(parsed.id?.href).toBe(`${a.origin}/federation/events/${event.id}`);
    expect(parsed.name?.toString()).toBe('Fête de quartier');
    expect(parsed.startTime?.toString()).toBe('2031-06-21T16:00:00Z');
    expect(parsed.endTime?.toString()).toBe('2031-06-21T21:00:00Z');
    const place = await parsed.getLocation();
    expect(place).toBeInstanceOf(Place);
    expect((place as Place).latitude).toBeCloseTo(45.767);
    const tags = [];
    for await (const tag of parsed.getTags()) tags.push(tag);
    expect(tags.every((t) => t instanceof Hashtag)).toBe(true);
    expect(tags.map((t) => (t as Hashtag).name?.toString())).toEqual(['#streetmusic', '#Festivals']);
    const image = await parsed.getImage();
    expect((image?.url as URL | undefined)?.href).toBe(event.image.url);
  });

  it('carries what Mobilizon reads of an event', () => {
    // As Mobilizon's converter reads it (lib/federation/activity_stream/converter/event.ex,
    // as_to_model_data): name, startTime, endTime, content, `status` or else `ical:status`,
    // timezone, maximumAttendeeCapacity, isOnline, the online address as an attachment Link named
    // "Website" of mediaType text/html; and the place (converter/address.ex): `address` as a
    // PostalAddress's fields, latitude and longitude as floats.
    expect(doc).toMatchObject({
      type: 'Event',
      name: 'Fête de quartier',
      content: '<p>Musique &amp; <em>danse</em>.</p>',
      mediaType: 'text/html',
      startTime: '2031-06-21T18:00:00+02:00',
      endTime: '2031-06-21T23:00:00+02:00',
      timezone: 'Europe/Paris',
      'ical:status': 'CONFIRMED',
      isOnline: true,
      maximumAttendeeCapacity: 40,
      remainingAttendeeCapacity: 40,
      url: event.url,
      location: {
        type: 'Place',
        name: 'Place du Marché',
        latitude: 45.767,
        longitude: 4.834,
        address: {
          type: 'PostalAddress',
          streetAddress: '1 place du Marché',
          addressLocality: 'Lyon',
          postalCode: '69001',
          addressCountry: 'France',
        },
      },
    });
    expect(doc.attachment).toContainEqual({
      type: 'Link',
      href: 'https://stream.example.org/fete',
      mediaType: 'text/html',
      name: 'Website',
    });
  });

  it('carries what Gancio reads of an event', () => {
    // As Gancio's parseAPEvent reads it (server/federation/helpers.js): `name`, `startTime` and
    // `id` required; `content`; the image as the first attachment whose mediaType includes
    // "image" (it reads mediaType of every attachment, so none may lack one); tags by `name` less
    // its `#`; and parsePlace: `location` (one object), its `address` fields joined, latitude and
    // longitude.
    expect(doc.id).toBeTypeOf('string');
    for (const attachment of doc.attachment as { mediaType?: string }[])
      expect(attachment.mediaType).toBeTypeOf('string');
    const image = (doc.attachment as { mediaType: string; url?: string }[]).find((x) => x.mediaType.includes('image'));
    expect(image?.url).toBe(event.image.url);
    expect(Array.isArray(doc.location)).toBe(false);
    expect((doc.tag as { name: string }[]).map((t) => t.name.slice(1))).toEqual(['streetmusic', 'Festivals']);
  });

  it('says a cancelled event is CANCELLED and a postponed one TENTATIVE', async () => {
    for (const [status, ical] of [
      ['canceled', 'CANCELLED'],
      ['postponed', 'TENTATIVE'],
    ]) {
      expect((await a.rest('PATCH', `/events/${event.id}`, { event_status: status })).status).toBe(200);
      const now = (await (await fetch(event.url as string, { headers: AS })).json()) as Record<string, unknown>;
      expect(now['ical:status']).toBe(ical);
    }
  });

  it('answers 404 for drafts and private events as the page does, and 404 for unknown ids', async () => {
    for (const status of ['draft', 'private']) {
      const hidden = (
        await a.rest('POST', '/events', {
          title: `Hidden ${status}`,
          start_date: '2031-06-22 10:00',
          end_date: '2031-06-22 11:00',
          status,
        })
      ).body!;
      expect((await fetch(hidden.url as string, { headers: AS })).status).toBe(404);
      expect((await fetch(`${a.origin}/federation/events/${hidden.id}`, { headers: AS })).status).toBe(404);
    }
    for (const id of ['0', '99999', 'x', '99999999999']) {
      expect((await fetch(`${a.origin}/federation/events/${id}`, { headers: AS })).status).toBe(404);
    }
  });
});
