// What an event links to, from the way a write or a list filter names it: categories and tags by
// ID, name or slug; venues and organizers by ID or as the fields of one to create (docs/decisions.md,
// "Representations"). Names that point nowhere are 400s naming the field, never silent drops.
import { Prisma } from '../../generated/prisma/client.js';
import { canRead } from '../auth/permissions.js';
import type { Caller } from '../auth/roles.js';
import type { PrismaClient, Tx } from '../db/client.js';
import { DuplicateTermName, InvalidInput } from '../domain/errors.js';
import type { PostStatus } from '../domain/posts.js';
import { CATEGORY, type Taxonomy, TERM_TYPE, type VenueOrOrganizerKind } from '../domain/records.js';
import { sameText } from '../lib/like.js';
import { maxLengthOf } from '../openapi.js';
import { selectRows } from '../db/driver.js';
import type { ServiceContext } from './context.js';
import { insertTerm } from './terms.js';
import { insertVenueOrOrganizer, lockNames, tableOf, type VenueOrOrganizerInput } from './venues-and-organizers.js';

/** A reference made of digits is an ID, however long; IDs are PostgreSQL integers, so a larger one names nothing. */
const isId = (ref: string | number) => typeof ref === 'number' || /^\d+$/.test(ref);
const MAX_ID = 2_147_483_647;
const inRange = (ref: string | number) => Number(ref) <= MAX_ID;
/** The longest name of a term, as the document says it (WordPress's too). */
const MAX_TERM_NAME = maxLengthOf('TermFields', 'name');
const sql = Prisma.sql;

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
  const refs = termRefs(taxonomy, field, value);
  const wantedIds = refs.filter(isId).map(Number);
  const found = new Set(
    (await tx.term.findMany({ where: { taxonomy, id: { in: wantedIds } }, select: { id: true } })).map((t) => t.id),
  );
  assertTermsFound(taxonomy, field, wantedIds, found);

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
    ids.push(byName ? byName.id : await insertNamedTerm(tx, ctx.caller, taxonomy, name));
  }
  return [...new Set(ids)];
}

/**
 * A term a write names that did not exist when it looked: another writer may have committed one of
 * that name since, which the write then links to, as it would have had it looked a moment later.
 */
async function insertNamedTerm(tx: Tx, caller: Caller, taxonomy: Taxonomy, name: string): Promise<number> {
  try {
    return await insertTerm(tx, caller, taxonomy, { name });
  } catch (err) {
    if (err instanceof DuplicateTermName) return err.existingId;
    throw err;
  }
}

/** A write's `categories` or `tags` as a list: an array as it is, one ID, or a comma-separated string. */
function refList(value: TermsWrite): (string | number)[] {
  if (Array.isArray(value)) return value;
  if (typeof value === 'number') return [value];
  return value.split(',');
}

/** The references of a write's `categories` or `tags`; 400 for an ID no term can have. */
function termRefs(taxonomy: Taxonomy, field: string, value: TermsWrite): (string | number)[] {
  const refs = refList(value)
    .map((ref) => (typeof ref === 'string' ? ref.trim() : ref))
    .filter((ref) => ref !== '' && ref !== 0);
  const tooLarge = refs.find((ref) => isId(ref) && !inRange(ref));
  if (tooLarge !== undefined)
    throw new InvalidInput({ [field]: `There is no ${TERM_TYPE[taxonomy]} with ID ${tooLarge}.` });
  // The document bounds each name of an array; the names of one comma-separated string it cannot.
  // Counted in characters (code points), as the document's maxLength and the column count them.
  if (refs.some((ref) => Array.from(String(ref)).length > MAX_TERM_NAME))
    throw new InvalidInput({ [field]: `A ${TERM_TYPE[taxonomy]} name has at most ${MAX_TERM_NAME} characters.` });
  return refs;
}

/** 400 naming the first wanted ID that is not a term of the taxonomy. */
export function assertTermsFound(taxonomy: Taxonomy, field: string, wantedIds: number[], found: Set<number>) {
  const missing = wantedIds.find((id) => !found.has(id));
  if (missing !== undefined)
    throw new InvalidInput({ [field]: `There is no ${TERM_TYPE[taxonomy]} with ID ${missing}.` });
}

/**
 * The term IDs a write names when it names them by ID only (to be checked with assertTermsFound),
 * in order and without repeats; undefined when it names one by name or slug (termIdsForWrite).
 */
export function termIdsOnly(taxonomy: Taxonomy, field: string, value: TermsWrite): number[] | undefined {
  const refs = termRefs(taxonomy, field, value);
  return refs.every(isId) ? [...new Set(refs.map(Number))] : undefined;
}

/**
 * The term IDs a list filter names, by slug first and then by ID, as the modelled service resolves them.
 * A category also stands for every category below it.
 */
export async function termIdsForFilter(
  db: PrismaClient,
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
  const items = Array.isArray(value) ? value : [value];
  const created = items.filter((item): item is VenueOrOrganizerInput => linkedId(kind, item) === undefined);
  if (created.length > 1)
    await lockNames(
      tx,
      kind,
      created.map((item) => String(item[kind.nameField])),
    );
  const ids: number[] = [];
  const named: number[] = [];
  for (const item of items) {
    const id = linkedId(kind, item);
    if (id === 0 && typeof item !== 'object') continue; // 0 names none
    if (id !== undefined) named.push(id);
    ids.push(id ?? (await insertVenueOrOrganizer(tx, ctx, kind, item as VenueOrOrganizerInput)).row.id);
  }
  // Those named by ID must be there for the caller; those found or made by their fields are.
  const unique = [...new Set(ids)];
  assertVenuesOrOrganizersFound(
    ctx.caller,
    kind,
    named,
    await tableOf(kind, tx).findMany({ where: { id: { in: named } } }),
  );
  return unique;
}

/** The ID an item of a write's `venue` or `organizer` names (0 for none), a 400, or undefined for fields of a new one. */
function linkedId(kind: VenueOrOrganizerKind, item: number | string | VenueOrOrganizerInput): number | undefined {
  const field = kind.type;
  if (typeof item === 'number' || typeof item === 'string') {
    if (!isId(item)) throw new InvalidInput({ [field]: `${field} must be the ID of a ${kind.type} or its fields.` });
    if (!inRange(item)) throw new InvalidInput({ [field]: `There is no ${kind.type} with ID ${item}.` });
    return Number(item);
  }
  if (item.id === undefined) return undefined;
  const id = item.id as string | number;
  if (!isId(id) || !inRange(id)) throw new InvalidInput({ [field]: `There is no ${kind.type} with ID ${id}.` });
  return Number(id);
}

/**
 * The IDs a write's `venue` or `organizer` names when it creates none (to be checked with
 * assertVenuesOrOrganizersFound), in order and without repeats; undefined when it has the fields of
 * a new one (venueOrOrganizerIdsForWrite).
 */
export function venueOrOrganizerIdsOnly(kind: VenueOrOrganizerKind, value: LinksWrite): number[] | undefined {
  const items = Array.isArray(value) ? value : [value];
  if (items.some((item) => typeof item === 'object' && item.id === undefined)) return undefined;
  const ids: number[] = [];
  for (const item of items) {
    const id = linkedId(kind, item) ?? 0; // never undefined: no item has the fields of a new one
    if (id !== 0 || typeof item === 'object') ids.push(id); // 0 names none
  }
  return [...new Set(ids)];
}

/** 400 naming the first ID that is not a venue (organizer) the caller may see. */
export function assertVenuesOrOrganizersFound(
  caller: Caller,
  kind: VenueOrOrganizerKind,
  ids: number[],
  rows: { id: number; status: PostStatus; authorId: number | null }[],
) {
  const missing = ids.find((id) => {
    const row = rows.find((r) => r.id === id);
    return !row || row.status === 'trash' || !canRead(caller, row);
  });
  if (missing !== undefined) throw new InvalidInput({ [kind.type]: `There is no ${kind.type} with ID ${missing}.` });
}

/** 400 unless every ID of a list filter is a venue or organizer the caller may read (others are as missing). */
export async function assertVenuesOrOrganizersExist(ctx: ServiceContext, kind: VenueOrOrganizerKind, ids: number[]) {
  const { caller } = ctx;
  const rows = await selectRows<{ id: number; status: PostStatus; author_id: number | null }>(
    ctx.db,
    sql`SELECT id, status, author_id FROM ${Prisma.raw(kind.tableName)} WHERE id = ANY(${ids}::int[])`,
  );
  const missing = ids.find((id) => {
    const row = rows.find((r) => r.id === id);
    return !row || !canRead(caller, { status: row.status, authorId: row.author_id });
  });
  if (missing !== undefined) throw new InvalidInput({ [kind.type]: `There is no ${kind.type} with ID ${missing}.` });
}
