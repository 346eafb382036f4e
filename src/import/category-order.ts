// The order a site's categories are written in (read-site.ts): each after its parent, as a
// category names its parent by the ID it has here, which it has only once its parent is written.
import type { ImportItem } from '../domain/external-items.js';
import { CATEGORY_MAX_DEPTH } from '../services/terms.js';

/**
 * Categories ordered so that each comes after its parent, without recursion (a site may chain
 * thousands): a parent the site does not have leaves its category at the top level; a chain of
 * parents that loops back is cut where it closes, and that category comes at the top level; one
 * nested deeper than categories nest here (CATEGORY_MAX_DEPTH) comes at the deepest level, under
 * the ancestor there. Each change is said on the category (ImportItem.linksLeftOut).
 */
export function parentsFirst(categories: ImportItem[]): ImportItem[] {
  const byId = new Map(categories.map((c) => [c.externalId, c]));
  const parentOf = (item: ImportItem) => {
    const parent = item.refs.find((r) => r.field === 'parent')?.items[0]?.externalId;
    return parent === undefined ? undefined : byId.get(parent);
  };
  // A parent the site no longer has: the category comes over at the top level.
  for (const category of categories) {
    if (category.refs.some((r) => r.field === 'parent') && !parentOf(category)) atTop(category);
  }
  const ordered: ImportItem[] = [];
  /** Each placed category's level here (1 at the top). */
  const levels = new Map<string, number>();
  for (const start of categories) {
    // Up from it to a placed category or the top, then placed on the way back down.
    const way: ImportItem[] = [];
    const onWay = new Set<string>();
    for (let item: ImportItem | undefined = start; item && !levels.has(item.externalId); item = parentOf(item)) {
      if (onWay.has(item.externalId)) {
        const closing = way[way.length - 1];
        atTop(closing);
        (closing.linksLeftOut ??= []).push(
          'a category whose parents there loop back to it: imported at the top level, without its parent',
        );
        break;
      }
      onWay.add(item.externalId);
      way.push(item);
    }
    for (const item of way.reverse()) {
      const parent = parentOf(item);
      const above = parent ? (levels.get(parent.externalId) ?? 0) : 0;
      if (parent && above >= CATEGORY_MAX_DEPTH) moveUp(item, parentOf(parent));
      levels.set(item.externalId, Math.min(above + 1, CATEGORY_MAX_DEPTH));
      ordered.push(item);
    }
  }
  return ordered;
}

function atTop(category: ImportItem) {
  category.refs = category.refs.filter((r) => r.field !== 'parent');
  category.body.parent = 0;
}

/** A category deeper there than here, moved up beside its parent (at the deepest level here), and why. */
function moveUp(item: ImportItem, grandparent: ImportItem | undefined) {
  if (grandparent) {
    const ref = { kind: grandparent.kind, externalId: grandparent.externalId };
    item.refs = item.refs.map((r) => (r.field === 'parent' ? { field: 'parent', items: [ref] } : r));
  } else {
    atTop(item);
  }
  (item.linksLeftOut ??= []).push(
    `a category nested deeper there than categories nest here (${CATEGORY_MAX_DEPTH} levels): imported at level ${CATEGORY_MAX_DEPTH}, beside its parent there rather than under it`,
  );
}
