// Search as people type: every word, in any order, whatever its case and accents, on events,
// venues and organizers; and the event list sorted as clients of the modelled service ask.
import { beforeAll, expect, it } from 'vitest';
import { describeEachDatabase } from '../setup/each-database.js';

describeEachDatabase('search by words and the order of the event list', (s) => {
  const day = '2044-02-';
  const ids = (r: { body: { events?: { id: number }[]; venues?: { id: number }[]; organizers?: { id: number }[] } }) =>
    (r.body.events ?? r.body.venues ?? r.body.organizers ?? []).map((e) => e.id);
  const window = `start_date=${day}01&end_date=${day}28`;
  let jazz: any;
  let accented: any;
  let plain: any;
  let percent: any;
  let described: any;
  beforeAll(async () => {
    const create = async (title: string, date: string, extra: object = {}) => {
      const r = await s.post('/events', {
        title,
        start_date: `${day}${date} 20:00`,
        end_date: `${day}${date} 22:00`,
        ...extra,
      });
      expect(r.status).toBe(201);
      return r.body;
    };
    jazz = await create('Jazz Night at the Harbor', '10');
    accented = await create('Soirée ünïcødé', '11');
    plain = await create('Unicode meetup', '12');
    percent = await create('100% Vinyl', '13');
    described = await create('Quiet evening', '09', { description: '<p>Late-night JAZZ trio in the garden.</p>' });
  });

  const search = async (text: string, more = '') =>
    ids(await s.get(`/events?${window}&search=${encodeURIComponent(text)}${more}`));

  it('finds events by every word in any order, case and accents aside, words begun as people type', async () => {
    expect(await search('jazz night')).toEqual([described.id, jazz.id]);
    expect(await search('night jazz')).toEqual([described.id, jazz.id]);
    expect(await search('NIGHT   Harbor')).toEqual([jazz.id]);
    expect(await search('harb nig')).toEqual([jazz.id]);
    expect(await search('unicode')).toEqual([accented.id, plain.id]);
    expect(await search('ÜNICODE soiree')).toEqual([accented.id]);
    expect(await search('jazz piano')).toEqual([]);
    // A word is found where a word of the text begins, not inside one; HTML tags are not words.
    expect(await search('arbor')).toEqual([]);
    expect(await search('garden')).toEqual([described.id]);
    expect(await search('p')).toEqual([]);
    // Hyphenated words are found whole and by their parts.
    expect(await search('late-night')).toEqual([described.id]);
    expect(await search('late jazz')).toEqual([described.id]);
    // A word with punctuation is looked for as typed; quotes, backslashes and LIKE's pattern
    // characters are plain characters.
    expect(await search('100%')).toEqual([percent.id]);
    // A word of punctuation alone begins no word: a search of nothing else matches nothing.
    expect(await search('%')).toEqual([]);
    expect(await search('%%%%%_')).toEqual([]);
    expect(await search('_')).toEqual([]);
    expect(await search('0%')).toEqual([]);
    expect(await search("jazz's \\ 'night")).toEqual([]);
    expect(await search("'jazz' night")).toEqual([]);
  });

  it('ranks by relevance when asked: the title holding every word first', async () => {
    expect(await search('jazz night', '&orderby=relevance')).toEqual([jazz.id, described.id]);
    // Without search, relevance is the start order.
    expect(ids(await s.get(`/events?${window}&orderby=relevance`))).toEqual(ids(await s.get(`/events?${window}`)));
  });

  it('sorts the list by start, end, title, modification or ID, ascending or descending', async () => {
    const all = ids(await s.get(`/events?${window}`));
    expect(all).toEqual([described.id, jazz.id, accented.id, plain.id, percent.id]);
    expect(ids(await s.get(`/events?${window}&order=desc`))).toEqual([...all].reverse());
    expect(ids(await s.get(`/events?${window}&orderby=end_date&order=desc`))).toEqual([...all].reverse());
    const titles = ids(await s.get(`/events?${window}&orderby=title`));
    expect(titles).toEqual([percent.id, jazz.id, described.id, accented.id, plain.id]);
    expect(ids(await s.get(`/events?${window}&orderby=id&order=desc`))).toEqual([...all].sort((a, b) => b - a));
    await s.request('PATCH', `/events/${jazz.id}`, { body: { featured: true } });
    expect(ids(await s.get(`/events?${window}&orderby=modified&order=desc`))[0]).toBe(jazz.id);
    // The page links keep an order that is not the default.
    const paged = await s.get(`/events?${window}&orderby=title&per_page=2`);
    const next = new URL(paged.body.next_rest_url as string);
    expect(next.searchParams.get('orderby')).toBe('title');
    expect(ids(await s.get(next.href.slice(s.base.length)))).toEqual(titles.slice(2, 4));
    expect(
      new URL((await s.get(`/events?${window}&per_page=2`)).body.next_rest_url as string).searchParams.has('orderby'),
    ).toBe(false);
    const bad = await s.get(`/events?orderby=price`);
    expect(bad.status).toBe(400);
    expect(Object.keys(bad.body.data.params)).toEqual(['orderby']);
  });

  it('finds venues and organizers by every word of their name and address, accents aside', async () => {
    const venue = (
      await s.post('/venues', { venue: 'Café Théâtre du Port', city: 'Lyon', address: '3 quai Saint-Vincent' })
    ).body;
    const other = (await s.post('/venues', { venue: 'Port Hall', city: 'Marseille' })).body;
    const venues = async (text: string) => ids(await s.get(`/venues?search=${encodeURIComponent(text)}`));
    expect(await venues('theatre lyon')).toEqual([venue.id]);
    expect(await venues('LYON cafe')).toEqual([venue.id]);
    expect(await venues('port')).toEqual(expect.arrayContaining([venue.id, other.id]));
    expect(await venues('vincent quai')).toEqual([venue.id]);
    expect(await venues('theatre marseille')).toEqual([]);
    const organizer = (
      await s.post('/organizers', { organizer: 'Ålesund Kulturhus', email: 'booking@kulturhus.example' })
    ).body;
    const organizers = async (text: string) => ids(await s.get(`/organizers?search=${encodeURIComponent(text)}`));
    expect(await organizers('kulturhus alesund')).toEqual([organizer.id]);
    expect(await organizers('booking')).toEqual([organizer.id]);
    // The parts of an e-mail or web address are words of their own.
    expect(await organizers('kulturhus.example')).toEqual([organizer.id]);
    expect(await organizers('example')).toEqual([organizer.id]);
  });
});
