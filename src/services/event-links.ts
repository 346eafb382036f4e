// What an event links to, from the way a write or a list filter names it: categories and tags by
// ID, name or slug; venues and organizers by ID or as the fields of one to create (docs/decisions.md,
// "Representations"). Names that point nowhere are 400s naming the field, never silent drops.
import { Prisma as PrismaNS } from '../../generated/prisma/client.js';
import { canRead, mayCall } from '../auth/permissions.js';
import type { Caller } from '../auth/roles.js';
import type { Prisma, Tx } from '../db/client.js';
import { InvalidInput, TermCreationForbidden } from '../domain/errors.js';
import type { PostStatus } from '../domain/posts.js';
import { CATEGORY, type Taxonomy, TERM_TYPE, type VenueOrOrganizerKind } from '../domain/records.js';
import { requiredRole } from '../openapi.js';
import { sameText } from '../lib/like.js';
import { selectRows } from '../queries/reads.js';
import type { ServiceContext } from './context.js';
import { insertTerm } from './terms.js';
import { insertVenueOrOrganizer, tableOf, type VenueOrOrganizerInput } from './venues-and-organizers.js';

/** A reference made of digits is an ID, however long; IDs are PostgreSQL integers, so a larger one names nothing. */
const isId = (ref: string | number) => typeof ref === 'number' || /^\d+$/.test(ref);
const MAX_ID = 2_147_483_647;
const inRange = (ref: string | number) => Number(ref) <= MAX_ID;
/** The operation whose role a write needs to create a term by naming it. */
const CREATE_TERM = { tribe_events_cat: 'createCategory', post_tag: 'createTag' } as const;
const sql = PrismaNS.sql;

/** A write's `categories` or `tags`: an array, or one comma-separated string. */
export type TermsWrite = string | number | (string | number)[];

/**
 * The term IDs a write names. IDs must exist in the taxonomy; names match an existing term's name
 * (any case) or slug, and otherwise create the term. Runs in the write's transaction, so a term
 * created here is rolled back with a failed write.
 */
export async function termIdsForWrite(
  tx: Tx,
  ctx: ServiceContext,
  taxonomy: Taxonomy,
  field: string,
  value: TermsWrite,
): Promise<number[]> {
  const refs = (Array.isArray(value) ? value : typeof value === 'number' ? [value] : value.split(','))
    .map((ref) => (typeof ref === 'string' ? ref.trim() : ref))
    .filter((ref) => ref !== '' && ref !== 0);
  const tooLarge = refs.find((ref) => isId(ref) && !inRange(ref));
  if (tooLarge !== undefined)
    throw new InvalidInput({ [field]: `There is no ${TERM_TYPE[taxonomy]} with ID ${tooLarge}.` });
  const wantedIds = refs.filter(isId).map(Number);
  const found = new Set(
    (await tx.term.findMany({ where: { taxonomy, id: { in: wantedIds } }, select: { id: true } })).map((t) => t.id),
  );
  const missing = wantedIds.find((id) => !found.has(id));
  if (missing !== undefined)
    throw new InvalidInput({ [field]: `There is no ${TERM_TYPE[taxonomy]} with ID ${missing}.` });

  const ids: number[] = [];
  for (const ref of refs) {
    if (isId(ref)) {
      ids.push(Number(ref));
      continue;
    }
    const name = String(ref);
    const matches = await tx.term.findMany({
      where: { taxonomy, OR: [{ name: sameText(name) }, { slug: name.toLowerCase() }] },
      select: { id: true, name: true },
      orderBy: { id: 'asc' },
    });
    const byName = matches.find((t) => t.name.toLowerCase() === name.toLowerCase()) ?? matches.at(0);
    if (!byName) assertMayCreateTerm(ctx.caller, taxonomy, field);
    ids.push(byName ? byName.id : await insertTerm(tx, taxonomy, { name }));
  }
  return [...new Set(ids)];
}

/** Naming a new term creates it, so it needs the role that creating it through its own route needs. */
function assertMayCreateTerm(caller: Caller, taxonomy: Taxonomy, field: string) {
  if (mayCall(caller, CREATE_TERM[taxonomy])) return;
  throw new TermCreationForbidden(field, requiredRole(CREATE_TERM[taxonomy]) ?? '', TERM_TYPE[taxonomy]);
}

/**
 * The term IDs a list filter names, by slug first and then by ID, as the modelled service resolves them.
 * A category also stands for every category below it.
 */
export async function termIdsForFilter(
  db: Prisma,
  taxonomy: Taxonomy,
  field: string,
  refs: (string | number)[],
): Promise<number[]> {
  const texts = refs.map(String);
  const ids = refs.filter((ref) => isId(ref) && inRange(ref)).map(Number);
  // Every term a reference could name, each with itself and, for categories, every one below it, in
  // one statement; which of them a reference names is decided here.
  const rows = await selectRows<{ root: number; slug: string; id: number }>(
    db,
    sql`WITH RECURSIVE named AS (
          SELECT id, slug FROM terms WHERE taxonomy = ${taxonomy}::"Taxonomy" AND (slug = ANY(${texts}::text[]) OR id = ANY(${ids}::int[]))),
        tree(root, id) AS (
          SELECT id, id FROM named
          UNION SELECT tree.root, t.id FROM terms t JOIN tree ON t.parent_id = tree.id WHERE ${taxonomy === CATEGORY}::boolean)
        SELECT tree.root, named.slug, tree.id FROM tree JOIN named ON named.id = tree.root`,
  );
  const named = rows.filter((row) => row.id === row.root);
  const roots = texts.map(
    (ref) => (named.find((t) => t.slug === ref) ?? named.find((t) => isId(ref) && t.id === Number(ref)))?.id,
  );
  const unknown = texts.find((_, i) => roots[i] === undefined);
  if (unknown !== undefined) throw new InvalidInput({ [field]: `There is no ${TERM_TYPE[taxonomy]} "${unknown}".` });
  return [...new Set(rows.filter((row) => roots.includes(row.root)).map((row) => row.id))];
}

/** A write's `venue` or `organizer`: 0, an ID, `{id}`, the fields of a new one, or an array of those. */
export type LinksWrite = number | string | VenueOrOrganizerInput | (number | string | VenueOrOrganizerInput)[];

/**
 * The venue or organizer IDs a write names, in order. Objects without `id` are created (or matched
 * to an existing duplicate) inside the write's transaction. Every ID must be one the caller can see.
 */
export async function venueOrOrganizerIdsForWrite(
  tx: Tx,
  ctx: ServiceContext,
  kind: VenueOrOrganizerKind,
  value: LinksWrite,
): Promise<number[]> {
  const { caller } = ctx;
  const field = kind.type;
  const ids: number[] = [];
  for (const item of Array.isArray(value) ? value : [value]) {
    if (typeof item === 'number' || typeof item === 'string') {
      if (!isId(item)) throw new InvalidInput({ [field]: `${field} must be the ID of a ${kind.type} or its fields.` });
      if (!inRange(item)) throw new InvalidInput({ [field]: `There is no ${kind.type} with ID ${item}.` });
      if (Number(item) !== 0) ids.push(Number(item));
    } else if (item.id !== undefined) {
      const id = item.id as string | number;
      if (!isId(id) || !inRange(id)) throw new InvalidInput({ [field]: `There is no ${kind.type} with ID ${id}.` });
      ids.push(Number(id));
    } else {
      ids.push((await insertVenueOrOrganizer(tx, ctx, kind, item)).row.id);
    }
  }
  const unique = [...new Set(ids)];
  const rows = await tableOf(kind, tx).findMany({ where: { id: { in: unique } } });
  const missing = unique.find((id) => {
    const row = rows.find((r) => r.id === id);
    return !row || row.status === 'trash' || !canRead(caller, row);
  });
  if (missing !== undefined) throw new InvalidInput({ [field]: `There is no ${kind.type} with ID ${missing}.` });
  return unique;
}

/** 400 unless every ID of a list filter is a venue or organizer the caller may read (others are as missing). */
export async function assertVenuesOrOrganizersExist(ctx: ServiceContext, kind: VenueOrOrganizerKind, ids: number[]) {
  const { caller } = ctx;
  const rows = await selectRows<{ id: number; status: PostStatus; author_id: number | null }>(
    ctx.db,
    sql`SELECT id, status, author_id FROM ${PrismaNS.raw(kind.tableName)} WHERE id = ANY(${ids}::int[])`,
  );
  const missing = ids.find((id) => {
    const row = rows.find((r) => r.id === id);
    return !row || !canRead(caller, { status: row.status, authorId: row.author_id });
  });
  if (missing !== undefined) throw new InvalidInput({ [kind.type]: `There is no ${kind.type} with ID ${missing}.` });
}
