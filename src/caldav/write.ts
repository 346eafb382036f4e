// A calendar object resource written by a CalDAV client (PUT) or removed (DELETE): the protocol's
// part. The body is read as one resource within the limits (resource-body.ts), its VEVENTs as the
// iCalendar import reads them (items.ts), and services/calendar-objects/write.ts writes what the
// client changed of what it was served, in one transaction with the name, the UID and the ETag
// checked. What the event's fields cannot hold is either kept as the client wrote it (alarms and
// properties no field maps: dav_objects.extra) or refused with a precondition, never dropped.
import type { CaldavWriteLimits } from '../config/limits.js';
import { ObjectRefused, PreconditionFailed } from '../domain/errors.js';
import type { ImportItem } from '../domain/external-items.js';
import type { Collection } from '../domain/records.js';
import type { Urls } from '../http/urls.js';
import {
  type Conditions,
  deleteCalendarObject,
  putCalendarObject,
  type StoredObject,
} from '../services/calendar-objects/write.js';
import type { ServiceContext } from '../services/context.js';
import { DavError, caldavCondition, invalidData, invalidResource } from './errors.js';
import { assertWhole, changedOnly, itemsOf, keepUnserved, servedItems } from './items.js';
import { assertNamesFit, parseResource } from './resource-body.js';
import { readTexts } from './texts.js';

export type { Conditions };

/** Writes the resource; whether it was created. */
export async function putResource(
  ctx: ServiceContext,
  urls: Urls,
  collection: Collection,
  name: string,
  body: string,
  conditions: Conditions,
  limits: CaldavWriteLimits,
): Promise<{ created: boolean }> {
  const parsed = parseResource(body, collection, limits);
  const sent = itemsOf(parsed.text);
  assertNamesFit(sent, limits);
  return asDav(() =>
    putCalendarObject(ctx, {
      name,
      uid: parsed.uid,
      site: urls.site,
      extras: parsed.extras,
      conditions,
      stored: storedIn(urls, collection),
      // What the client changed of what it was given: the rest stays as stored (items.ts).
      items(stored) {
        const served = stored ? servedItems(stored.text) : new Map<string, ImportItem>();
        assertWhole(sent, served);
        return keepUnserved(changedOnly(sent, served), stored?.master, ctx.caller);
      },
    }),
  );
}

/** DELETE: the resource's event to the trash, a series with its occurrences (as the API's DELETE). */
export function deleteResource(
  ctx: ServiceContext,
  urls: Urls,
  collection: Collection,
  name: string,
  conditions: Conditions,
): Promise<void> {
  return asDav(() => deleteCalendarObject(ctx, { name, conditions, stored: storedIn(urls, collection) }));
}

/** A resource of the collection as its caller is served it. */
const storedIn =
  (urls: Urls, collection: Collection) =>
  async (ctx: ServiceContext, id: number): Promise<StoredObject | undefined> =>
    (await readTexts(ctx, urls, collection, [id])).at(0);

/** The writer's refusals as the preconditions of RFC 4791 5.3.2.1 and RFC 9110 13.1. */
async function asDav<T>(write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } catch (err) {
    if (err instanceof PreconditionFailed) throw new DavError(412, err.message);
    if (!(err instanceof ObjectRefused)) throw err;
    switch (err.reason) {
      case 'missing':
        throw new DavError(404, err.message);
      case 'uid-conflict':
        throw new DavError(409, err.message, caldavCondition('no-uid-conflict'));
      case 'site-uid':
        throw invalidResource(err.message);
      case 'unwritable':
        throw invalidData(err.message);
      case 'not-here':
        throw new DavError(403, err.message);
    }
  }
}
