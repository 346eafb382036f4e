// The calendar as CalDAV sees it (docs/caldav.md): collections, and in each the events that are
// resources, one per event of its own or series (its changed occurrences inside it, as
// RECURRENCE-IDs), each read as its caller may read it through the REST API (auth/permissions.ts),
// its text written by the iCalendar export (serializers/ical.ts) and its ETag the digest of that text.
import { createHash } from 'node:crypto';
import { Prisma } from '../../generated/prisma/client.js';
import { canRead, listScope } from '../auth/permissions.js';
import type { PrismaClient, Tx } from '../db/client.js';
import type { EventRecord } from '../domain/records.js';
import { globalId } from '../serializers/posts.js';
import { eventsCalendar } from '../serializers/ical.js';
import { importedUids } from '../services/events/read.js';
import { givesStart, parseRecurrence } from '../lib/recurrence.js';
import { eventZone, UTC_ZONE } from '../lib/event-times.js';
import { selectEvents } from '../queries/event-rows.js';
import type { ServiceContext } from '../services/context.js';
import type { Urls } from '../http/urls.js';

const sql = Prisma.sql;

/** The whole calendar, or the events of one category. */
export type Collection = { kind: 'all' } | { kind: 'category'; id: number; slug: string; name: string };

export interface Resource {
  master: EventRecord;
  overrides: EventRecord[];
  name: string;
}

export interface ResourceText {
  name: string;
  text: string;
  etag: string;
  master: EventRecord;
}

/** The collection a path segment names: `events`, or `category-<slug>`; undefined for none. */
export async function findCollection(db: PrismaClient | Tx, segment: string): Promise<Collection | undefined> {
  if (segment === ALL) return { kind: 'all' };
  if (!segment.startsWith(CATEGORY_PREFIX)) return undefined;
  const slug = segment.slice(CATEGORY_PREFIX.length);
  const term = await db.term.findUnique({ where: { taxonomy_slug: { taxonomy: 'tribe_events_cat', slug } } });
  return term ? { kind: 'category', id: term.id, slug: term.slug, name: term.name } : undefined;
}

export const ALL = 'events';
const CATEGORY_PREFIX = 'category-';

export const segmentOf = (collection: Collection) =>
  collection.kind === 'all' ? ALL : `${CATEGORY_PREFIX}${collection.slug}`;

/** Every category, in name order: each is a collection. */
export async function categoryCollections(db: PrismaClient | Tx): Promise<Collection[]> {
  const terms = await db.term.findMany({ where: { taxonomy: 'tribe_events_cat' }, orderBy: { name: 'asc' } });
  return terms.map((t) => ({ kind: 'category', id: t.id, slug: t.slug, name: t.name }));
}

/**
 * What a caller may read, as SQL on `e`: the statuses the REST API lists for it (listScope), its
 * own unpublished events for authors and contributors. The trash is never a collection's.
 */
function readableSql(ctx: ServiceContext): Prisma.Sql {
  const scope = listScope(ctx.caller, undefined);
  const statuses = scope.statuses.filter((s) => s !== 'trash');
  const owner =
    scope.ownerId === undefined ? sql`` : sql` AND (e.status = 'publish' OR e.author_id = ${scope.ownerId}::int)`;
  return sql`e.status::text = ANY(${statuses}::text[])${owner}`;
}

const inCollection = (collection: Collection) =>
  collection.kind === 'all'
    ? sql`true`
    : sql`EXISTS (SELECT FROM event_terms t WHERE t.event_id = e.id AND t.term_id = ${collection.id}::int)`;

/** The IDs of the collection's resources the caller may read, in ID order. */
export async function resourceIds(ctx: ServiceContext, collection: Collection): Promise<number[]> {
  const rows = await ctx.db.$queryRaw<{ id: number }[]>`
    SELECT e.id FROM events e
    WHERE e.parent_id IS NULL AND ${readableSql(ctx)} AND ${inCollection(collection)}
    ORDER BY e.id`;
  return rows.map((r) => r.id);
}

/**
 * The resources among these event IDs that the collection holds and the caller may read, with their
 * overrides, read a slice at a time; IDs that name none are left out.
 */
export async function readResources(ctx: ServiceContext, collection: Collection, ids: number[]): Promise<Resource[]> {
  const resources: Resource[] = [];
  for (let from = 0; from < ids.length; from += READ_AT_ONCE) {
    const slice = ids.slice(from, from + READ_AT_ONCE);
    const masters = await selectEvents(ctx.db, {
      where: sql`e.id = ANY(${slice}::int[]) AND e.parent_id IS NULL AND ${readableSql(ctx)} AND ${inCollection(collection)}`,
      orderBy: sql`ORDER BY e.id`,
    });
    const series = masters.filter((m) => m.recurrence.length).map((m) => m.id);
    const children = series.length
      ? await selectEvents(ctx.db, {
          where: sql`e.parent_id = ANY(${series}::int[]) AND e.is_exception AND e.status <> 'trash'`,
          orderBy: sql`ORDER BY e.original_start_local`,
        })
      : [];
    const names = await namesOf(
      ctx.db,
      masters.map((m) => m.id),
    );
    for (const master of masters) {
      const own = children.filter((c) => c.parentId === master.id && canRead(ctx.caller, c));
      const overrides = master.recurrence.length ? overridesOf(master, own) : [];
      resources.push({ master, overrides, name: names.get(master.id) ?? `${master.id}.ics` });
    }
  }
  return resources;
}

const READ_AT_ONCE = 200;

/** The changed occurrences a calendar shows as overrides: those at a start the rule still gives. */
function overridesOf(master: EventRecord, children: EventRecord[]): EventRecord[] {
  const zone = eventZone(master.timezone) ?? UTC_ZONE;
  const rule = parseRecurrence(master.recurrence, zone, master.allDay);
  return children.filter((c) => c.originalStartLocal && givesStart(rule, master.startLocal, c.originalStartLocal));
}

/** The names clients gave these events (dav_objects), by ID. */
async function namesOf(db: PrismaClient | Tx, ids: number[]): Promise<Map<number, string>> {
  if (!ids.length) return new Map();
  const rows = await db.davObject.findMany({ where: { eventId: { in: ids }, name: { not: null } } });
  return new Map(rows.map((r) => [r.eventId, r.name ?? '']));
}

/** The event a resource name names: one a client gave, else `<id>.ics` of an event without one. */
export async function idOfName(db: PrismaClient | Tx, name: string): Promise<number | undefined> {
  const named = await db.davObject.findUnique({ where: { name } });
  if (named) return named.eventId;
  const id = /^([1-9]\d{0,9})\.ics$/.exec(name)?.[1];
  if (!id || Number(id) > 2 ** 31 - 1) return undefined;
  const own = await db.davObject.findUnique({ where: { eventId: Number(id) } });
  return own?.name ? undefined : Number(id);
}

/** The names of events, given or `<id>.ics`, for hrefs of events that may be gone. */
export async function hrefNames(db: PrismaClient | Tx, ids: number[]): Promise<Map<number, string>> {
  const names = await namesOf(db, ids);
  return new Map(ids.map((id) => [id, names.get(id) ?? `${id}.ics`]));
}

/** Each resource's text and ETag, as its caller reads it. */
export async function resourceTexts(ctx: ServiceContext, urls: Urls, resources: Resource[]): Promise<ResourceText[]> {
  const rows = resources.flatMap((r) => [r.master, ...r.overrides]);
  const uids = await importedUids(ctx, rows);
  const extras = await extrasOf(
    ctx.db,
    rows.map((r) => r.id),
  );
  const texts: ResourceText[] = [];
  for (const resource of resources) {
    const body = await eventsCalendar([resource.master, ...resource.overrides], {
      urls,
      caller: ctx.caller,
      name: resource.master.title,
      series: true,
      uids,
      zone: ctx.siteZone,
      extras,
    });
    const text = body.toString('utf8');
    texts.push({ name: resource.name, text, etag: etagOf(text), master: resource.master });
  }
  return texts;
}

/** A strong ETag: the digest of the text, so the same text always has the same one. */
export const etagOf = (text: string) => `"${createHash('sha256').update(text).digest('base64url').slice(0, 32)}"`;

async function extrasOf(db: PrismaClient | Tx, ids: number[]): Promise<Map<number, string>> {
  if (!ids.length) return new Map();
  const rows = await db.davObject.findMany({ where: { eventId: { in: ids }, extra: { not: '' } } });
  return new Map(rows.map((r) => [r.eventId, r.extra]));
}

/** The UID a resource's text carries: the one it came with, else its GUID (serializers/ical.ts). */
export async function uidOfEvent(ctx: ServiceContext, urls: Urls, master: EventRecord): Promise<string> {
  return (await importedUids(ctx, [master])).get(master.id) ?? globalId(urls.site, master.id);
}
