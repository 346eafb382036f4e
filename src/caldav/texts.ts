// The texts of CalDAV's resources: what services/calendar-objects/read.ts reads, as the iCalendar
// writer writes it (ical/write-calendar.ts), with the ETag the service gives it; those a read sends
// are kept by their ETag (caldav/kept-texts.ts) and sent again while it stays the same.
import { nestingTransactions } from '../db/savepoints.js';
import { eventUid } from '../domain/identities.js';
import type { Collection, EventRecord } from '../domain/records.js';
import type { Urls } from '../http/urls.js';
import { eventsCalendar } from '../ical/write-calendar.js';
import {
  keptLinesFor,
  readResources,
  type ResourceVersion,
  resourceVersions,
} from '../services/calendar-objects/read.js';
import type { ServiceContext } from '../services/context.js';
import { importedUids } from '../services/events/read.js';
import type { KeptText, KeptTexts } from './kept-texts.js';

export interface ResourceText {
  name: string;
  text: string;
  etag: string;
  master: EventRecord;
  /** Its changed occurrences, as the caller reads them. */
  overrides: EventRecord[];
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
  const etags = new Map((await resourceVersions(ctx, urls.site, collection, ids)).map((v) => [v.id, v.etag]));
  const resources = await readResources(ctx, collection, [...etags.keys()]);
  const rows = resources.flatMap((r) => [r.master, ...r.overrides]);
  const uids = await importedUids(ctx, rows);
  const extras = await keptLinesFor(ctx, resources);
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

/** A resource as a read sends it: its text, and what its properties show. */
export interface ServedText extends KeptText {
  id: number;
  name: string;
  etag: string;
}

/**
 * The texts and ETags of the collection's resources among `ids` that the caller may read, in ID
 * order: those whose ETag has a text kept (`kept`) are sent it without reading their rows, the
 * others are read and written, then kept. The ETags are read first, and each resource is sent
 * under that ETag, as readTexts does: never an older text under a newer ETag. The texts not kept
 * are read in one REPEATABLE READ snapshot, their ETags again with their rows, and kept under the
 * ETag of exactly the rows each was written from: read apart, a write committing in between (A to
 * B) would keep B's text under A's ETag, sent again were the resource ever to read as A. Without
 * `kept`, every text is read as readTexts reads it.
 */
export async function servedTexts(
  ctx: ServiceContext,
  urls: Urls,
  collection: Collection,
  ids: number[],
  kept: KeptTexts | undefined,
): Promise<ServedText[]> {
  if (!kept) return (await readTexts(ctx, urls, collection, ids)).map(served);
  return keptOrRead(ctx, urls, collection, await resourceVersions(ctx, urls.site, collection, ids), kept);
}

/** servedTexts of resources whose ETags were read (resourceVersions), in their order. */
export async function keptOrRead(
  ctx: ServiceContext,
  urls: Urls,
  collection: Collection,
  versions: ResourceVersion[],
  kept: KeptTexts,
): Promise<ServedText[]> {
  const texts = new Map<number, KeptText>();
  const missing: number[] = [];
  for (const { id, etag } of versions) {
    const text = kept.get(etag);
    if (text) texts.set(id, text);
    else missing.push(id);
  }
  if (missing.length) {
    const read = await ctx.db.$transaction(
      (tx) => readTexts({ ...ctx, db: nestingTransactions(tx) }, urls, collection, missing),
      { isolationLevel: 'RepeatableRead' },
    );
    for (const text of read) {
      const one = served(text);
      const value = { text: one.text, title: one.title, modifiedAt: one.modifiedAt };
      kept.set(one.etag, value);
      texts.set(one.id, value);
    }
  }
  // One gone since its ETag was read is left out, as readTexts leaves it out.
  return versions.flatMap(({ id, name, etag }) => {
    const text = texts.get(id);
    return text ? [{ ...text, id, name, etag }] : [];
  });
}

const served = (text: ResourceText): ServedText => ({
  id: text.master.id,
  name: text.name,
  etag: text.etag,
  text: text.text,
  title: text.master.title,
  modifiedAt: text.master.modifiedAt,
});

/** The UID a resource's text carries: the one it came with, else its GUID (ical/write-calendar.ts). */
export async function uidOfEvent(ctx: ServiceContext, urls: Urls, master: EventRecord): Promise<string> {
  return eventUid(urls.site, master.id, (await importedUids(ctx, [master])).get(master.id));
}
