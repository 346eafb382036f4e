// `_links` on every event, venue, organizer, category and tag, pointing at our own routes, and
// WordPress's `_embed`, which brings what the embeddable links point at into the same answer.
import { expect, it } from 'vitest';
import { describeEachDatabase } from '../setup/each-database.js';
import type { TestServer } from '../setup/server.js';

const WRITE = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'];

/** The hrefs of one relation of an object's `_links`. */
const hrefs = (object: any, rel: string): string[] => (object._links?.[rel] ?? []).map((l: any) => l.href);

/** GET of an absolute URL of the API, through the test client (so the answer is checked against the document). */
const follow = (s: TestServer, href: string, options: { as?: null } = {}) => {
  expect(href.startsWith(`${s.base}/`), href).toBe(true);
  return s.get(href.slice(s.base.length), options);
};

/** A day a month ahead: inside the event list's default window, which the `events` links keep. */
const soon = new Date(Date.now() + 30 * 86_400_000).toISOString().slice(0, 10);

describeEachDatabase('Links and embedding', (s) => {
  let seq = 0;
  const unique = (name: string) => `${name} ${++seq} ${Math.random().toString(36).slice(2, 6)}`;

  /** A published event with a venue, an organizer, a category under a parent, and a tag. */
  async function linkedEvent() {
    const parent = (await s.post('/categories', { name: unique('Music') })).body;
    const category = (await s.post('/categories', { name: unique('Jazz'), parent: parent.id })).body;
    const event = await s.post('/events', {
      title: unique('Linked night'),
      start_date: `${soon} 19:00`,
      end_date: `${soon} 22:00`,
      venue: { venue: unique('Linked hall'), city: 'Lyon' },
      organizer: [{ organizer: unique('Linked org') }],
      categories: [category.id],
      tags: [unique('late')],
    });
    expect(event.status).toBe(201);
    return { event: event.body, category, parent };
  }

  it('links every event to itself, its list, its venue, organizer and terms, and each link answers', async () => {
    const { event, category } = await linkedEvent();
    const venueId = event.venue.id;
    const organizerId = event.organizer[0].id;
    expect(Object.keys(event).at(-1)).toBe('_links');
    expect(hrefs(event, 'self')).toEqual([`${s.base}/events/${event.id}`]);
    expect(hrefs(event, 'collection')).toEqual([`${s.base}/events`]);
    expect(event._links.venue).toEqual([{ embeddable: true, href: `${s.base}/venues/${venueId}` }]);
    expect(event._links.organizer).toEqual([{ embeddable: true, href: `${s.base}/organizers/${organizerId}` }]);
    expect(event._links['wp:term'].map((l: any) => l.taxonomy)).toEqual(['tribe_events_cat', 'post_tag']);
    expect(event._links.curies).toEqual([{ name: 'wp', href: 'https://api.w.org/{rel}', templated: true }]);
    // Objects nested in an event are described by the event's links, not by links of their own.
    expect(event.venue._links).toBeUndefined();
    expect(event.organizer[0]._links).toBeUndefined();

    expect((await follow(s, hrefs(event, 'self')[0])).body.id).toBe(event.id);
    expect((await follow(s, hrefs(event, 'venue')[0])).body.id).toBe(venueId);
    expect((await follow(s, hrefs(event, 'organizer')[0])).body.id).toBe(organizerId);
    const [categories, tags] = await Promise.all(hrefs(event, 'wp:term').map((href) => follow(s, href)));
    expect(categories.body.categories.map((c: any) => c.id)).toEqual([category.id]);
    expect(tags.body.tags.map((t: any) => t.name)).toEqual([event.tags[0].name]);

    // The same links on the list, the single read, and an update.
    const listed = (await s.get(`/events?include=${event.id}`)).body.events[0];
    expect(listed._links).toEqual(event._links);
    expect((await s.get(`/events/${event.id}`)).body._links).toEqual(event._links);
    const updated = await s.request('PATCH', `/events/${event.id}`, { body: { title: 'Renamed' } });
    expect(updated.body._links).toEqual(event._links);
  });

  it('links venues and organizers to their events, and categories and tags to theirs and to their parent', async () => {
    const { event, category, parent } = await linkedEvent();
    const venue = (await s.get(`/venues/${event.venue.id}`)).body;
    expect(hrefs(venue, 'self')).toEqual([venue.rest_url]);
    expect(hrefs(venue, 'collection')).toEqual([`${s.base}/venues`]);
    const atVenue = await follow(s, hrefs(venue, 'events')[0]);
    expect(atVenue.body.events.map((e: any) => e.id)).toEqual([event.id]);
    const organizer = (await s.get(`/organizers/${event.organizer[0].id}`)).body;
    const byOrganizer = await follow(s, hrefs(organizer, 'events')[0]);
    expect(byOrganizer.body.events.map((e: any) => e.id)).toEqual([event.id]);
    expect(
      (await s.get(`/venues?include=${venue.id}&search=${encodeURIComponent(venue.venue)}`)).body.venues[0]._links,
    ).toEqual(venue._links);

    const child = (await s.get(`/categories/${category.id}`)).body;
    expect(hrefs(child, 'self')).toEqual([child.urls.self]);
    expect(child._links.up).toEqual([{ embeddable: true, href: `${s.base}/categories/${parent.id}` }]);
    expect((await follow(s, hrefs(child, 'up')[0])).body.id).toBe(parent.id);
    const carrying = await follow(s, hrefs(child, 'wp:post_type')[0]);
    expect(carrying.body.events.map((e: any) => e.id)).toEqual([event.id]);
    expect((await s.get(`/categories/${parent.id}`)).body._links.up).toBeUndefined();

    const tag = (await s.get(`/tags/${event.tags[0].id}`)).body;
    expect(hrefs(tag, 'collection')).toEqual([`${s.base}/tags`]);
    expect((await follow(s, hrefs(tag, 'wp:post_type')[0])).body.events.map((e: any) => e.id)).toEqual([event.id]);
    const listedTag = (await s.get(`/tags?include=${tag.id}`)).body.tags[0];
    expect(listedTag._links).toEqual(tag._links);
  });

  it('says in self which methods the caller may use, by role and ownership', async () => {
    const { event, category } = await linkedEvent();
    const allow = async (path: string, as: any) =>
      (await s.get(path, { as })).body._links.self[0].targetHints.allow as string[];
    expect(await allow(`/events/${event.id}`, 'administrator')).toEqual(WRITE);
    expect(await allow(`/events/${event.id}`, null)).toEqual(['GET']);
    expect(await allow(`/events/${event.id}`, 'author')).toEqual(['GET']); // not theirs
    const draft = await s.post(
      '/events',
      { title: 'Own draft', start_date: '2031-06-01 10:00', end_date: '2031-06-01 11:00', status: 'draft' },
      { as: 'contributor' },
    );
    expect(draft.body._links.self[0].targetHints.allow).toEqual(WRITE);
    expect(await allow(`/events/${draft.body.id}`, 'editor')).toEqual(WRITE);
    // Categories need an author to change, tags an editor (the document's x-required-role).
    expect(await allow(`/categories/${category.id}`, 'author')).toEqual(WRITE);
    expect(await allow(`/categories/${category.id}`, 'contributor')).toEqual(['GET']);
    expect(await allow(`/tags/${event.tags[0].id}`, 'author')).toEqual(['GET']);
    expect(await allow(`/tags/${event.tags[0].id}`, 'editor')).toEqual(WRITE);
    expect(await allow(`/venues/${event.venue.id}`, 'subscriber')).toEqual(['GET']);
  });

  it('keeps links on a trashed object and leaves them out of an answer for something deleted for good', async () => {
    const { event } = await linkedEvent();
    const trashed = await s.request('DELETE', `/events/${event.id}`);
    expect(trashed.body.status).toBe('trash');
    expect(hrefs(trashed.body, 'self')).toEqual([`${s.base}/events/${event.id}`]);
    const gone = await s.request('DELETE', `/events/${event.id}?force=true`);
    expect(gone.status).toBe(200);
    expect(gone.body._links).toBeUndefined();
    const venueGone = await s.request('DELETE', `/venues/${event.venue.id}?force=true`);
    expect(venueGone.body._links).toBeUndefined();
    const tagGone = await s.request('DELETE', `/tags/${event.tags[0].id}`);
    expect(tagGone.status).toBe(200);
    expect(tagGone.body._links).toBeUndefined();
  });

  it('embeds what the embeddable links point at, as those routes answer it, with _embed', async () => {
    const { event, category } = await linkedEvent();
    const embedded = await s.get(`/events/${event.id}?_embed`, { as: null });
    expect(embedded.status).toBe(200);
    const keys = Object.keys(embedded.body);
    expect(keys.slice(-2)).toEqual(['_links', '_embedded']);
    const { _embedded: found } = embedded.body;
    expect(Object.keys(found)).toEqual(['venue', 'organizer', 'wp:term']);
    expect(found.venue).toEqual([(await s.get(`/venues/${event.venue.id}`, { as: null })).body]);
    expect(found.organizer).toEqual([(await s.get(`/organizers/${event.organizer[0].id}`, { as: null })).body]);
    // A link to a list embeds the list's items: categories, then tags.
    expect(found['wp:term'][0].map((c: any) => c.id)).toEqual([category.id]);
    expect(found['wp:term'][1].map((t: any) => t.id)).toEqual([event.tags[0].id]);

    // Only the relations named; `_embed=1` and `true` mean all; an unknown relation embeds nothing.
    const venueOnly = await s.get(`/events/${event.id}?_embed=venue`);
    expect(Object.keys(venueOnly.body._embedded)).toEqual(['venue']);
    for (const value of ['1', 'true']) {
      expect(Object.keys((await s.get(`/events/${event.id}?_embed=${value}`)).body._embedded)).toHaveLength(3);
    }
    expect((await s.get(`/events/${event.id}?_embed=author`)).body._embedded).toBeUndefined();

    // Every item of a list gets its own; a category embeds its parent.
    const list = await s.get(`/events?include=${event.id}&_embed=organizer`);
    expect(list.body.events[0]._embedded.organizer[0].id).toBe(event.organizer[0].id);
    const child = await s.get(`/categories/${category.id}?_embed`);
    expect(child.body._embedded.up[0].id).toBe(category.parent);
    // Without _embed, nothing is embedded.
    expect((await s.get(`/events/${event.id}`)).body._embedded).toBeUndefined();
  });

  it('embeds only under the fields _fields names, and embeds on writes and in envelopes too', async () => {
    const { event } = await linkedEvent();
    const fielded = await s.get(`/events/${event.id}?_embed&_fields=id,_embedded.venue.venue`);
    expect(fielded.body).toEqual({ id: event.id, _embedded: { venue: [{ venue: event.venue.venue }] } });
    expect((await s.get(`/events/${event.id}?_embed&_fields=id,title`)).body).toEqual({
      id: event.id,
      title: event.title,
    });
    const written = await s.request('PATCH', `/events/${event.id}?_embed=venue`, { body: { featured: true } });
    expect(written.body._embedded.venue[0].id).toBe(event.venue.id);
    const enveloped = await s.get(`/events/${event.id}?_embed=venue&_envelope`);
    expect(enveloped.body.body._embedded.venue[0].id).toBe(event.venue.id);
  });

  it("links and embeds an occurrence's series only for callers who may read it", async () => {
    const { event } = await linkedEvent();
    const hidden = await s.post('/events', {
      title: 'Hidden parent',
      start_date: '2031-07-01 10:00',
      end_date: '2031-07-01 11:00',
      status: 'draft',
    });
    // As an occurrence of a draft series would be.
    await s.db.prisma.event.update({ where: { id: event.id }, data: { parentId: hidden.body.id } });
    const asAdmin = await s.get(`/events/${event.id}?_embed=up`);
    expect(asAdmin.body._links.up).toEqual([{ embeddable: true, href: `${s.base}/events/${hidden.body.id}` }]);
    expect(asAdmin.body._embedded.up[0].id).toBe(hidden.body.id);
    expect(asAdmin.body.recurring_event_id).toBe(hidden.body.id);
    const asAnonymous = await s.get(`/events/${event.id}?_embed=up`, { as: null });
    expect(asAnonymous.status).toBe(200);
    expect(asAnonymous.body._links.up).toBeUndefined();
    expect(asAnonymous.body._embedded?.up).toBeUndefined();
    expect(asAnonymous.body.recurring_event_id).toBeNull();
    expect(asAnonymous.text).not.toContain(`/events/${hidden.body.id}`);
  });
});
