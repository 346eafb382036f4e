// CalDAV's reports (RFC 4791 7, RFC 6578 3): calendar-multiget, calendar-query (query.ts filters
// and expands) and sync-collection (sync.ts reads the change feed). Each answers a multistatus of
// the collection's resources as the caller may read them.
import { type Answer, tooMuch } from './answer.js';
import { DavError } from './errors.js';
import { collectionOf, type Exchange, resourceEntry, textsOf } from './exchange.js';
import { type Entry, multistatus, type MultistatusOptions, type Wanted, wantedOf, XML } from './multistatus.js';
import { type DavTarget, pathOfHref, resourceHref, targetOf } from './paths.js';
import { listedOnly, versionProps } from './props.js';
import {
  expand,
  ExpansionBudget,
  Unwalkable,
  type EventFilter,
  idsInRange,
  readFilter,
  type TimeRange,
  timeRange,
  whileOpen,
} from './query.js';
import type { Collection } from '../domain/records.js';
import {
  hrefNames,
  idOfName,
  namedVersions,
  resourceIds,
  type ResourceVersion,
  resourceVersions,
  viewDigest,
} from '../services/calendar-objects/read.js';
import { changedSince } from '../services/calendar-objects/sync.js';
import { CALDAV, child, childrenNamed, DAV, is, keyOf, type XmlElement } from './xml.js';

/** REPORT on a calendar or one of its resources: the report its body names. */
export async function report(x: Exchange, body: XmlElement | undefined): Promise<void> {
  if (!body) throw new DavError(400, 'A REPORT has a body that names the report.');
  const { target } = x;
  if (target.kind !== 'collection' && target.kind !== 'resource')
    throw new DavError(403, 'Reports are answered on calendars and their resources.', {
      ns: DAV,
      name: 'supported-report',
    });
  const collection = await collectionOf(x, target.segment);
  const wanted = wantedOf(body);
  // What a resource's properties show of the caller (props.ts): no statement, unlike x.seen()'s token.
  const who = { caller: x.ctx.caller };
  const calendarData = calendarDataOf(wanted);
  const answer = x.answer(207, XML);
  // An expansion builds each resource's occurrences in memory before any is written.
  if (calendarData?.expand) answer.reserve();
  if (is(body, CALDAV, 'calendar-multiget')) {
    const entries = await multiget(x, collection, target.segment, body, wanted);
    return respond(x, answer, withExpansion(x, answer, entries, calendarData), wanted);
  }
  if (is(body, CALDAV, 'calendar-query')) {
    const filter = readFilter(child(body, CALDAV, 'filter'));
    const ids = within(x, await queried(x, collection, target, filter));
    const entries = mapped(textsOf(x, collection, ids), (t) => resourceEntry(who, target.segment, t));
    return respond(x, answer, withExpansion(x, answer, entries, calendarData), wanted);
  }
  if (is(body, DAV, 'sync-collection')) {
    if (target.kind !== 'collection')
      throw new DavError(403, 'sync-collection is asked of a calendar.', { ns: DAV, name: 'supported-report' });
    return syncCollection(x, answer, collection, target.segment, body, wanted);
  }
  throw new DavError(403, `The report ${body.name} is not supported here.`, { ns: DAV, name: 'supported-report' });
}

/** A 207 of the entries, within the request's limits (answer.ts). */
export function respond(
  x: Exchange,
  answer: Answer,
  entries: Iterable<Entry> | AsyncIterable<Entry>,
  wanted: Wanted,
  sync?: MultistatusOptions['sync'],
): Promise<void> {
  const href = x.req.originalUrl.split('?')[0];
  return multistatus(answer, entries, wanted, { href, maxResponses: x.limits.maxResponses, sync });
}

/** The items, refused before any is read when an answer could not hold a response for each. */
function within<T>(x: Exchange, items: T[]): T[] {
  if (items.length > x.limits.maxResponses)
    throw tooMuch(
      `The answer would hold ${items.length} responses, more than the ${x.limits.maxResponses} one answer may hold: ask for fewer resources.`,
    );
  return items;
}

async function* mapped<T, R>(items: AsyncIterable<T>, map: (item: T) => R): AsyncGenerator<R> {
  for await (const item of items) yield map(item);
}

/** calendar-data as asked: whole, or expanded into the occurrences in a range. */
function calendarDataOf(wanted: Wanted): { expand?: TimeRange } | undefined {
  if (!('names' in wanted)) return undefined;
  const data = wanted.names.find((n) => is(n, CALDAV, 'calendar-data'));
  if (!data) return undefined;
  const expansion = child(data, CALDAV, 'expand');
  return expansion ? { expand: timeRange(expansion) } : {};
}

/** The entries, with calendar-data expanded as each is written, within what the answer has room for. */
async function* withExpansion(
  x: Exchange,
  answer: Answer,
  entries: AsyncIterable<Entry>,
  data: { expand?: TimeRange } | undefined,
): AsyncGenerator<Entry> {
  const range = data?.expand;
  if (!range) {
    yield* entries;
    return;
  }
  const budget = new ExpansionBudget(x.ctx.recurrence, whileOpen(x.res));
  for await (const entry of entries) {
    const value = entry.values?.get(keyOf(CALDAV, 'calendar-data'));
    const text = entry.text;
    if (value && text !== undefined) {
      try {
        const expanded = await expand(text, range, budget, answer.room());
        entry.values?.set(keyOf(CALDAV, 'calendar-data'), (element) => {
          element.txt(expanded);
        });
      } catch (err) {
        if (!(err instanceof Unwalkable)) throw err;
        yield { ...entry, status: err.status }; // that resource alone: the others are answered
        continue;
      }
    }
    yield entry;
  }
}

/**
 * The hrefs, each resource answered once, under the first href as the client wrote it, which it
 * matches answers by: hrefs that name one resource (a query string, another spelling of its path,
 * a whole URL) are not answered again, so an answer holds each resource at most once.
 */
async function multiget(
  x: Exchange,
  collection: Collection,
  segment: string,
  body: XmlElement,
  wanted: Wanted,
): Promise<AsyncIterable<Entry>> {
  const given = childrenNamed(body, DAV, 'href');
  if (given.length > x.limits.maxHrefs)
    throw tooMuch(`A calendar-multiget names at most ${x.limits.maxHrefs} hrefs: ask for them in parts.`);
  const names = new Map<string, string>();
  for (const href of given.map((h) => h.text.trim())) {
    const target = targetOfHref(href);
    names.set(href, target?.kind === 'resource' && target.segment === segment ? target.name : '');
  }
  // Each name's resource with its ETag, in one statement: the names resolved in it.
  const named = await namedVersions(x.ctx, x.urls.site, collection, [...new Set(names.values())].filter(Boolean));
  // The first href of each resource (by its event), else of each name, else as written.
  const firsts = new Map<number | string, string>();
  const versions = new Map<number, ResourceVersion>();
  for (const [href, name] of names) {
    const version = named.get(name);
    if (version) versions.set(version.id, version);
    const key = version?.id ?? (name ? `name ${name}` : `href ${href}`);
    if (!firsts.has(key)) firsts.set(key, href);
  }
  const found = new Set<number>();
  const resources = membersOf(
    x,
    collection,
    segment,
    within(
      x,
      [...versions.values()].sort((a, b) => a.id - b.id),
    ),
    wanted,
    found,
  );
  return (async function* () {
    for await (const entry of resources) yield { ...entry, href: firsts.get(entry.id ?? 0) ?? entry.href };
    for (const [key, href] of firsts) if (typeof key !== 'number' || !found.has(key)) yield { href, status: 404 };
  })();
}

/** What an href of a request body names; nothing for one that names nothing here. */
function targetOfHref(href: string): DavTarget | undefined {
  try {
    return targetOf(pathOfHref(href));
  } catch {
    return undefined;
  }
}

/** The IDs of the collection's resources the caller may read that the filter matches. */
async function queried(
  x: Exchange,
  collection: Collection,
  target: DavTarget & { kind: 'collection' | 'resource' },
  filter: EventFilter,
): Promise<number[]> {
  if ('none' in filter) return [];
  let ids = await resourceIds(x.ctx, collection);
  if (filter.range) {
    // Counted against the answer's responses, so those of other collections and others' drafts are left out first.
    const inRange = new Set(await idsInRange(x.ctx, filter.range));
    ids = ids.filter((id) => inRange.has(id));
  }
  if (target.kind === 'resource') {
    const id = await idOfName(x.ctx.db, target.name);
    ids = ids.filter((i) => i === id);
  }
  return ids;
}

async function syncCollection(
  x: Exchange,
  answer: Answer,
  collection: Collection,
  segment: string,
  body: XmlElement,
  wanted: Wanted,
): Promise<void> {
  const token = child(body, DAV, 'sync-token')?.text.trim() ?? '';
  const level = child(body, DAV, 'sync-level')?.text.trim();
  if (level && level !== '1')
    throw new DavError(403, 'sync-level is 1: calendars hold no collections.', { ns: DAV, name: 'supported-report' });
  const seen = await x.seen();
  if (!token) {
    const entries = await members(x, collection, segment, undefined, wanted);
    return respond(x, answer, entries, wanted, { whole: seen.token });
  }
  const changed = await changedSince(x.ctx.db, token, viewDigest(x.ctx, x.urls.site));
  const found = new Set<number>();
  const entries = await members(x, collection, segment, within(x, changed.ids), wanted, found);
  const gone = async function* (): AsyncGenerator<Entry> {
    yield* entries;
    const left = changed.ids.filter((id) => !found.has(id));
    const names = await hrefNames(x.ctx.db, left);
    for (const id of left) yield { href: resourceHref(segment, names.get(id) ?? `${id}.ics`), status: 404 };
  };
  // Cut short, the answer gives back the token it was asked from: the client asks again from there.
  return respond(x, answer, gone(), wanted, { whole: changed.token, partial: token });
}

/**
 * The collection's resources (all, or those among `ids`) the caller may read, as the request
 * wants them: from their ETags alone when it asks for nothing more, else from their texts, read as
 * they are written; `found` gets the ID of each. More than an answer may hold are refused first.
 */
export async function members(
  x: Exchange,
  collection: Collection,
  segment: string,
  ids: number[] | undefined,
  wanted: Wanted,
  found = new Set<number>(),
): Promise<Iterable<Entry> | AsyncIterable<Entry>> {
  if ('names' in wanted && listedOnly(wanted.names)) {
    const versions = within(x, await resourceVersions(x.ctx, x.urls.site, collection, ids));
    return membersOf(x, collection, segment, versions, wanted, found);
  }
  const texts = textsOf(x, collection, within(x, ids ?? (await resourceIds(x.ctx, collection))));
  return mapped(texts, (t) => {
    found.add(t.id);
    return resourceEntry({ caller: x.ctx.caller }, segment, t);
  });
}

/** members of resources whose ETags were read (resourceVersions), in their order. */
function membersOf(
  x: Exchange,
  collection: Collection,
  segment: string,
  versions: ResourceVersion[],
  wanted: Wanted,
  found: Set<number>,
): Iterable<Entry> | AsyncIterable<Entry> {
  if ('names' in wanted && listedOnly(wanted.names))
    return versions.map((v) => {
      found.add(v.id);
      return { id: v.id, href: resourceHref(segment, v.name), values: versionProps(v) };
    });
  const ids = versions.map((v) => v.id);
  return mapped(textsOf(x, collection, ids, versions), (t) => {
    found.add(t.id);
    return resourceEntry({ caller: x.ctx.caller }, segment, t);
  });
}
