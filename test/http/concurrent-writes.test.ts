// Writers racing on one object, on both databases (PostgreSQL is where requests really interleave:
// PGlite runs one transaction at a time). Each writer changes different fields with a partial
// update; whatever the interleaving, every field a writer was told it changed (200) must be in the
// final object, because an update never writes back a field it was not sent from an older copy.
// Also: If-Match claimed atomically on terms, and creates that de-duplicate by name.
import { expect, it } from 'vitest';
import { describeEachDatabase } from '../setup/each-database.js';

/**
 * Rounds of each race: on PostgreSQL each round is another interleaving; on PGlite, whose
 * transactions run one at a time, one round checks the same code and the rest repeated it (two
 * minutes of this file on a busy machine).
 */
const ROUNDS = { postgresql: 4, pglite: 1 };
const METHODS = ['PATCH', 'POST', 'PUT'] as const;

interface Writer {
  body: Record<string, unknown>;
  /** The part of the representation this writer changed. */
  pick: (representation: any) => unknown;
}

const field = (name: string, value: unknown): Writer => ({ body: { [name]: value }, pick: (r) => r[name] });

describeEachDatabase('concurrent writers', (s, dbKind) => {
  /**
   * Sends every writer at once (by ID and by slug, by turns of POST, PUT and PATCH) and checks that
   * each one's field, as its own answer showed it, is what the object shows at the end.
   */
  async function race(collection: string, object: { id: number; slug: string }, writers: Writer[]) {
    const answers = await Promise.all(
      writers.map((w, i) => {
        const path = i % 2 ? `/${collection}/by-slug/${object.slug}` : `/${collection}/${object.id}`;
        return s.request(
          METHODS[i % METHODS.length],
          collection === 'categories' || collection === 'tags' ? `/${collection}/${object.id}` : path,
          { body: w.body },
        );
      }),
    );
    for (const answer of answers) expect(answer.status).toBe(200);
    const final = (await s.get(`/${collection}/${object.id}`)).body;
    writers.forEach((w, i) => {
      expect({ writer: w.body, value: w.pick(final) }).toEqual({ writer: w.body, value: w.pick(answers[i].body) });
    });
  }

  it('keeps every field that parallel partial updates of one event acknowledged', async () => {
    const venue = (await s.post('/venues', { venue: `Race hall ${dbKind}` })).body;
    for (let round = 0; round < ROUNDS[dbKind]; round++) {
      const event = (
        await s.post('/events', {
          title: `Race ${round}`,
          start_date: '2034-01-01 10:00',
          end_date: '2034-01-01 11:00',
        })
      ).body;
      await race('events', event, [
        field('status', 'draft'),
        field('excerpt', `Excerpt ${round}`),
        field('title', `Renamed ${round}`),
        field('description', `Description ${round}`),
        field('website', `https://race.example/${round}`),
        {
          body: { start_date: '2034-02-02 09:00', end_date: '2034-02-02 12:00' },
          pick: (r) => [r.start_date, r.end_date],
        },
        field('featured', true),
        field('sticky', true),
        field('hide_from_listings', true),
        { body: { cost: '12' }, pick: (r) => r.cost },
        { body: { timezone: 'Europe/Paris' }, pick: (r) => r.timezone },
        {
          body: { categories: [`Race category ${round}`] },
          pick: (r) => r.categories.map((c: { name: string }) => c.name),
        },
        { body: { tags: [`race-tag-${round}`] }, pick: (r) => r.tags.map((t: { name: string }) => t.name) },
        { body: { venue: venue.id }, pick: (r) => r.venue.id },
      ]);
    }
  });

  it('keeps every field that parallel partial updates of one venue or organizer acknowledged', async () => {
    for (let round = 0; round < ROUNDS[dbKind]; round++) {
      const venue = (await s.post('/venues', { venue: `Venue race ${round}` })).body;
      await race('venues', venue, [
        field('venue', `Venue renamed ${round}`),
        field('address', `${round} Main Street`),
        field('city', 'Springfield'),
        field('zip', '12345'),
        field('phone', '+1 555 0100'),
        field('website', `https://venue.example/${round}`),
        field('description', `About venue ${round}`),
        field('excerpt', 'Short'),
        field('status', 'draft'),
        field('province', 'Ontario'),
        field('show_map', false),
      ]);
      const organizer = (await s.post('/organizers', { organizer: `Organizer race ${round}` })).body;
      await race('organizers', organizer, [
        field('organizer', `Organizer renamed ${round}`),
        field('phone', '+1 555 0199'),
        field('email', `race${round}@example.org`),
        field('website', `https://organizer.example/${round}`),
        field('description', `About organizer ${round}`),
        field('excerpt', 'Brief'),
        field('status', 'draft'),
      ]);
    }
  });

  it('keeps every field that parallel partial updates of one category or tag acknowledged', async () => {
    for (let round = 0; round < ROUNDS[dbKind]; round++) {
      const parent = (await s.post('/categories', { name: `Parent race ${round}` })).body;
      const category = (await s.post('/categories', { name: `Category race ${round}` })).body;
      await race('categories', category, [
        field('name', `Category renamed ${round}`),
        field('description', `About category ${round}`),
        field('slug', `category-slug-${round}`),
        field('parent', parent.id),
      ]);
      const tag = (await s.post('/tags', { name: `Tag race ${round}` })).body;
      await race('tags', tag, [
        field('name', `Tag renamed ${round}`),
        field('description', `About tag ${round}`),
        field('slug', `tag-slug-${round}`),
      ]);
    }
  });

  it('never makes a loop of categories moved under each other at once', async () => {
    for (let round = 0; round < ROUNDS[dbKind]; round++) {
      const ring = await Promise.all(
        Array.from({ length: 4 }, (_, i) => s.post('/categories', { name: `Ring ${round}.${i}` })),
      );
      const ids = ring.map((r) => r.body.id as number);
      // Each under the next: any three of the moves are a chain, all four a loop.
      const moves = await Promise.all(
        ids.map((id, i) => s.request('PATCH', `/categories/${id}`, { body: { parent: ids[(i + 1) % ids.length] } })),
      );
      expect(moves.map((m) => m.status).sort()).toEqual([200, 200, 200, 400]);
      const parents = new Map<number, number>();
      for (const id of ids) parents.set(id, (await s.get(`/categories/${id}`)).body.parent);
      for (const id of ids) {
        let cursor = id;
        for (let step = 0; step < ids.length && parents.get(cursor); step++) cursor = parents.get(cursor)!;
        expect(parents.get(cursor), `category ${id} reaches a root`).toBe(0);
      }
    }
  });

  it('lets only one of many writers holding the same version of a term write', async () => {
    for (const collection of ['categories', 'tags']) {
      const term = await s.post(`/${collection}`, { name: `Versioned ${collection}` });
      const etag = term.headers.get('etag')!;
      expect(etag).toMatch(/^"[0-9a-z]+-[A-Za-z0-9_-]{22}"$/);
      const answers = await Promise.all(
        Array.from({ length: 20 }, (_, i) =>
          s.request('PATCH', `/${collection}/${term.body.id}`, {
            body: { description: `Writer ${i}` },
            headers: { 'if-match': etag },
          }),
        ),
      );
      expect(answers.filter((a) => a.status === 200)).toHaveLength(1);
      expect(answers.filter((a) => a.status === 412)).toHaveLength(19);
      const winner = answers.find((a) => a.status === 200)!;
      expect((await s.get(`/${collection}/${term.body.id}`)).body.description).toBe(winner.body.description);
      // The winner's answer carries the new version, which the next write may name.
      const next = await s.request('DELETE', `/${collection}/${term.body.id}`, {
        headers: { 'if-match': winner.headers.get('etag')! },
      });
      expect(next.status).toBe(200);
    }
  });

  it('makes one venue or organizer of many parallel creates of the same name', async () => {
    for (let round = 0; round < ROUNDS[dbKind]; round++) {
      for (const [collection, nameField] of [
        ['venues', 'venue'],
        ['organizers', 'organizer'],
      ] as const) {
        const name = `Only one ${collection} ${round}`;
        // Spelled in different cases: duplicates are found without regard to case.
        const answers = await Promise.all(
          Array.from({ length: 30 }, (_, i) =>
            s.post(`/${collection}`, { [nameField]: i % 2 ? name : name.toUpperCase() }),
          ),
        );
        expect(new Set(answers.map((a) => a.body.id)).size).toBe(1);
        // Search finds every item holding the words; exactly one of them has the name.
        const found = (await s.get(`/${collection}?search=${encodeURIComponent(name)}&per_page=50`)).body[collection];
        const named = found.filter(
          (item: Record<string, string>) => item[nameField].toLowerCase() === name.toLowerCase(),
        );
        expect(named).toHaveLength(1);
      }
    }
    // The same when events create them inline, naming two of them in opposite orders.
    const events = await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        s.post('/events', {
          title: `Inline ${i}`,
          start_date: '2034-03-03 10:00',
          end_date: '2034-03-03 11:00',
          venue:
            i % 2
              ? [{ venue: 'Inline hall A' }, { venue: 'Inline hall B' }]
              : [{ venue: 'Inline hall B' }, { venue: 'Inline hall A' }],
        }),
      ),
    );
    for (const e of events) expect(e.status).toBe(201);
    for (const name of ['Inline hall A', 'Inline hall B']) {
      const found = (await s.get(`/venues?search=${encodeURIComponent(name)}`)).body.venues;
      expect(found.filter((v: { venue: string }) => v.venue === name)).toHaveLength(1);
    }
  });
});

describeEachDatabase('writers racing a delete', (s, dbKind) => {
  it('links to a venue, term or parent deleted meanwhile answer 201 or 400, never 5xx', async () => {
    for (let round = 0; round < ROUNDS[dbKind]; round++) {
      const venue = (await s.post('/venues', { venue: `Doomed hall ${round}` })).body;
      const category = (await s.post('/categories', { name: `Doomed category ${round}` })).body;
      const children = await Promise.all(
        Array.from({ length: 4 }, (_, i) => s.post('/categories', { name: `Child ${round}.${i}` })),
      );
      const writes = [
        ...Array.from({ length: 8 }, (_, i) =>
          s.post('/events', {
            title: `Racing ${round}.${i}`,
            start_date: '2034-04-04 10:00',
            end_date: '2034-04-04 11:00',
            venue: venue.id,
            categories: [category.id],
          }),
        ),
        ...children.map((child) =>
          s.request('PATCH', `/categories/${child.body.id}`, { body: { parent: category.id } }),
        ),
        s.request('DELETE', `/venues/${venue.id}?force=true`),
        s.request('DELETE', `/categories/${category.id}`),
      ];
      const statuses = (await Promise.all(writes)).map((r) => r.status);
      expect(statuses.filter((status) => ![200, 201, 400].includes(status))).toEqual([]);
      expect(statuses.slice(-2)).toEqual([200, 200]);
    }
  });
});
