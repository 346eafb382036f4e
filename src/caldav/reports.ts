// CalDAV's reports (RFC 4791 7, RFC 6578 3): calendar-multiget, calendar-query (query.ts filters
// and expands) and sync-collection (sync.ts reads the change feed). Each answers a multistatus of
// the collection's resources as the caller may read them.
import { DavError } from './errors.js';
import { collectionOf, type Exchange, resourceEntry, textsOf } from './exchange.js';
import { type Entry, multistatus, type Wanted, wantedOf } from './multistatus.js';
import { type DavTarget, pathOfHref, resourceHref, targetOf } from './paths.js';
import { listedOnly, versionProps } from './props.js';
import {
  expand,
  ExpansionBudget,
  type EventFilter,
  idsInRange,
  readFilter,
  type TimeRange,
  timeRange,
  whileOpen,
} from './query.js';
import {
  type Collection,
  hrefNames,
  idOfName,
  idsOfNames,
  resourceIds,
  type ResourceText,
  resourceVersions,
  viewDigest,
} from './store.js';
import { changedSince } from './sync.js';
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
  const seen = await x.seen();
  const calendarData = calendarDataOf(wanted);
  if (is(body, CALDAV, 'calendar-multiget')) {
    const entries = await multiget(x, collection, target.segment, body);
    await multistatus(x.res, await withExpansion(x, entries, calendarData), wanted);
    return;
  }
  if (is(body, CALDAV, 'calendar-query')) {
    const filter = readFilter(child(body, CALDAV, 'filter'));
    const texts = await queried(x, collection, target, filter);
    const entries = texts.map((t) => resourceEntry(seen, target.segment, t));
    await multistatus(x.res, await withExpansion(x, entries, calendarData), wanted);
    return;
  }
  if (is(body, DAV, 'sync-collection')) {
    if (target.kind !== 'collection')
      throw new DavError(403, 'sync-collection is asked of a calendar.', { ns: DAV, name: 'supported-report' });
    return syncCollection(x, collection, target.segment, body, wanted);
  }
  throw new DavError(403, `The report ${body.name} is not supported here.`, { ns: DAV, name: 'supported-report' });
}

/** calendar-data as asked: whole, or expanded into the occurrences in a range. */
function calendarDataOf(wanted: Wanted): { expand?: TimeRange } | undefined {
  if (!('names' in wanted)) return undefined;
  const data = wanted.names.find((n) => is(n, CALDAV, 'calendar-data'));
  if (!data) return undefined;
  const expansion = child(data, CALDAV, 'expand');
  return expansion ? { expand: timeRange(expansion) } : {};
}

async function withExpansion(
  x: Exchange,
  entries: Entry[],
  data: { expand?: TimeRange } | undefined,
): Promise<Entry[]> {
  const range = data?.expand;
  if (!range) return entries;
  const budget = new ExpansionBudget(x.ctx.recurrence, whileOpen(x.res));
  for (const entry of entries) {
    const value = entry.values?.get(keyOf(CALDAV, 'calendar-data'));
    const text = entry.text;
    if (value && text !== undefined) {
      const expanded = await expand(text, range, budget);
      entry.values?.set(keyOf(CALDAV, 'calendar-data'), (element) => {
        element.txt(expanded);
      });
    }
  }
  return entries;
}

/** The hrefs, each answered once under the href as the client wrote it, which it matches them by. */
async function multiget(x: Exchange, collection: Collection, segment: string, body: XmlElement): Promise<Entry[]> {
  const seen = await x.seen();
  const hrefs = [...new Set(childrenNamed(body, DAV, 'href').map((h) => h.text.trim()))];
  const names = new Map<string, string>();
  for (const href of hrefs) {
    const target = targetOfHref(href);
    if (target?.kind === 'resource' && target.segment === segment) names.set(href, target.name);
  }
  const ids = await idsOfNames(x.ctx.db, [...new Set(names.values())]);
  const texts = await textsOf(x, collection, [...new Set(ids.values())]);
  const byId = new Map(texts.map((t) => [t.master.id, t]));
  return hrefs.map((href) => {
    const id = ids.get(names.get(href) ?? '');
    const text = id === undefined ? undefined : byId.get(id);
    return text ? { ...resourceEntry(seen, segment, text), href } : { href, status: 404 };
  });
}

/** What an href of a request body names; nothing for one that names nothing here. */
function targetOfHref(href: string): DavTarget | undefined {
  try {
    return targetOf(pathOfHref(href));
  } catch {
    return undefined;
  }
}

async function queried(
  x: Exchange,
  collection: Collection,
  target: DavTarget & { kind: 'collection' | 'resource' },
  filter: EventFilter,
): Promise<ResourceText[]> {
  if ('none' in filter) return [];
  let ids = filter.range ? await idsInRange(x.ctx.db, filter.range) : await resourceIds(x.ctx, collection);
  if (target.kind === 'resource') {
    const id = await idOfName(x.ctx.db, target.name);
    ids = ids.filter((i) => i === id);
  }
  return textsOf(x, collection, ids);
}

async function syncCollection(
  x: Exchange,
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
  let entries: Entry[];
  let next: string;
  if (!token) {
    next = seen.token;
    entries = (await members(x, collection, segment, undefined, wanted)).entries;
  } else {
    const changed = await changedSince(x.ctx.db, token, viewDigest(x.ctx, x.urls));
    next = changed.token;
    const found = await members(x, collection, segment, changed.ids, wanted);
    const gone = changed.ids.filter((id) => !found.ids.has(id));
    const names = await hrefNames(x.ctx.db, gone);
    entries = [
      ...found.entries,
      ...gone.map((id) => ({ href: resourceHref(segment, names.get(id) ?? `${id}.ics`), status: 404 })),
    ];
  }
  await multistatus(x.res, entries, wanted, next);
}

/**
 * The collection's resources (all, or those among `ids`) the caller may read, as the request
 * wants them: from their ETags alone when it asks for nothing more, else from their texts.
 */
export async function members(
  x: Exchange,
  collection: Collection,
  segment: string,
  ids: number[] | undefined,
  wanted: Wanted,
): Promise<{ entries: Entry[]; ids: Set<number> }> {
  if ('names' in wanted && listedOnly(wanted.names)) {
    const versions = await resourceVersions(x.ctx, x.urls, collection, ids);
    return {
      entries: versions.map((v) => ({ href: resourceHref(segment, v.name), values: versionProps(v) })),
      ids: new Set(versions.map((v) => v.id)),
    };
  }
  const seen = await x.seen();
  const texts = await textsOf(x, collection, ids ?? (await resourceIds(x.ctx, collection)));
  return {
    entries: texts.map((t) => resourceEntry(seen, segment, t)),
    ids: new Set(texts.map((t) => t.master.id)),
  };
}
