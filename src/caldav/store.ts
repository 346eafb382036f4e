// The calendar as CalDAV sees it (docs/caldav.md): collections, and in each the events that are
// resources, one per event of its own or series (its changed occurrences inside it, as
// RECURRENCE-IDs), each read as its caller may read it through the REST API (auth/permissions.ts)
// and its text written by the iCalendar export (serializers/ical.ts).
//
// A resource's ETag is a digest of everything its text is made from (resourceVersions): the
// versions (modified_at) of its event, of its changed occurrences and of the venues, organizers
// and terms they show, their links, its UID and kept lines, what the caller may see of them, and
// the site's address. The same inputs give the same text, so it is a strong validator; and a
// listing of ten thousand ETags (PROPFIND, a first sync) costs one statement instead of writing
// ten thousand texts.
import { createHash } from 'node:crypto';
import { Prisma } from '../../generated/prisma/client.js';
import { canEdit, canRead, listScope } from '../auth/permissions.js';
import type { PrismaClient, Tx } from '../db/client.js';
import type { EventRecord } from '../domain/records.js';
import { eventUid } from '../domain/identities.js';
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
  /** Its changed occurrences, as the caller reads them. */
  overrides: EventRecord[];
}

/** A resource as a listing of ETags shows it. */
export interface ResourceVersion {
  id: number;
  name: string;
  etag: string;
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
  return (await idsOfNames(db, [name])).get(name);
}

/** The events these names name (idOfName), in one statement for the given names. */
export async function idsOfNames(db: PrismaClient | Tx, names: string[]): Promise<Map<string, number>> {
  const given = await db.davObject.findMany({ where: { name: { in: names } } });
  const ids = new Map(given.map((d) => [d.name ?? '', d.eventId]));
  const numbered = names
    .filter((n) => !ids.has(n))
    .map((name) => ({ name, id: Number(/^([1-9]\d{0,9})\.ics$/.exec(name)?.[1] ?? NaN) }))
    .filter((n) => n.id <= 2 ** 31 - 1);
  if (!numbered.length) return ids;
  // `<id>.ics` names an event only while no client has given it a name of its own.
  const named = await db.davObject.findMany({
    where: { eventId: { in: numbered.map((n) => n.id) }, name: { not: null } },
  });
  const renamed = new Set(named.map((d) => d.eventId));
  for (const { name, id } of numbered) if (!renamed.has(id)) ids.set(name, id);
  return ids;
}

/** The names of events, given or `<id>.ics`, for hrefs of events that may be gone. */
export async function hrefNames(db: PrismaClient | Tx, ids: number[]): Promise<Map<number, string>> {
  const names = await namesOf(db, ids);
  return new Map(ids.map((id) => [id, names.get(id) ?? `${id}.ics`]));
}

/**
 * The texts and ETags of the collection's resources among `ids` that the caller may read. The ETags
 * are read before the rows: a write that commits in between then leaves a newer text under an
 * older ETag, which the client's next sync sees change and reads again, never an older text under
 * the newer ETag, which it would keep for good.
 */
export async function readTexts(
  ctx: ServiceContext,
  urls: Urls,
  collection: Collection,
  ids: number[],
): Promise<ResourceText[]> {
  const etags = new Map((await resourceVersions(ctx, urls, collection, ids)).map((v) => [v.id, v.etag]));
  const resources = await readResources(ctx, collection, [...etags.keys()]);
  const rows = resources.flatMap((r) => [r.master, ...r.overrides]);
  const uids = await importedUids(ctx, rows);
  // The lines kept for the editor (alarms, attendees, notes: dav_objects.extra) are shown to those
  // who may edit the event; every other reader gets what the REST feed gives it.
  const editable = resources.filter((r) => canEdit(ctx.caller, r.master)).flatMap((r) => [r.master, ...r.overrides]);
  const extras = await extrasOf(
    ctx.db,
    editable.map((r) => r.id),
  );
  const texts: ResourceText[] = [];
  for (const resource of resources) {
    const etag = etags.get(resource.master.id);
    if (!etag) continue;
    const body = await eventsCalendar([resource.master, ...resource.overrides], {
      urls,
      caller: ctx.caller,
      name: resource.master.title,
      series: true,
      uids,
      zone: ctx.siteZone,
      extras,
    });
    texts.push({ ...resource, text: body.toString('utf8'), etag });
  }
  return texts;
}

/**
 * What a resource's text is made from besides its rows: the serializer's own version (raise it
 * when serializers/ical.ts or the kept lines change what they write), the site's zone, and what
 * the caller may see (every status, the published ones, or those and its own). 3: the kept lines
 * are shown to those who may edit the event only, so every text that held them changes for others.
 */
export const TEXT_VERSION = 3;

/**
 * A digest of the caller's view: sync tokens carry it (sync.ts), so that a token taken under
 * another view (a role changed since, another site zone or address) is refused, and the client
 * syncs again from none, instead of hearing of no change while every text changed.
 */
export const viewDigest = (ctx: ServiceContext, urls: Urls) =>
  createHash('sha256').update(viewOf(ctx, urls)).digest('base64url').slice(0, 12);

function viewOf(ctx: ServiceContext, urls: Urls): string {
  const scope = listScope(ctx.caller, undefined);
  // With the rows' statuses and authors, the role says which events the caller may edit, and so
  // sees the kept lines of (readTexts): an author sees those of its published events, a contributor not.
  const sees = scope.ownerId === undefined ? scope.statuses.join(',') : `own ${scope.ownerId} ${ctx.caller?.role}`;
  return `${TEXT_VERSION} ${sees} ${ctx.siteZone} ${urls.site}`;
}

/**
 * The resources of the collection the caller may read (all of them, or those among `ids`), with
 * their names and ETags, in ID order, in one statement. A row's part: its version, status and kept
 * lines, and the versions, statuses, owners and places of what it links to; a resource's: its
 * rows' (the event and its changed occurrences) and its UID.
 */
export async function resourceVersions(
  ctx: ServiceContext,
  urls: Urls,
  collection: Collection,
  ids?: number[],
): Promise<ResourceVersion[]> {
  const versions: ResourceVersion[] = [];
  // A thousand at a time: on the embedded database a statement holds the event loop while it runs.
  if (ids) {
    for (let from = 0; from < ids.length; from += VERSIONS_READ) {
      const only = sql`AND e.id = ANY(${ids.slice(from, from + VERSIONS_READ)}::int[])`;
      versions.push(...(await versionsWhere(ctx, urls, collection, only)));
    }
    return versions;
  }
  for (let after = 0; ;) {
    const page = await versionsWhere(ctx, urls, collection, sql`AND e.id > ${after}::int`, VERSIONS_READ);
    versions.push(...page);
    if (page.length < VERSIONS_READ) return versions;
    after = page[page.length - 1].id;
  }
}

const VERSIONS_READ = 1000;

async function versionsWhere(
  ctx: ServiceContext,
  urls: Urls,
  collection: Collection,
  only: Prisma.Sql,
  limit?: number,
): Promise<ResourceVersion[]> {
  const rows = await ctx.db.$queryRaw<{ id: number; name: string | null; version: string }[]>`
    SELECT e.id, d.name, md5(concat_ws('|',
        (SELECT external_id FROM imported_items i WHERE i.local_id = e.id AND i.kind = 'event' AND i.exported),
        (SELECT string_agg(concat_ws(';', x.id, x.modified_at, x.status, coalesce(x.author_id, 0), md5(coalesce(dx.extra, '')),
            (SELECT string_agg(concat_ws(':', v.id, v.modified_at, v.status, coalesce(v.author_id, 0), l.position), ',' ORDER BY l.position, v.id)
              FROM event_venues l JOIN venues v ON v.id = l.venue_id WHERE l.event_id = x.id),
            (SELECT string_agg(concat_ws(':', o.id, o.modified_at, o.status, coalesce(o.author_id, 0), l.position), ',' ORDER BY l.position, o.id)
              FROM event_organizers l JOIN organizers o ON o.id = l.organizer_id WHERE l.event_id = x.id),
            (SELECT string_agg(concat_ws(':', t.id, t.modified_at), ',' ORDER BY t.id)
              FROM event_terms l JOIN terms t ON t.id = l.term_id WHERE l.event_id = x.id)), '/' ORDER BY x.id)
          FROM events x LEFT JOIN dav_objects dx ON dx.event_id = x.id
          WHERE x.id = e.id OR (x.parent_id = e.id AND x.is_exception AND x.status <> 'trash')))) AS version
    FROM events e LEFT JOIN dav_objects d ON d.event_id = e.id
    WHERE e.parent_id IS NULL AND ${readableSql(ctx)} AND ${inCollection(collection)} ${only}
    ORDER BY e.id ${limit === undefined ? sql`` : sql`LIMIT ${limit}::int`}`;
  const view = viewOf(ctx, urls);
  return rows.map((r) => ({ id: r.id, name: r.name ?? `${r.id}.ics`, etag: etagOf(`${view} ${r.version}`) }));
}

/** A strong ETag: a digest of what the text is made from. */
const etagOf = (inputs: string) => `"${createHash('sha256').update(inputs).digest('base64url').slice(0, 32)}"`;

async function extrasOf(db: PrismaClient | Tx, ids: number[]): Promise<Map<number, string>> {
  if (!ids.length) return new Map();
  const rows = await db.davObject.findMany({ where: { eventId: { in: ids }, extra: { not: '' } } });
  return new Map(rows.map((r) => [r.eventId, r.extra]));
}

/** The UID a resource's text carries: the one it came with, else its GUID (serializers/ical.ts). */
export async function uidOfEvent(ctx: ServiceContext, urls: Urls, master: EventRecord): Promise<string> {
  return eventUid(urls.site, master.id, (await importedUids(ctx, [master])).get(master.id));
}
