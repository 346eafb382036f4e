// Conditional requests on both databases: ETag and 304 for reads, Last-Modified, and If-Match on
// writes so that of two editors holding the same version only the first one writes.
import { expect, it } from 'vitest';
import { describeEachDatabase } from '../setup/each-database.js';
import { storedRows } from '../setup/stored-rows.js';

describeEachDatabase('conditional requests', (s) => {
  let n = 0;
  const event = async () =>
    (
      await s.post('/events', {
        title: `Conditional ${++n}`,
        start_date: '2033-01-01 10:00',
        end_date: '2033-01-01 11:00',
      })
    ).body;

  it('gives reads a strong ETag and answers 304 while the representation is unchanged', async () => {
    const e = await event();
    const first = await s.get(`/events/${e.id}`);
    const etag = first.headers.get('etag')!;
    expect(etag).toMatch(/^"[0-9a-z]+-[A-Za-z0-9_-]{22}"$/);
    expect(new Date(first.headers.get('last-modified')!).getTime()).toBe(
      Math.floor(new Date(`${first.body.modified_utc}Z`).getTime() / 1000) * 1000,
    );
    const again = await s.get(`/events/${e.id}`, { headers: { 'if-none-match': etag } });
    expect(again.status).toBe(304);
    expect(again.text).toBe('');
    expect(again.headers.get('etag')).toBe(etag);
    expect((await s.get(`/events/${e.id}`, { headers: { 'if-none-match': `"other", W/${etag}` } })).status).toBe(304);
    // A change to something it embeds changes the representation, so the ETag too.
    const venue = (await s.post('/venues', { venue: `Embedded ${n}` })).body;
    await s.request('PATCH', `/events/${e.id}`, { body: { venue: venue.id } });
    const linked = await s.get(`/events/${e.id}`);
    await s.request('PATCH', `/venues/${venue.id}`, { body: { city: 'Elsewhere' } });
    const changed = await s.get(`/events/${e.id}`, { headers: { 'if-none-match': linked.headers.get('etag')! } });
    expect(changed.status).toBe(200);
    expect(changed.body.venue.city).toBe('Elsewhere');
    // Lists and terms have ETags too.
    const list = await s.get('/categories?hide_empty=false');
    expect(
      (await s.get('/categories?hide_empty=false', { headers: { 'if-none-match': list.headers.get('etag')! } })).status,
    ).toBe(304);
  });

  it('writes with If-Match only while the version is current, and answers 412 otherwise', async () => {
    const e = await event();
    const read = await s.get(`/events/${e.id}`);
    const etag = read.headers.get('etag')!;
    const ok = await s.request('PATCH', `/events/${e.id}`, {
      body: { title: 'First editor' },
      headers: { 'if-match': etag },
    });
    expect(ok.status).toBe(200);
    expect(ok.headers.get('etag')).not.toBe(etag);
    const before = await storedRows(s.db);
    const stale = await s.request('PATCH', `/events/${e.id}`, {
      body: { title: 'Second editor' },
      headers: { 'if-match': etag },
    });
    expect(stale.status).toBe(412);
    expect(stale.body.code).toBe('rest_precondition_failed');
    expect(await storedRows(s.db)).toBe(before);
    expect((await s.request('DELETE', `/events/${e.id}`, { headers: { 'if-match': etag } })).status).toBe(412);
    expect(
      (await s.request('PATCH', `/events/${e.id}`, { body: { title: 'Any' }, headers: { 'if-match': '*' } })).status,
    ).toBe(200);
    expect(
      (
        await s.request('PATCH', `/events/${e.id}`, {
          body: { title: 'Weak' },
          headers: { 'if-match': `W/${ok.headers.get('etag')}` },
        })
      ).status,
    ).toBe(412);
    const current = (await s.get(`/events/${e.id}`)).headers.get('etag')!;
    expect((await s.request('DELETE', `/events/${e.id}`, { headers: { 'if-match': current } })).status).toBe(200);

    for (const [collection, name] of [
      ['venues', 'venue'],
      ['organizers', 'organizer'],
    ] as const) {
      const item = (await s.post(`/${collection}`, { [name]: `If-Match ${collection} ${n}` })).body;
      const tag = (await s.get(`/${collection}/${item.id}`)).headers.get('etag')!;
      expect(
        (await s.request('PUT', `/${collection}/${item.id}`, { body: { phone: '1' }, headers: { 'if-match': tag } }))
          .status,
      ).toBe(200);
      expect(
        (await s.request('PUT', `/${collection}/${item.id}`, { body: { phone: '2' }, headers: { 'if-match': tag } }))
          .status,
      ).toBe(412);
    }
    const tag = (await s.post('/tags', { name: `If-Match tag ${n}` })).body;
    const tagEtag = (await s.get(`/tags/${tag.id}`)).headers.get('etag')!;
    expect(
      (await s.request('PATCH', `/tags/${tag.id}`, { body: { description: 'a' }, headers: { 'if-match': tagEtag } }))
        .status,
    ).toBe(200);
    expect(
      (await s.request('PATCH', `/tags/${tag.id}`, { body: { description: 'b' }, headers: { 'if-match': tagEtag } }))
        .status,
    ).toBe(412);
  });

  it('lets exactly one of several concurrent writers holding the same version through', async () => {
    const e = await event();
    const etag = (await s.get(`/events/${e.id}`)).headers.get('etag')!;
    const results = await Promise.all(
      Array.from({ length: 6 }, (_, i) =>
        s.request('PATCH', `/events/${e.id}`, { body: { title: `Racer ${i}` }, headers: { 'if-match': etag } }),
      ),
    );
    const statuses = results.map((r) => r.status).sort();
    expect(statuses).toEqual([200, 412, 412, 412, 412, 412]);
    const winner = results.find((r) => r.status === 200)!;
    expect((await s.get(`/events/${e.id}`)).body.title).toBe(winner.body.title);
    // Without If-Match, concurrent updates all succeed (last one wins), and none fails.
    const free = await Promise.all(
      Array.from({ length: 4 }, (_, i) => s.request('PATCH', `/events/${e.id}`, { body: { excerpt: `x${i}` } })),
    );
    expect(free.map((r) => r.status)).toEqual([200, 200, 200, 200]);
  });
});
