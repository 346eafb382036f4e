// A site's categories in shapes this service does not take as they are (src/import/
// category-order.ts parentsFirst, read-site.ts): nested deeper than categories nest here, or refused. Each item comes
// without the one link that cannot be made, rather than not at all; the run says so and ends with 3.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { exitStatus } from '../../src/import/run-import.js';
import { CATEGORY_MAX_DEPTH } from '../../src/services/terms.js';
import { describeEachDatabase } from '../setup/each-database.js';
import { importSite } from '../setup/importing.js';
import { startTecSite, type TecSite } from '../setup/tec-site.js';

/** A category as the site lists it. */
const category = (id: number, name: string, parent: number) => ({
  id,
  name,
  slug: `level-${id}`,
  description: '',
  taxonomy: 'tribe_events_cat',
  parent,
  count: 1,
});

describeEachDatabase('importing categories nested deeper than they may be here', (s, kind) => {
  let site: TecSite;
  const run = () => importSite(s, site, { concurrency: kind === 'postgresql' ? 4 : 1, fetch: { allowPrivate: true } });
  /** How many levels down a category is here: 1 at the top. */
  const levelOf = async (id: number) => {
    let level = 0;
    for (let at: number | null = id; at !== null; level++) {
      at = (await s.db.prisma.term.findUniqueOrThrow({ where: { id: at } })).parentId;
    }
    return level;
  };

  beforeAll(async () => {
    site = await startTecSite();
  });
  afterAll(async () => {
    await site.close();
  });

  it('takes a chain listed children first at the deepest level, and an event without the one category refused', async () => {
    const depth = CATEGORY_MAX_DEPTH + 5;
    const chain = Array.from({ length: depth }, (_, i) => category(5001 + i, `Level ${i + 1}`, i ? 5000 + i : 0));
    const blank = category(6000, ' ', 0); // a name the API refuses
    site.categories.push(...chain.reverse(), blank);
    const event = site.events.find((e) => e.status === 'publish')!;
    // The deepest of the chain (listed first), the refused one, and what no category is.
    event.categories = [...event.categories, chain[0], blank, null, 7];

    const summary = await run();
    expect(summary.skipped.map((item) => [item.kind, item.externalId])).toEqual([['category', '6000']]);
    expect(summary.counts.event.skipped).toBe(0);
    expect(summary.partial).toBe(6); // five categories moved up, one event without a category
    expect(exitStatus(summary)).toBe(3);
    const notes = new Map([...summary.remarks].map(([text, { count }]) => [text, count]));
    expect(
      notes.get(
        `a category nested deeper there than categories nest here (${CATEGORY_MAX_DEPTH} levels): imported at level ${CATEGORY_MAX_DEPTH}, beside its parent there rather than under it`,
      ),
    ).toBe(5);
    expect(notes.get('categories: one it names was skipped (listed above): imported without it')).toBe(1);

    const mapped = async (externalId: number) =>
      (await s.db.prisma.importedItem.findFirstOrThrow({ where: { kind: 'category', externalId: String(externalId) } }))
        .localId;
    const deepest = await mapped(5000 + depth);
    expect(await levelOf(deepest)).toBe(CATEGORY_MAX_DEPTH);
    expect(await levelOf(await mapped(5000 + CATEGORY_MAX_DEPTH))).toBe(CATEGORY_MAX_DEPTH);
    const local = await s.db.prisma.importedItem.findFirstOrThrow({
      where: { kind: 'event', externalId: String(event.id) },
    });
    const { body } = await s.get(`/events/${local.localId}`);
    expect(body.categories.map((c: { id: number }) => c.id)).toContain(deepest);
  });
});
