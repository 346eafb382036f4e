// `_embed` on any body: which links are followed (embeddable ones, of the wanted relations), how often
// (once per distinct link), how many (at most MAX_EMBEDDED_LINKS), and where the answers go.
import { describe, expect, it } from 'vitest';
import { embedLinks, MAX_EMBEDDED_LINKS, wantedRelations } from '../../src/http/embed.js';

const item = (id: number, venue: number) => ({
  id,
  _links: {
    self: [{ href: `https://x/events/${id}` }],
    venue: [{ embeddable: true, href: `https://x/venues/${venue}` }],
    'wp:term': [
      { embeddable: true, taxonomy: 'tribe_events_cat', href: `https://x/categories?event=${id}` },
      { embeddable: true, taxonomy: 'post_tag', href: `https://x/tags?event=${id}` },
    ],
  },
});

const list = (items: object[]) => ({
  events: items,
  rest_url: 'https://x/events/',
  total: items.length,
  total_pages: 1,
});

function counting() {
  const calls: string[] = [];
  const follow = (href: string) => {
    calls.push(href);
    return Promise.resolve({ href });
  };
  return { calls, follow };
}

describe('embedLinks', () => {
  it('follows each distinct embeddable link once and puts the answers after _links, in link order', async () => {
    const { calls, follow } = counting();
    const body = list([item(1, 7), item(2, 7)]);
    await embedLinks(body, true, follow);
    expect(calls.filter((href) => href.endsWith('/venues/7'))).toHaveLength(1);
    expect(calls).toHaveLength(5);
    const [first] = body.events as any[];
    expect(Object.keys(first)).toEqual(['id', '_links', '_embedded']);
    expect(first._embedded).toEqual({
      venue: [{ href: 'https://x/venues/7' }],
      'wp:term': [{ href: 'https://x/categories?event=1' }, { href: 'https://x/tags?event=1' }],
    });
  });

  it('follows only the relations asked for, and nothing that is not embeddable', async () => {
    const { calls, follow } = counting();
    const single = item(3, 8);
    await embedLinks(single, new Set(['venue', 'self']), follow);
    expect(calls).toEqual(['https://x/venues/8']);
    expect(Object.keys((single as any)._embedded)).toEqual(['venue']);
  });

  it(`follows at most ${MAX_EMBEDDED_LINKS} links and embeds the rest as an error that says why`, async () => {
    const { calls, follow } = counting();
    const body = list(Array.from({ length: 60 }, (_, i) => item(i + 1, 100 + i)));
    await embedLinks(body, true, follow);
    expect(calls).toHaveLength(MAX_EMBEDDED_LINKS);
    const last = (body.events as any[]).at(-1);
    expect(last._embedded.venue[0]).toMatchObject({ code: 'rest_embed_limit', data: { status: 400 } });
  });
});

describe('wantedRelations', () => {
  it.each([
    ['', undefined],
    ['_embed', true],
    ['_embed=1', true],
    ['_embed=true', true],
    ['_embed=0', true],
    ['_embed=venue,wp:term', new Set(['venue', 'wp:term'])],
    ['_embed&_fields=id,title', undefined],
    ['_embed&_fields=id,_embedded', true],
    ['_embed&_fields=_embedded.venue.venue', new Set(['venue'])],
    ['_embed=wp:term&_fields=_embedded.venue', new Set()],
  ])('reads %j', (search, wanted) => {
    expect(wantedRelations(search)).toEqual(wanted);
  });
});
