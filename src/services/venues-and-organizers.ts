// Venues and organizers: posts that events link to. Both behave the same (docs/decisions.md,
// "Venues and organizers"), so one implementation serves both, told apart by their kind
// (domain/records.ts VENUE and ORGANIZER); what only venues do is in venues.ts. Writes run in one
// transaction and retry when a concurrent writer takes the same slug first.
import type { operations } from '../../generated/api.js';
import { assertMay } from '../auth/capabilities.js';
import { effectiveAuthor, effectiveStatus, listScope } from '../auth/permissions.js';
import { hasRole } from '../auth/roles.js';
import type { PrismaClient, Tx } from '../db/client.js';
import { InvalidInput, NotFound } from '../domain/errors.js';
import { describeKey, type Key, type PostStatus } from '../domain/posts.js';
import type { VenueOrOrganizerKind, VenueOrOrganizerRecord } from '../domain/records.js';
import { sameText, startingWith } from '../lib/like.js';
import { selectVenuesOrOrganizers } from '../queries/venue-organizer-list.js';
import type { ServiceContext } from './context.js';
import { imageColumns } from './media.js';
import { lockForWrite, type PostTable, slugForUpdate, trashOrDelete } from './post-writes.js';
import { assertReadable, freeSlug, modifiedAfter, publicationDate, readableEvent, userExists } from './posts.js';
import { chargeCreateIn } from './quotas.js';
import { inTransaction } from './retry.js';
import { venueColumns } from './venues.js';

/** The part of a Prisma model delegate used here; both models fit it. */
interface Delegate {
  findFirst(args: object): Promise<VenueOrOrganizerRecord | null>;
  findMany(args: object): Promise<VenueOrOrganizerRecord[]>;
  create(args: object): Promise<VenueOrOrganizerRecord>;
  update(args: object): Promise<VenueOrOrganizerRecord>;
  updateMany(args: { where: object; data: object }): Promise<{ count: number }>;
  delete(args: object): Promise<unknown>;
}

/** The kind's table. */
export const tableOf = (kind: VenueOrOrganizerKind, db: PrismaClient | Tx): Delegate =>
  kind.type === 'venue' ? db.venue : db.organizer;

/** A write of a venue or organizer: the fields both kinds have, and the kind's own. */
export type VenueOrOrganizerInput = Record<string, unknown> & {
  author?: number;
  status?: PostStatus;
  slug?: string;
  date?: string | number;
  date_utc?: string | number;
  description?: string;
  excerpt?: string;
  image?: string | number;
};

/** The filters of the venue and organizer lists, as the document defines them. */
export type VenueOrOrganizerListQuery = Omit<
  NonNullable<operations['listVenues']['parameters']['query']>,
  'page' | 'per_page'
>;

/** A page of venues or organizers, newest first, and how many match in all. */
export async function listVenuesOrOrganizers(
  ctx: ServiceContext,
  kind: VenueOrOrganizerKind,
  q: VenueOrOrganizerListQuery & { hasEvents?: boolean; onlyWithUpcoming: boolean },
  page: { take: number; skip: number },
) {
  if (q.event !== undefined && !(await readableEvent(ctx.db, ctx.caller, q.event))) {
    throw new InvalidInput({ event: 'event is not the ID of an event.' });
  }
  return selectVenuesOrOrganizers(
    ctx.db,
    kind,
    {
      scope: listScope(ctx.caller, q.status),
      readableEvents: listScope(ctx.caller, undefined),
      search: q.search,
      event: q.event,
      hasEvents: q.hasEvents,
      upcomingAfter: q.onlyWithUpcoming ? ctx.now : undefined,
      modifiedAfter: modifiedAfter(q.modified_after, ctx),
    },
    page,
  );
}

export async function getVenueOrOrganizer(
  ctx: ServiceContext,
  kind: VenueOrOrganizerKind,
  key: Key,
): Promise<VenueOrOrganizerRecord> {
  const row = await tableOf(kind, ctx.db).findFirst({ where: 'id' in key ? { id: key.id } : { slug: key.slug } });
  if (!row) throw new NotFound(kind.type, describeKey(key));
  assertReadable(kind.type, ctx.caller, row);
  return row;
}

export interface CreateResult {
  row: VenueOrOrganizerRecord;
  /** False when an identical item existed and was returned instead (duplicate avoidance). */
  created: boolean;
}

export async function createVenueOrOrganizer(
  ctx: ServiceContext,
  kind: VenueOrOrganizerKind,
  input: VenueOrOrganizerInput,
): Promise<CreateResult> {
  return inTransaction(ctx, async (tx) => {
    const result = await insertVenueOrOrganizer(tx, ctx, kind, input);
    if (result.created) await chargeCreateIn(tx, ctx);
    return result;
  });
}

/**
 * Duplicates are told apart by optional fields too, so no unique index can settle a race between
 * two creates of the same name. Creates of one name take turns instead: the second waits on the
 * name's lock until the first commits, then finds its row as a duplicate. The locks are released at
 * commit; a transaction that creates several takes them all first, in one order (docs/architecture.md,
 * "Locks"), and taking one again is free.
 */
export async function lockNames(tx: Tx, kind: VenueOrOrganizerKind, names: string[]): Promise<void> {
  const keys = [...new Set(names.map((name) => `${kind.type}:${name.trim().toLowerCase()}`))].sort();
  for (const key of keys) await tx.$executeRaw`SELECT pg_advisory_xact_lock(hashtextextended(${key}::text, 0))`;
}

/** Creates the item inside the caller's transaction (events create their venues and organizers so). */
export async function insertVenueOrOrganizer(
  tx: Tx,
  ctx: ServiceContext,
  kind: VenueOrOrganizerKind,
  input: VenueOrOrganizerInput,
): Promise<CreateResult> {
  const { caller } = ctx;
  assertMay(caller, kind.type === 'venue' ? 'create venues' : 'create organizers');
  const name = String(input[kind.nameField]).trim();
  await lockNames(tx, kind, [name]);
  const existing = await findDuplicate(tx, ctx, kind, name, input);
  if (existing) return { row: existing, created: false };
  const status = effectiveStatus(caller, input.status);
  const publishedAt = publicationDate(input, ctx.siteZone);
  const slug = await freeSlug(input.slug, name, kind.type, (base) => takenSlugs(tx, kind, base, undefined));
  const row = await tableOf(kind, tx).create({
    data: {
      ...columns(kind, input, undefined),
      ...(await imageColumns(input.image, tx, caller)),
      name,
      slug,
      status,
      authorId: await effectiveAuthor(caller, input.author, undefined, (id) => userExists(tx, id)),
      ...(publishedAt ? { publishedAt } : {}),
    },
  });
  return { row, created: true };
}

export async function updateVenueOrOrganizer(
  ctx: ServiceContext,
  kind: VenueOrOrganizerKind,
  key: Key,
  input: VenueOrOrganizerInput,
): Promise<VenueOrOrganizerRecord> {
  return inTransaction(ctx, (tx) => changeVenueOrOrganizer(tx, ctx, kind, key, input));
}

/** The update above inside the caller's transaction (the importer's writes). */
export async function changeVenueOrOrganizer(
  tx: Tx,
  ctx: ServiceContext,
  kind: VenueOrOrganizerKind,
  key: Key,
  input: VenueOrOrganizerInput,
): Promise<VenueOrOrganizerRecord> {
  const current = await lockForWrite(tx, ctx, postTable(kind, tx), key);
  const name = input[kind.nameField] !== undefined ? String(input[kind.nameField]).trim() : current.name;
  const slug = await slugForUpdate(input.slug, current, name, kind.type, (base) =>
    takenSlugs(tx, kind, base, current.id),
  );
  const publishedAt = publicationDate(input, ctx.siteZone);
  return tableOf(kind, tx).update({
    where: { id: current.id },
    data: {
      ...columns(kind, input, current),
      ...(await imageColumns(input.image, tx, ctx.caller)),
      name,
      slug,
      status: effectiveStatus(ctx.caller, input.status, current.status),
      authorId: await effectiveAuthor(ctx.caller, input.author, current.authorId, (id) => userExists(tx, id)),
      modifiedAt: new Date(),
      ...(publishedAt ? { publishedAt } : {}),
    },
  });
}

/**
 * Moves the item to the trash, or with `force` deletes it for good, its links to events included.
 * Answers the item as it is after the trash, or as it was.
 */
export async function deleteVenueOrOrganizer(
  ctx: ServiceContext,
  kind: VenueOrOrganizerKind,
  key: Key,
  force: boolean,
): Promise<VenueOrOrganizerRecord> {
  return inTransaction(ctx, async (tx) => {
    const current = await lockForWrite(tx, ctx, postTable(kind, tx), key);
    const table = tableOf(kind, tx);
    return trashOrDelete(ctx, kind.type, current, force, {
      trash: () => table.update({ where: { id: current.id }, data: { status: 'trash', modifiedAt: new Date() } }),
      remove: async () => {
        await table.delete({ where: { id: current.id } });
        return current;
      },
    });
  });
}

function postTable(kind: VenueOrOrganizerKind, tx: Tx): PostTable<VenueOrOrganizerRecord> {
  const table = tableOf(kind, tx);
  return { type: kind.type, name: kind.tableName, read: (id) => table.findFirst({ where: { id } }), delegate: table };
}

/** A field of the body as text; the document makes the text fields strings. */
const trimmedText = (value: unknown) => String(value).trim();

/** The columns a write sets besides name, slug, status, author and dates. */
function columns(
  kind: VenueOrOrganizerKind,
  input: VenueOrOrganizerInput,
  current: VenueOrOrganizerRecord | undefined,
): Record<string, unknown> {
  const data: Record<string, unknown> = {};
  for (const field of ['description', 'excerpt', ...kind.textFields]) {
    if (input[field] !== undefined) data[field] = trimmedText(input[field]);
  }
  return kind.type === 'venue' ? { ...data, ...venueColumns(input, current) } : data;
}

/**
 * An item that a new one would duplicate: same name and the same values of the kind's duplicate
 * fields that were sent, compared without case. Only items the caller can see are candidates, so
 * nobody learns of another author's drafts this way.
 */
async function findDuplicate(
  tx: Tx,
  ctx: ServiceContext,
  kind: VenueOrOrganizerKind,
  name: string,
  input: VenueOrOrganizerInput,
) {
  const same = (value: unknown) => sameText(trimmedText(value));
  const fields = kind.duplicateFields.filter((f) => input[f] !== undefined && trimmedText(input[f]) !== '');
  return tableOf(kind, tx).findFirst({
    where: {
      AND: [
        { name: same(name) },
        ...fields.map((f) => ({ [f]: same(input[f]) })),
        { status: { not: 'trash' } },
        hasRole(ctx.caller, 'editor') ? {} : { OR: [{ status: 'publish' }, { authorId: ctx.caller?.id ?? -1 }] },
      ],
    },
    orderBy: { id: 'asc' },
  });
}

async function takenSlugs(tx: Tx, kind: VenueOrOrganizerKind, base: string, self: number | undefined) {
  const rows = await tableOf(kind, tx).findMany({
    where: { slug: startingWith(base), ...(self ? { id: { not: self } } : {}) },
    select: { slug: true },
  });
  return rows.map((r) => r.slug);
}
