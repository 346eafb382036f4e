// Categories and tags: one table, told apart by taxonomy. Every write runs in a transaction, and
// the unique indexes (slug; name among siblings) settle races between concurrent writers.
import { Prisma as Prisma, type Term } from '../../generated/prisma/client.js';
import { assertMay, CAPABILITIES, may } from '../auth/capabilities.js';
import type { Caller } from '../auth/roles.js';
import type { Tx } from '../db/client.js';
import { DuplicateTermName, InvalidTermSlug, InvalidInput, NotFound, TermCreationForbidden } from '../domain/errors.js';
import { CATEGORY, type Taxonomy, TERM_TYPE, type TermRecord, type TermRow } from '../domain/records.js';
import { containing, sameText, startingWith } from '../lib/like.js';
import { firstFreeSlug, slugify } from '../lib/slug.js';
import type { ServiceContext } from './context.js';
import { claimVersion } from './post-writes.js';
import { modifiedAfter, readableEvent } from './posts.js';
import { chargeCreateIn } from './quotas.js';
import { inTransaction } from './retry.js';

const TYPE = TERM_TYPE;

export interface TermInput {
  name?: string;
  description?: string;
  slug?: string;
  parent?: number;
}

export interface TermListQuery {
  page: number;
  perPage: number;
  search?: string;
  exclude?: number[];
  include?: number[];
  order: 'asc' | 'desc';
  orderby: 'id' | 'include' | 'name' | 'slug' | 'include_slugs' | 'term_group' | 'description' | 'count';
  hideEmpty: boolean;
  parent?: number;
  /** Terms of this event; `param` names the query parameter it came from, for errors. */
  event?: { id: number; param: string };
  slug?: string[];
  /** `modified_after` as given: only terms whose own fields changed after it (not their count). */
  modifiedAfter?: string | number;
}

/**
 * A page of terms. `count` (and so `hide_empty` and `orderby=count`) counts published events only,
 * which every caller may read, so a count never tells anyone of a draft or private event.
 */
export async function listTerms(ctx: ServiceContext, taxonomy: Taxonomy, q: TermListQuery) {
  const prisma = ctx.db;
  if (q.event && !(await readableEvent(prisma, ctx.caller, q.event.id))) {
    throw new InvalidInput({ [q.event.param]: `${q.event.param} is not the ID of an event.` });
  }
  const where: Prisma.TermWhereInput = {
    taxonomy,
    id: { in: q.include, notIn: q.exclude },
    slug: q.slug ? { in: q.slug } : undefined,
    parentId: parentFilter(q.parent),
    events: q.event ? { some: { eventId: q.event.id } } : undefined,
    eventCount: q.hideEmpty ? { gt: 0 } : undefined,
    OR: q.search ? [{ name: containing(q.search) }, { slug: containing(q.search) }] : undefined,
    modifiedAt: q.modifiedAfter === undefined ? undefined : { gt: modifiedAfter(q.modifiedAfter, ctx) },
  };
  const skip = (q.page - 1) * q.perPage;
  const byPosition = positionsToKeep(q);
  const [total, rows] = await Promise.all([
    prisma.term.count({ where }),
    byPosition
      ? prisma.term.findMany({ where })
      : prisma.term.findMany({ where, orderBy: orderBy(q), skip, take: q.perPage }),
  ]);
  let page = rows;
  if (byPosition) {
    // Order by position in the list the caller gave (the list is at most 100 long).
    const position = (row: TermRow) =>
      (byPosition as (number | string)[]).indexOf(q.orderby === 'include' ? row.id : row.slug);
    page = [...rows]
      .sort((a, b) => (position(a) - position(b)) * (q.order === 'desc' ? -1 : 1))
      .slice(skip, skip + q.perPage);
  }
  return { total, items: await withPaths(prisma, page) };
}

/** The parent filter as Prisma reads it: 0 asks for terms without a parent. */
function parentFilter(parent: number | undefined): number | null | undefined {
  if (parent === undefined) return undefined;
  return parent === 0 ? null : parent;
}

/** The IDs (`orderby=include`) or slugs (`orderby=include_slugs`) whose order the list keeps, if it does. */
function positionsToKeep(q: TermListQuery): number[] | string[] | undefined {
  if (q.orderby === 'include') return q.include;
  return q.orderby === 'include_slugs' ? q.slug : undefined;
}

function orderBy(q: TermListQuery): Prisma.TermOrderByWithRelationInput[] {
  return [orderColumn(q.orderby, q.order), { id: 'asc' }];
}

/** The column an `orderby` sorts by: by name unless it names another. */
function orderColumn(
  orderby: TermListQuery['orderby'],
  dir: TermListQuery['order'],
): Prisma.TermOrderByWithRelationInput {
  switch (orderby) {
    case 'id':
    case 'term_group':
      return { id: dir };
    case 'count':
      return { eventCount: dir };
    case 'slug':
      return { slug: dir };
    case 'description':
      return { description: dir };
    default:
      return { name: dir };
  }
}

export const getTerm = (ctx: ServiceContext, taxonomy: Taxonomy, id: number) => readTerm(ctx.db, taxonomy, id);

async function readTerm(db: Tx, taxonomy: Taxonomy, id: number): Promise<TermRecord> {
  const row = await db.term.findFirst({ where: { id, taxonomy } });
  if (!row) throw new NotFound(TYPE[taxonomy], id);
  return (await withPaths(db, [row]))[0];
}

export async function createTerm(ctx: ServiceContext, taxonomy: Taxonomy, input: TermInput): Promise<TermRecord> {
  const id = await inTransaction(ctx, async (tx) => {
    const created = await insertTerm(tx, ctx.caller, taxonomy, input);
    await chargeCreateIn(tx, ctx);
    return created;
  });
  return readTerm(ctx.db, taxonomy, id);
}

/** What creating, changing or deleting a term needs, however it is asked (its route, an event naming it, CalDAV, an import). */
const MANAGE = { tribe_events_cat: 'manage categories', post_tag: 'manage tags' } as const;

/**
 * Creates the term inside the caller's transaction and returns its ID. Creating a term needs its
 * capability (auth/capabilities.ts) at every door: its route, an event that names a new one,
 * CalDAV, the importer.
 */
export async function insertTerm(tx: Tx, caller: Caller, taxonomy: Taxonomy, input: TermInput): Promise<number> {
  // The document requires a name on create; the generated types lose that next to `allOf`.
  if (input.name === undefined) throw new InvalidInput({ name: 'name is required.' });
  const name = input.name.trim();
  const parentId = taxonomy === CATEGORY ? await checkParent(tx, input.parent, undefined) : null;
  // A term of that name is found (DuplicateTermName, which the importer adopts) before the role is asked.
  await checkNameFree(tx, taxonomy, name, parentId, undefined);
  if (!may(caller, MANAGE[taxonomy])) {
    const field = taxonomy === CATEGORY ? 'categories' : 'tags';
    throw new TermCreationForbidden(field, CAPABILITIES[MANAGE[taxonomy]], TYPE[taxonomy]);
  }
  const slug = await chooseSlug(tx, taxonomy, input.slug, name, undefined);
  const row = await tx.term.create({
    data: { taxonomy, name, slug, description: input.description ?? '', parentId },
    select: { id: true },
  });
  return row.id;
}

export async function updateTerm(
  ctx: ServiceContext,
  taxonomy: Taxonomy,
  id: number,
  input: TermInput,
): Promise<TermRecord> {
  await inTransaction(ctx, (tx) => changeTerm(tx, ctx, taxonomy, id, input));
  return readTerm(ctx.db, taxonomy, id);
}

/** The update above inside the caller's transaction (the importer's writes). */
export async function changeTerm(
  tx: Tx,
  ctx: ServiceContext,
  taxonomy: Taxonomy,
  id: number,
  input: TermInput,
): Promise<void> {
  assertMay(ctx.caller, MANAGE[taxonomy]);
  // A new parent is checked against the tree as it is: two moves at once (A under B, B under A)
  // would each pass the check and make a loop. They take turns on one lock of the tree, taken
  // before the term's row as advisory locks are (docs/architecture.md, "Locks").
  if (taxonomy === CATEGORY && input.parent !== undefined) await lockCategoryTree(tx);
  const current = await lockTerm(tx, taxonomy, id, 'NO KEY UPDATE');
  await claimVersion(tx.term, id, ctx.precondition);
  const name = input.name?.trim() ?? current.name;
  const parentId =
    taxonomy === CATEGORY && input.parent !== undefined ? await checkParent(tx, input.parent, id) : current.parentId;
  if (name !== current.name || parentId !== current.parentId) await checkNameFree(tx, taxonomy, name, parentId, id);
  const slug = input.slug !== undefined ? await chooseSlug(tx, taxonomy, input.slug, name, id) : current.slug;
  await tx.term.update({
    where: { id },
    data: { name, slug, parentId, description: input.description ?? current.description, modifiedAt: new Date() },
  });
}

/** Deletes for good; children of a deleted category move up to its parent. Returns the term as it was. */
export async function deleteTerm(ctx: ServiceContext, taxonomy: Taxonomy, id: number): Promise<TermRecord> {
  assertMay(ctx.caller, MANAGE[taxonomy]);
  return inTransaction(ctx, async (tx) => {
    await lockTerm(tx, taxonomy, id, 'UPDATE');
    await claimVersion(tx.term, id, ctx.precondition);
    const before = await readTerm(tx, taxonomy, id);
    await tx.term.updateMany({ where: { parentId: id }, data: { parentId: before.parentId || null } });
    await tx.term.delete({ where: { id } });
    return before;
  });
}

/**
 * The term, locked until the write's transaction ends: a second writer waits, then reads the first
 * one's committed row, so an update never writes back a name, slug, parent or description it was
 * not sent from a stale copy (the same reasoning as post-writes.ts lockForWrite). An update takes
 * NO KEY UPDATE, which lets events link to the term meanwhile (their foreign keys take KEY SHARE);
 * a delete takes UPDATE.
 */
async function lockTerm(tx: Tx, taxonomy: Taxonomy, id: number, mode: 'NO KEY UPDATE' | 'UPDATE'): Promise<Term> {
  const rows = await tx.$queryRaw<
    { id: number }[]
  >`SELECT id FROM terms WHERE id = ${id}::int AND taxonomy = ${taxonomy}::"Taxonomy" FOR ${Prisma.raw(mode)}`;
  const current = rows.length ? await tx.term.findUnique({ where: { id } }) : null;
  if (!current) throw new NotFound(TYPE[taxonomy], id);
  return current;
}

/** The lock of the category tree, for moves within it. */
async function lockCategoryTree(tx: Tx): Promise<void> {
  await tx.$executeRaw`SELECT pg_advisory_xact_lock(hashtextextended('category tree', 0))`;
}

/**
 * How many levels categories nest, a top-level one being level 1. WordPress sets no bound, but every
 * read of a category walks up its ancestors (withPaths, one query per level), so a chain of
 * thousands would make each read of its deepest one thousands of queries (docs/decisions.md,
 * "Categories and tags"). Real trees are a few levels deep.
 */
export const CATEGORY_MAX_DEPTH = 20;

/**
 * The parent a category may take: a category, not the category itself or one below it, and not so
 * deep that the category (or, for a move, the deepest category below it) would be below level
 * CATEGORY_MAX_DEPTH. One query each way, bounded by the limit whatever the tree holds.
 */
async function checkParent(tx: Tx, parent: number | undefined, self: number | undefined): Promise<number | null> {
  if (!parent) return null;
  // The new parent and its ancestors, nearest first, at most one level past the limit.
  const above = await tx.$queryRaw<{ id: number; parent_id: number | null }[]>`
    WITH RECURSIVE up(id, parent_id, level) AS (
      SELECT id, parent_id, 1 FROM terms WHERE id = ${parent}::int AND taxonomy = ${CATEGORY}::"Taxonomy"
      UNION ALL
      SELECT t.id, t.parent_id, up.level + 1 FROM terms t JOIN up ON t.id = up.parent_id
      WHERE up.level <= ${CATEGORY_MAX_DEPTH}::int
    )
    SELECT id, parent_id FROM up ORDER BY level`;
  if (!above.length) throw new InvalidInput({ parent: 'parent is not the ID of a category.' });
  if (self !== undefined && above.some((row) => row.id === self)) {
    throw new InvalidInput({ parent: 'parent would make the category its own ancestor.' });
  }
  // The parent's level, or more than the limit when the walk stopped short of the top.
  const parentLevel = above[above.length - 1].parent_id === null ? above.length : CATEGORY_MAX_DEPTH + 1;
  const levels = parentLevel + (self === undefined ? 1 : await subtreeLevels(tx, self));
  if (levels > CATEGORY_MAX_DEPTH) {
    const which = self === undefined ? 'the category' : 'the category or one below it';
    throw new InvalidInput({
      parent: `categories nest at most ${CATEGORY_MAX_DEPTH} levels: under this parent ${which} would be at level ${levels}.`,
    });
  }
  return parent;
}

/** How many levels a category and those below it make (1 for one without children), up to one past the limit. */
async function subtreeLevels(tx: Tx, id: number): Promise<number> {
  const [row] = await tx.$queryRaw<{ levels: number }[]>`
    WITH RECURSIVE down(id, level) AS (
      SELECT id, 1 FROM terms WHERE id = ${id}::int
      UNION ALL
      SELECT t.id, down.level + 1 FROM terms t JOIN down ON t.parent_id = down.id
      WHERE down.level <= ${CATEGORY_MAX_DEPTH}::int
    )
    SELECT max(level)::int AS levels FROM down`;
  return row.levels;
}

async function checkNameFree(
  tx: Tx,
  taxonomy: Taxonomy,
  name: string,
  parentId: number | null,
  self: number | undefined,
) {
  const clash = await tx.term.findFirst({
    where: { taxonomy, parentId, name: sameText(name), id: self ? { not: self } : undefined },
    select: { id: true },
  });
  if (clash) {
    throw new DuplicateTermName(TYPE[taxonomy], name, clash.id);
  }
}

async function chooseSlug(
  tx: Tx,
  taxonomy: Taxonomy,
  requested: string | undefined,
  name: string,
  self: number | undefined,
) {
  const explicit = requested !== undefined ? slugify(requested) : '';
  if (explicit) {
    const clash = await tx.term.findFirst({
      where: { taxonomy, slug: explicit, id: self ? { not: self } : undefined },
      select: { id: true },
    });
    if (clash) {
      throw new InvalidTermSlug(TYPE[taxonomy], explicit);
    }
    return explicit;
  }
  const base = slugify(name) || TYPE[taxonomy];
  const taken = await tx.term.findMany({
    where: { taxonomy, slug: startingWith(base), id: self ? { not: self } : undefined },
    select: { slug: true },
  });
  return firstFreeSlug(
    base,
    taken.map((t) => t.slug),
  );
}

/** The terms with these IDs, of either taxonomy (the change feed's). */
export async function termsWithIds(db: Tx, ids: number[]): Promise<TermRecord[]> {
  return withPaths(db, await db.term.findMany({ where: { id: { in: ids } } }));
}

async function withPaths(prisma: Tx, rows: TermRow[]): Promise<TermRecord[]> {
  // Load every ancestor of the page's categories, one level per query (categories are shallow).
  const known = new Map<number, { slug: string; parentId: number | null }>(rows.map((r) => [r.id, r]));
  let missing = rows.map((r) => r.parentId).filter((id): id is number => id !== null && !known.has(id));
  while (missing.length) {
    const parents = await prisma.term.findMany({
      where: { id: { in: [...new Set(missing)] } },
      select: { id: true, slug: true, parentId: true },
    });
    for (const p of parents) known.set(p.id, p);
    missing = parents.map((p) => p.parentId).filter((id): id is number => id !== null && !known.has(id));
  }
  return rows.map((row) => {
    const path = [row.slug];
    for (let p = row.parentId; p !== null && path.length < 100; p = known.get(p)?.parentId ?? null) {
      const parent = known.get(p);
      if (!parent) break;
      path.unshift(parent.slug);
    }
    return {
      id: row.id,
      taxonomy: row.taxonomy,
      name: row.name,
      slug: row.slug,
      description: row.description,
      parentId: row.parentId ?? 0,
      count: row.eventCount,
      path,
      modifiedAt: row.modifiedAt,
    };
  });
}
