// Venues and organizers: posts that events link to. Both behave the same (reference parts 1.2, 1.3,
// 2.4, 3), so one implementation serves both, told apart by a LinkedKind. Writes run in one
// transaction and retry when a concurrent writer takes the same slug first.
import { Prisma as PrismaNS } from '../../generated/prisma/client.js';
import { effectiveAuthor, effectiveStatus, listScope, type PostStatus } from '../auth/permissions.js';
import { type Caller, hasRole } from '../auth/roles.js';
import type { Prisma, Tx } from '../db/client.js';
import type { Precondition } from '../http/conditional.js';
import { invalidParams, notFound } from '../http/errors.js';
import { selectRows } from '../db/reads.js';
import { record } from '../db/rows.js';
import { containingPattern, sameText, startingWith } from '../lib/like.js';
import {
  assertEditable,
  assertReadable,
  claimVersion,
  freeSlug,
  imageValue,
  lockPost,
  publicationDate,
  readableEvent,
  trashOrDelete,
  truthy,
  userExists,
  describeKey,
  type Key,
  whereKey,
} from './posts.js';
import { inScope } from './list-scope.js';
import { retryOnConflict } from './retry.js';

export interface LinkedKind {
  type: 'venue' | 'organizer';
  /** The field of the representation and of writes that holds the name. */
  nameField: 'venue' | 'organizer';
  /** Text fields stored in a column of the same name. */
  textFields: readonly string[];
  tableName: 'venues' | 'organizers';
  /** The table of links from events. */
  linkTable: 'event_venues' | 'event_organizers';
  /** Fields searched besides name, description and excerpt (reference part 2.4). */
  searchFields: readonly string[];
  /** Fields that, with the name, make a new item the same as an existing one (reference part 3.1). */
  duplicateFields: readonly string[];
  /** Columns this kind computes from a write (venue map flags, coordinates, state or province). */
  derived?: (input: LinkedInput, current: LinkedRow | undefined) => Record<string, unknown>;
  table: (db: Prisma | Tx) => Delegate;
}

/** The part of a Prisma model delegate used here; both models fit it. */
interface Delegate {
  findFirst(args: object): Promise<LinkedRow | null>;
  findMany(args: object): Promise<LinkedRow[]>;
  count(args: object): Promise<number>;
  create(args: object): Promise<LinkedRow>;
  update(args: object): Promise<LinkedRow>;
  updateMany(args: { where: object; data: object }): Promise<{ count: number }>;
  delete(args: object): Promise<unknown>;
}

export interface LinkedRow {
  id: number;
  authorId: number | null;
  status: PostStatus;
  slug: string;
  name: string;
  description: string;
  excerpt: string;
  publishedAt: Date;
  modifiedAt: Date;
  image: string | null;
  [column: string]: unknown;
}

export type LinkedInput = Record<string, string | number | boolean | undefined> & {
  author?: number;
  status?: PostStatus;
  slug?: string;
  date?: string | number;
  date_utc?: string | number;
  description?: string;
  excerpt?: string;
  image?: string | number;
};

export type { Key } from './posts.js';

export interface LinkedListQuery {
  page: number;
  perPage: number;
  search?: string;
  event?: number;
  hasEvents?: boolean;
  onlyWithUpcoming: boolean;
  status?: PostStatus[];
}

/**
 * A page of venues or organizers, newest first, and how many match in all, in one SQL statement:
 * the matches are found once for both (as for events, services/event-rows.ts).
 */
export async function listLinked(prisma: Prisma, kind: LinkedKind, caller: Caller, q: LinkedListQuery) {
  if (q.event !== undefined && !(await readableEvent(prisma, caller, q.event))) {
    throw invalidParams({ event: 'event is not the ID of an event.' });
  }
  const { sql, raw } = PrismaNS;
  const [table, links, column] = [raw(kind.tableName), raw(kind.linkTable), raw(`${kind.type}_id`)];
  const withEvents = (condition: PrismaNS.Sql) =>
    sql`EXISTS (SELECT 1 FROM ${links} l JOIN events ev ON ev.id = l.event_id WHERE l.${column} = p.id AND ${condition})`;
  // Only events the caller may read count (reference part 2.4: `has_events` wants one that is not a
  // draft or pending, `has_events=false` no event at all): nobody learns of an event it may not read
  // through a venue or organizer list.
  const readable = inScope(listScope(caller, undefined), 'ev');
  const counted = sql`${readable} AND ev.status NOT IN ('draft', 'pending', 'trash')`;
  const and = [inScope(listScope(caller, q.status), 'p')];
  if (q.search) {
    const pattern = containingPattern(q.search);
    and.push(
      sql`(${PrismaNS.join(
        ['name', 'description', 'excerpt', ...kind.searchFields].map((c) => sql`p.${raw(c)} ILIKE ${pattern}`),
        ' OR ',
      )})`,
    );
  }
  if (q.event !== undefined)
    and.push(sql`EXISTS (SELECT 1 FROM ${links} l WHERE l.${column} = p.id AND l.event_id = ${q.event}::int)`);
  if (q.hasEvents === true) and.push(withEvents(counted));
  if (q.hasEvents === false) and.push(sql`NOT ${withEvents(readable)}`);
  if (q.onlyWithUpcoming) and.push(withEvents(sql`ev.start_utc >= ${new Date()}::timestamptz AND ${readable}`));
  const where = PrismaNS.join(and, ' AND ');
  const order = sql`ORDER BY p.published_at DESC, p.id DESC`;
  const rows = await selectRows<{ row: string; total: number }>(
    prisma,
    sql`SELECT (to_jsonb(p) - 'total_matches')::text AS row, p.total_matches::int AS total
        FROM (SELECT p.*, count(*) OVER () AS total_matches FROM ${table} p WHERE ${where} ${order}
              LIMIT ${q.perPage}::int OFFSET ${(q.page - 1) * q.perPage}::int) p ${order}`,
  );
  // A page past the end still tells the total.
  const total =
    rows[0]?.total ??
    (await selectRows<{ total: number }>(prisma, sql`SELECT count(*)::int AS total FROM ${table} p WHERE ${where}`))[0]
      .total;
  return { total, items: rows.map(({ row }) => record(JSON.parse(row)) as LinkedRow) };
}

export async function getLinked(prisma: Prisma, kind: LinkedKind, caller: Caller, key: Key): Promise<LinkedRow> {
  const row = await kind.table(prisma).findFirst({ where: whereKey(key) });
  if (!row) throw notFound(kind.type, describeKey(key));
  assertReadable(kind.type, caller, row);
  return row;
}

export interface CreateResult {
  row: LinkedRow;
  /** False when an identical item existed and was returned instead (duplicate avoidance). */
  created: boolean;
}

export async function createLinked(
  prisma: Prisma,
  kind: LinkedKind,
  caller: Caller,
  input: LinkedInput,
  siteZone: string,
): Promise<CreateResult> {
  return retryOnConflict(() => prisma.$transaction((tx) => insertLinked(tx, kind, caller, input, siteZone)));
}

/** Creates the item inside the caller's transaction (events create their venues and organizers so). */
export async function insertLinked(
  tx: Tx,
  kind: LinkedKind,
  caller: Caller,
  input: LinkedInput,
  siteZone: string,
): Promise<CreateResult> {
  const name = String(input[kind.nameField]).trim();
  // Duplicates are told apart by optional fields too, so no unique index can settle a race between
  // two creates of the same name. Creates of one name take turns instead: the second waits here
  // until the first commits, then finds its row as a duplicate. The lock is released at commit.
  await tx.$executeRaw`SELECT pg_advisory_xact_lock(hashtextextended(${`${kind.type}:${name.toLowerCase()}`}::text, 0))`;
  const existing = await findDuplicate(tx, kind, caller, name, input);
  if (existing) return { row: existing, created: false };
  const status = effectiveStatus(caller, input.status);
  const publishedAt = publicationDate(input, siteZone);
  const slug = await freeSlug(input.slug, name, kind.type, (base) => takenSlugs(tx, kind, base, undefined));
  const row = await kind.table(tx).create({
    data: {
      ...columns(kind, input, undefined),
      name,
      slug,
      status,
      authorId: await effectiveAuthor(caller, input.author, undefined, (id) => userExists(tx, id)),
      ...(publishedAt ? { publishedAt } : {}),
    },
  });
  return { row, created: true };
}

export async function updateLinked(
  prisma: Prisma,
  kind: LinkedKind,
  caller: Caller,
  key: Key,
  input: LinkedInput,
  siteZone: string,
  precondition?: Precondition,
): Promise<LinkedRow> {
  return retryOnConflict(() =>
    prisma.$transaction(async (tx) => {
      const current = await lockedLinked(tx, kind, key);
      assertEditable(caller, current);
      await claimVersion(kind.table(tx), current.id, precondition);
      const name = input[kind.nameField] !== undefined ? String(input[kind.nameField]).trim() : current.name;
      const slug =
        input.slug !== undefined && input.slug !== current.slug
          ? await freeSlug(input.slug, name, kind.type, (base) => takenSlugs(tx, kind, base, current.id))
          : current.slug;
      const publishedAt = publicationDate(input, siteZone);
      const status = effectiveStatus(caller, input.status, current.status);
      return kind.table(tx).update({
        where: { id: current.id },
        data: {
          ...columns(kind, input, current),
          name,
          slug,
          status,
          authorId: await effectiveAuthor(caller, input.author, current.authorId, (id) => userExists(tx, id)),
          modifiedAt: new Date(),
          ...(publishedAt ? { publishedAt } : {}),
        },
      });
    }),
  );
}

/**
 * Moves the item to the trash (410 when it is there already), or with `force` deletes it for good,
 * its links to events included. Answers the item as it is after the trash, or as it was.
 */
export async function deleteLinked(
  prisma: Prisma,
  kind: LinkedKind,
  caller: Caller,
  key: Key,
  force: boolean,
  precondition?: Precondition,
): Promise<LinkedRow> {
  return retryOnConflict(() =>
    prisma.$transaction(async (tx) => {
      const current = await lockedLinked(tx, kind, key);
      assertEditable(caller, current);
      await claimVersion(kind.table(tx), current.id, precondition);
      return trashOrDelete(kind.type, caller, current, force, {
        trash: () =>
          kind.table(tx).update({ where: { id: current.id }, data: { status: 'trash', modifiedAt: new Date() } }),
        remove: async () => {
          await kind.table(tx).delete({ where: { id: current.id } });
          return current;
        },
      });
    }),
  );
}

/** The item a key names, locked for the rest of the transaction (posts.ts lockPost says why). */
async function lockedLinked(tx: Tx, kind: LinkedKind, key: Key): Promise<LinkedRow> {
  const id = await lockPost(tx, kind.tableName, key);
  const current = id === undefined ? null : await kind.table(tx).findFirst({ where: { id } });
  if (!current) throw notFound(kind.type, describeKey(key));
  return current;
}

/** The columns a write sets besides name, slug, status, author and dates. */
function columns(kind: LinkedKind, input: LinkedInput, current: LinkedRow | undefined): Record<string, unknown> {
  const data: Record<string, unknown> = {};
  for (const field of ['description', 'excerpt', ...kind.textFields]) {
    if (input[field] !== undefined) data[field] = String(input[field]).trim();
  }
  const image = imageValue(input.image);
  if (image !== undefined) data.image = image;
  return { ...data, ...kind.derived?.(input, current) };
}

/**
 * An item that a new one would duplicate: same name and the same values of the kind's duplicate
 * fields that were sent, compared without case. Only items the caller can see are candidates, so
 * nobody learns of another author's drafts this way.
 */
async function findDuplicate(tx: Tx, kind: LinkedKind, caller: Caller, name: string, input: LinkedInput) {
  const same = (value: unknown) => sameText(String(value).trim());
  const fields = kind.duplicateFields.filter((f) => input[f] !== undefined && String(input[f]).trim() !== '');
  return kind.table(tx).findFirst({
    where: {
      AND: [
        { name: same(name) },
        ...fields.map((f) => ({ [f]: same(input[f]) })),
        { status: { not: 'trash' } },
        hasRole(caller, 'editor') ? {} : { OR: [{ status: 'publish' }, { authorId: caller?.id ?? -1 }] },
      ],
    },
    orderBy: { id: 'asc' },
  });
}

async function takenSlugs(tx: Tx, kind: LinkedKind, base: string, self: number | undefined): Promise<string[]> {
  const rows = await kind.table(tx).findMany({
    where: { slug: startingWith(base), ...(self ? { id: { not: self } } : {}) },
    select: { slug: true },
  });
  return rows.map((r) => r.slug);
}

export const VENUE: LinkedKind = {
  type: 'venue',
  nameField: 'venue',
  tableName: 'venues',
  linkTable: 'event_venues',
  textFields: ['address', 'city', 'country', 'province', 'state', 'zip', 'phone', 'website', 'stateprovince'],
  searchFields: ['address', 'city', 'country', 'province', 'state', 'stateprovince', 'zip', 'phone'],
  duplicateFields: ['description', 'excerpt', 'address', 'city', 'province', 'state', 'stateprovince', 'zip', 'phone'],
  table: (db) => db.venue,
  derived: (input, current) => {
    const data: Record<string, unknown> = {};
    // Map flags default to true on create and keep their value on update when not sent.
    if (input.show_map !== undefined) data.showMap = truthy(input.show_map);
    if (input.show_map_link !== undefined) data.showMapLink = truthy(input.show_map_link);
    if (input.geo_lat !== undefined) data.geoLat = input.geo_lat;
    if (input.geo_lng !== undefined) data.geoLng = input.geo_lng;
    // stateprovince follows state (US addresses) or province, unless the caller set it apart.
    if (input.stateprovince === undefined) {
      const was = current ? String(current.stateprovince) : '';
      const wasDerived = !current || was === '' || was === stateOrProvince(current);
      const next = { ...current, ...pick(input, ['state', 'province', 'country']) };
      if (wasDerived) data.stateprovince = stateOrProvince(next);
    }
    return data;
  },
};

export const ORGANIZER: LinkedKind = {
  type: 'organizer',
  nameField: 'organizer',
  tableName: 'organizers',
  linkTable: 'event_organizers',
  textFields: ['phone', 'website', 'email'],
  searchFields: ['phone', 'email', 'website'],
  duplicateFields: ['description', 'excerpt', 'phone', 'email', 'website'],
  table: (db) => db.organizer,
};

/** Reference part 1.2: the state when the country is empty or the United States, else the province. */
function stateOrProvince(address: Record<string, unknown>): string {
  const country = String(address.country ?? '')
    .trim()
    .toLowerCase();
  const us = country === '' || country === 'us' || country === 'usa' || country === 'united states';
  return String((us ? address.state : address.province) ?? '').trim();
}

function pick(input: LinkedInput, fields: string[]) {
  return Object.fromEntries(fields.filter((f) => input[f] !== undefined).map((f) => [f, String(input[f]).trim()]));
}
