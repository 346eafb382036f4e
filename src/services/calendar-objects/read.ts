// The calendar as CalDAV sees it (docs/caldav.md): collections, and in each the events that are
// resources, one per event of its own or series (its changed occurrences inside it, as
// RECURRENCE-IDs), each read as its caller may read it through the REST API (auth/permissions.ts).
// caldav/texts.ts writes their texts with the iCalendar writer.
//
// A resource's ETag is a digest of everything its text is made from (resourceVersions): the
// versions (modified_at) of its event, of its changed occurrences and of the venues, organizers
// and terms they show, their links, its UID and kept lines, what the caller may see of them, and
// the site's address. The same inputs give the same text, so it is a strong validator; and a
// listing of ten thousand ETags (PROPFIND, a first sync) costs one statement instead of writing
// ten thousand texts.
import { createHash } from 'node:crypto';
import { canEdit, canRead, listScope } from '../../auth/permissions.js';
import type { PrismaClient, Tx } from '../../db/client.js';
import type { Collection, EventRecord } from '../../domain/records.js';
import { eventZone, UTC_ZONE } from '../../lib/event-times.js';
import { givesStart } from '../../recurrence/expand.js';
import { parseRecurrence } from '../../recurrence/parse.js';
import {
  afterId,
  amongIds,
  namedAs,
  givenNames,
  keptLines,
  namesGiven,
  resourceIdsInRange,
  resourceIdsIn,
  selectChangedOccurrences,
  selectResourceEvents,
  versionRows,
} from '../../queries/calendar-objects.js';
import type { ServiceContext } from '../context.js';

export interface Resource {
  master: EventRecord;
  /** Its changed occurrences, as the caller reads them. */
  overrides: EventRecord[];
  name: string;
}

/** A resource as a listing of ETags shows it. */
export interface ResourceVersion {
  id: number;
  name: string;
  etag: string;
}

/** The collection of the category with this slug; undefined for none. */
export async function categoryCollection(db: PrismaClient | Tx, slug: string): Promise<Collection | undefined> {
  const term = await db.term.findUnique({ where: { taxonomy_slug: { taxonomy: 'tribe_events_cat', slug } } });
  return term ? { kind: 'category', id: term.id, slug: term.slug, name: term.name } : undefined;
}

/** Every category, in name order: each is a collection. */
export async function categoryCollections(db: PrismaClient | Tx): Promise<Collection[]> {
  const terms = await db.term.findMany({ where: { taxonomy: 'tribe_events_cat' }, orderBy: { name: 'asc' } });
  return terms.map((t) => ({ kind: 'category', id: t.id, slug: t.slug, name: t.name }));
}

/** What the caller may read: the events the REST API lists for it (listScope). */
const scopeOf = (ctx: ServiceContext) => listScope(ctx.caller, undefined);

/** Events (by their resource's ID) with a row in the range, or a series that may have one, in ID order. */
export const resourcesInRange = (ctx: ServiceContext, start: Date, end: Date) => resourceIdsInRange(ctx.db, start, end);

/** The IDs of the collection's resources the caller may read, in ID order. */
export const resourceIds = (ctx: ServiceContext, collection: Collection) =>
  resourceIdsIn(ctx.db, scopeOf(ctx), collection);

/**
 * The resources among these event IDs that the collection holds and the caller may read, with their
 * overrides, read a slice at a time; IDs that name none are left out.
 */
export async function readResources(ctx: ServiceContext, collection: Collection, ids: number[]): Promise<Resource[]> {
  const resources: Resource[] = [];
  for (let from = 0; from < ids.length; from += READ_AT_ONCE) {
    const masters = await selectResourceEvents(ctx.db, scopeOf(ctx), collection, ids.slice(from, from + READ_AT_ONCE));
    const series = masters.filter((m) => m.recurrence.length).map((m) => m.id);
    const children = await selectChangedOccurrences(ctx.db, series);
    const names = await givenNames(
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

/**
 * The lines kept as clients wrote them (alarms, attendees, notes: dav_objects.extra) of these
 * resources' rows, for those who may edit the event; every other reader gets what the REST feed
 * gives it.
 */
export function keptLinesFor(ctx: ServiceContext, resources: Resource[]): Promise<Map<number, string>> {
  const editable = resources.filter((r) => canEdit(ctx.caller, r.master)).flatMap((r) => [r.master, ...r.overrides]);
  return keptLines(
    ctx.db,
    editable.map((r) => r.id),
  );
}

/** The event a resource name names: one a client gave, else `<id>.ics` of an event without one. */
export async function idOfName(db: PrismaClient | Tx, name: string): Promise<number | undefined> {
  return (await idsOfNames(db, [name])).get(name);
}

/** The names of the form `<id>.ics` among these, with their IDs. */
const numberedNames = (names: string[]) =>
  names
    .map((name) => ({ name, id: Number(/^([1-9]\d{0,9})\.ics$/.exec(name)?.[1] ?? NaN) }))
    .filter((n) => n.id <= 2 ** 31 - 1);

/** The events these names name (idOfName), in one statement. */
export async function idsOfNames(db: PrismaClient | Tx, names: string[]): Promise<Map<string, number>> {
  const numbered = numberedNames(names);
  if (!names.length) return new Map();
  const asked = new Set(names);
  const ids = new Map<string, number>();
  // Events with a name of their own: `<id>.ics` names an event only while no client has given it one.
  const renamed = new Set<number>();
  for (const { eventId, name } of await namesGiven(
    db,
    names,
    numbered.map((n) => n.id),
  )) {
    if (asked.has(name)) ids.set(name, eventId);
    renamed.add(eventId);
  }
  for (const { name, id } of numbered) if (!ids.has(name) && !renamed.has(id)) ids.set(name, id);
  return ids;
}

/** The names of events, given or `<id>.ics`, for hrefs of events that may be gone. */
export async function hrefNames(db: PrismaClient | Tx, ids: number[]): Promise<Map<number, string>> {
  const names = await givenNames(db, ids);
  return new Map(ids.map((id) => [id, names.get(id) ?? `${id}.ics`]));
}

/**
 * What a resource's text is made from besides its rows: the iCalendar writer's own version (raise
 * it when src/ical/write-calendar.ts or the kept lines change what they write), the site's zone, and
 * what the caller may see (every status, the published ones, or those and its own). 3: the kept
 * lines are shown to those who may edit the event only, so every text that held them changes for
 * others.
 */
export const TEXT_VERSION = 3;

/**
 * A digest of the caller's view: sync tokens carry it (services/calendar-objects/sync.ts), so that a token taken under
 * another view (a role changed since, another site zone or address) is refused, and the client
 * syncs again from none, instead of hearing of no change while every text changed.
 */
export const viewDigest = (ctx: ServiceContext, site: string) =>
  createHash('sha256').update(viewOf(ctx, site)).digest('base64url').slice(0, 12);

function viewOf(ctx: ServiceContext, site: string): string {
  const scope = scopeOf(ctx);
  // With the rows' statuses and authors, the role says which events the caller may edit, and so
  // sees the kept lines of (keptLinesFor): an author sees those of its published events, a contributor not.
  const sees = scope.ownerId === undefined ? scope.statuses.join(',') : `own ${scope.ownerId} ${ctx.caller?.role}`;
  return `${TEXT_VERSION} ${sees} ${ctx.siteZone} ${site}`;
}

/**
 * The resources of the collection the caller may read (all of them, or those among `ids`), with
 * their names and ETags, in ID order, a thousand to a statement: on the embedded database a
 * statement holds the event loop while it runs.
 */
export async function resourceVersions(
  ctx: ServiceContext,
  site: string,
  collection: Collection,
  ids?: number[],
): Promise<ResourceVersion[]> {
  const view = viewOf(ctx, site);
  const read = async (only: ReturnType<typeof afterId>, limit?: number) =>
    (await versionRows(ctx.db, scopeOf(ctx), collection, only, limit)).map((r) => ({
      id: r.id,
      name: r.name ?? `${r.id}.ics`,
      etag: etagOf(`${view} ${r.version}`),
    }));
  const versions: ResourceVersion[] = [];
  if (ids) {
    for (let from = 0; from < ids.length; from += VERSIONS_READ)
      versions.push(...(await read(amongIds(ids.slice(from, from + VERSIONS_READ)))));
    return versions;
  }
  for (let after = 0; ;) {
    const page = await read(afterId(after), VERSIONS_READ);
    versions.push(...page);
    if (page.length < VERSIONS_READ) return versions;
    after = page[page.length - 1].id;
  }
}

const VERSIONS_READ = 1000;

/**
 * resourceVersions of the resources these names name (idOfName), the names resolved in the same
 * statement (a thousand names to one): a multiget's names and ETags in one round trip. By name.
 */
export async function namedVersions(
  ctx: ServiceContext,
  site: string,
  collection: Collection,
  names: string[],
): Promise<Map<string, ResourceVersion>> {
  const view = viewOf(ctx, site);
  const byName = new Map<string, ResourceVersion>();
  const numbered: ResourceVersion[] = [];
  for (let from = 0; from < names.length; from += VERSIONS_READ) {
    const some = names.slice(from, from + VERSIONS_READ);
    const only = namedAs(
      some,
      numberedNames(some).map((n) => n.id),
    );
    for (const row of await versionRows(ctx.db, scopeOf(ctx), collection, only)) {
      const version = { id: row.id, name: row.name ?? `${row.id}.ics`, etag: etagOf(`${view} ${row.version}`) };
      if (row.name === null) numbered.push(version);
      else byName.set(row.name, version);
    }
  }
  // A name a client gave names its event, even one of the form `<id>.ics` (idsOfNames).
  for (const version of numbered) if (!byName.has(version.name)) byName.set(version.name, version);
  return byName;
}

/** A strong ETag: a digest of what the text is made from. */
const etagOf = (inputs: string) => `"${createHash('sha256').update(inputs).digest('base64url').slice(0, 32)}"`;
