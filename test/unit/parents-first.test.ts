// The order categories of a site are written in (src/import/category-order.ts parentsFirst): data from
// outside, so without recursion, with loops cut and reported, and with categories deeper than they
// nest here moved up to the deepest level, reported.
import { describe, expect, it } from 'vitest';
import type { ImportItem } from '../../src/domain/external-items.js';
import { parentsFirst } from '../../src/import/category-order.js';
import { CATEGORY_MAX_DEPTH } from '../../src/services/terms.js';

/** A category of a site, as tec-source reads one: its parent named by its ID there. */
const category = (id: number, parent: number): ImportItem => ({
  kind: 'category',
  externalId: String(id),
  label: `Category ${id}`,
  body: { name: `Category ${id}`, ...(parent ? {} : { parent: 0 }) },
  refs: parent ? [{ field: 'parent', items: [{ kind: 'category', externalId: String(parent) }] }] : [],
});

const parentOf = (item: ImportItem) => item.refs.find((r) => r.field === 'parent')?.items[0]?.externalId;

/** Each category's level in the order given, checking that every parent comes first. */
function levelsOf(ordered: ImportItem[]): Map<string, number> {
  const levels = new Map<string, number>();
  const beforeTheirParents: string[] = [];
  for (const item of ordered) {
    const parent = parentOf(item);
    if (parent !== undefined && !levels.has(parent)) beforeTheirParents.push(item.externalId);
    levels.set(item.externalId, parent === undefined ? 1 : (levels.get(parent) ?? 0) + 1);
  }
  expect(beforeTheirParents).toEqual([]);
  return levels;
}

describe('the order in which the categories of a site are written', () => {
  it('puts 30,000 categories chained children first after their parents, none deeper than categories nest', () => {
    const chain = Array.from({ length: 30_000 }, (_, i) => category(30_000 - i, 30_000 - i - 1));
    const ordered = parentsFirst(chain);
    expect(ordered).toHaveLength(30_000);
    const levels = levelsOf(ordered);
    expect(levels.get('1')).toBe(1);
    expect(levels.get(String(CATEGORY_MAX_DEPTH))).toBe(CATEGORY_MAX_DEPTH);
    expect(Math.max(...levels.values())).toBe(CATEGORY_MAX_DEPTH);
    // The first ones keep their parents; each deeper one sits beside its parent there, at the deepest level.
    expect(ordered.slice(0, CATEGORY_MAX_DEPTH).every((c) => !c.linksLeftOut)).toBe(true);
    expect(parentOf(ordered[CATEGORY_MAX_DEPTH])).toBe(String(CATEGORY_MAX_DEPTH - 1));
    expect(parentOf(ordered[29_999])).toBe(String(CATEGORY_MAX_DEPTH - 1));
    expect(ordered[29_999].linksLeftOut).toEqual([
      `a category nested deeper there than categories nest here (${CATEGORY_MAX_DEPTH} levels): imported at level ${CATEGORY_MAX_DEPTH}, beside its parent there rather than under it`,
    ]);
  });

  it('cuts a loop of parents where it closes, and says so', () => {
    // 1 under 3, 3 under 2, 2 under 1; 4 under 2; 5 under itself.
    const ordered = parentsFirst([category(1, 3), category(2, 1), category(3, 2), category(4, 2), category(5, 5)]);
    const levels = levelsOf(ordered);
    expect([...levels.keys()].sort()).toEqual(['1', '2', '3', '4', '5']);
    const cut = ordered.filter((c) => c.linksLeftOut);
    expect(cut.map((c) => [c.externalId, c.body.parent, c.linksLeftOut])).toEqual([
      ['2', 0, ['a category whose parents there loop back to it: imported at the top level, without its parent']],
      ['5', 0, ['a category whose parents there loop back to it: imported at the top level, without its parent']],
    ]);
    // Read from 1 up: 1, 3, 2, and 2's parent 1 closes the loop.
    expect([levels.get('2'), levels.get('3'), levels.get('1'), levels.get('4')]).toEqual([1, 2, 3, 2]);
  });

  it('puts a category whose parent the site does not have at the top level', () => {
    const [only] = parentsFirst([category(7, 99)]);
    expect([only.refs, only.body.parent, only.linksLeftOut]).toEqual([[], 0, undefined]);
  });
});
