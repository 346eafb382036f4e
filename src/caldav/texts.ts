// The texts of CalDAV's resources: what services/calendar-objects/read.ts reads, as the iCalendar
// writer writes it (serializers/ical.ts), with the ETag the service gives it.
import { eventUid } from '../domain/identities.js';
import type { Collection, EventRecord } from '../domain/records.js';
import type { Urls } from '../http/urls.js';
import { eventsCalendar } from '../serializers/ical.js';
import { keptLinesFor, readResources, resourceVersions } from '../services/calendar-objects/read.js';
import type { ServiceContext } from '../services/context.js';
import { importedUids } from '../services/events/read.js';

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

/** The UID a resource's text carries: the one it came with, else its GUID (serializers/ical.ts). */
export async function uidOfEvent(ctx: ServiceContext, urls: Urls, master: EventRecord): Promise<string> {
  return eventUid(urls.site, master.id, (await importedUids(ctx, [master])).get(master.id));
}
