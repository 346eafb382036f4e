// A calendar object resource written by a CalDAV client (PUT) or removed (DELETE), through the
// same services as the REST API's writes. The VEVENTs are read as the iCalendar import reads them
// (items.ts: LOCATION, ORGANIZER and CATEGORIES become venues, organizers and terms,
// RECURRENCE-IDs changed occurrences), only what the client changed of what it was served is
// written, and it is written with the import's writer (import/write-item.ts), so permissions,
// validation, the change feed and webhooks are the API's. What the event's fields cannot hold is
// either kept as the client wrote it (alarms and properties no field maps: dav_objects.extra) or
// refused with a precondition, never dropped.
//
// Identity: a resource's UID is written under the source `caldav` (domain/import-sources.ts), never
// the import's, so a client's UID never names an imported item nor the reverse; a new resource may
// not carry a UID another live event is exported with (409), nor one of the site's own form (403),
// which the service gives the events it creates (docs/caldav.md, "Writing").
//
// Size: what a resource may hold (changed occurrences, kept lines and their bytes, the venues,
// organizers and categories it names, each a row it may create) is checked as the body is read,
// before any database work, and refused with CALDAV:max-resource-size naming the setting
// (config.ts CaldavWriteLimits): a PUT never runs into the transaction's time limit for its size
// alone.
//
// Concurrency: the whole write is one transaction. Writers of one name, and of one UID, take turns
// on advisory locks taken first; the event a name names is locked (FOR UPDATE) before its ETag is
// compared and it is changed. So the second of two writers sees what the first committed: its
// If-Match or If-None-Match fails, or its UID is taken (409).
import { canEdit, mayCall } from '../auth/permissions.js';
import type { Tx } from '../db/client.js';
import { nestingTransactions } from '../db/savepoints.js';
import { Forbidden } from '../domain/errors.js';
import type { CaldavWriteLimits } from '../config/limits.js';
import { assertNamesFit, parseResource } from './resource-body.js';
import { CALDAV_SOURCE } from '../domain/import-sources.js';
import type { Urls } from '../http/urls.js';
import type { ImportItem } from '../domain/external-items.js';
import { exportUid, forgetUid, mapUidTo, uidHolder } from '../services/items/ledger.js';
import { writeItem } from '../services/items/write-item.js';
import { deleteEvent } from '../services/events/delete.js';
import { syncSeries } from '../services/series.js';
import type { ServiceContext } from '../services/context.js';
import { retryOnConflict } from '../services/retry.js';
import { isSiteUid } from '../domain/identities.js';
import { DavError, caldavCondition, invalidData, invalidResource } from './errors.js';
import { assertWhole, changedOnly, itemsOf, keepUnserved, newCategories, resolveTerms, servedItems } from './items.js';
import { type Collection, idOfName, readTexts, uidOfEvent } from './store.js';
import type { EventRecord } from '../domain/records.js';

export interface Conditions {
  ifMatch?: string;
  ifNoneMatch?: string;
}

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
  return retryOnConflict(() =>
    ctx.db.$transaction(
      async (tx) => {
        const inner: ServiceContext = { ...ctx, db: nestingTransactions(tx) };
        // Writers of one name, or of one UID, take turns from here: each sees what the one before
        // it committed (a new resource, a claimed UID), which no row lock can give for rows that
        // do not exist yet. Always the name first, then the UID, so no two wait on each other.
        await tx.$executeRaw`SELECT pg_advisory_xact_lock(hashtextextended(${`caldav name ${name}`}, 0))`;
        await tx.$executeRaw`SELECT pg_advisory_xact_lock(hashtextextended(${`caldav uid ${parsed.uid}`}, 0))`;
        const existing = await lockedResource(tx, inner, urls, collection, name);
        if (!existing) await freeName(tx, name);
        checkConditions(conditions, existing?.etag);
        assertMayWrite(ctx, existing?.master);
        await claimUid(tx, inner, urls, parsed.uid, existing?.master);
        // What the client changed of what it was given: the rest stays as stored (items.ts).
        const served = existing ? servedItems(existing.text) : new Map<string, ImportItem>();
        assertWhole(sent, served);
        const changed = keepUnserved(changedOnly(sent, served), existing?.master, ctx.caller);
        const linked = existing?.master.terms.map((t) => t.termId) ?? [];
        const terms = await resolveTerms(tx, changed, linked);
        assertMayCreateCategories(ctx, terms);
        const shown = existing?.overrides.map((o) => o.id) ?? [];
        const ids = await writeItems(inner, terms);
        const masterId = ids.get('') ?? 0;
        // A new resource is exported with its UID, or not made (an import took the UID meanwhile).
        if (!existing && !(await exportUid(tx, CALDAV_SOURCE, parsed.uid))) throw uidTaken(parsed.uid);
        await revertDropped(tx, inner, masterId, shown, ids);
        await saveObjects(tx, masterId, name, parsed.extras, ids);
        return { created: !existing };
      },
      { timeout: 30_000 },
    ),
  );
}

/**
 * The resource the name names in the collection, as the caller reads it, locked; none when the
 * name is free. A name is free when nothing has it or its event is gone or in the trash; a name
 * whose event the caller may not read, or that lies outside this collection, is refused, never
 * taken over. `<number>.ics` are the names of events no client named (store.ts idOfName): a client
 * cannot give one to a new event, which would take the name of a later one.
 */
async function lockedResource(tx: Tx, ctx: ServiceContext, urls: Urls, collection: Collection, name: string) {
  const id = await idOfName(tx, name);
  const rows =
    id === undefined
      ? []
      : await tx.$queryRaw<{ status: string }[]>`SELECT status FROM events WHERE id = ${id}::int FOR UPDATE`;
  const live = rows.at(0)?.status !== undefined && rows.at(0)?.status !== 'trash';
  if (!live) return undefined;
  const text = (await readTexts(ctx, urls, collection, [id ?? 0])).at(0);
  if (!text) throw new DavError(403, 'This name belongs to an event you may not change here.');
  return text;
}

/** Changing an event needs `canEdit`; creating one, the role the API's create asks. */
function assertMayWrite(ctx: ServiceContext, current: EventRecord | undefined) {
  if (current && !canEdit(ctx.caller, current))
    throw new Forbidden(true, 'Sorry, you are not allowed to edit this event.');
  if (!current && !mayCall(ctx.caller, 'createEvent')) throw new Forbidden(ctx.caller !== null);
}

/** Takes the name from an event that is gone or in the trash, for a new one. */
async function freeName(tx: Tx, name: string) {
  if (NUMBERED.test(name)) throw new DavError(403, `Names such as ${name} are the service's own: choose another.`);
  await tx.davObject.updateMany({ where: { name }, data: { name: null } });
}

const NUMBERED = /^\d+\.ics$/;

/** If-Match and If-None-Match (RFC 9110 13.1), against the resource's current ETag. */
function checkConditions({ ifMatch, ifNoneMatch }: Conditions, etag: string | undefined) {
  const listed = (header: string) => header.split(',').map((t) => t.trim());
  const failed = () => new DavError(412, 'The resource is not in the state the request expects; read it again.');
  if (ifMatch !== undefined) {
    if (!etag || !(ifMatch.trim() === '*' || listed(ifMatch).includes(etag))) throw failed();
  }
  if (ifNoneMatch !== undefined && etag) {
    if (ifNoneMatch.trim() === '*' || listed(ifNoneMatch).includes(etag)) throw failed();
  }
}

/**
 * Makes the UID this resource's under the source `caldav`, which the PUT's writer finds it by. A
 * resource keeps its UID (the one it is exported with); a new one may take a UID no live event is
 * exported with (RFC 4791 5.3.2.1, no-uid-conflict), never one of the site's own form, which the
 * next event created through the API would be given too.
 */
async function claimUid(tx: Tx, ctx: ServiceContext, urls: Urls, uid: string, current: EventRecord | undefined) {
  if (current) {
    const currentUid = await uidOfEvent(ctx, urls, current);
    if (currentUid !== uid) {
      throw new DavError(
        409,
        `This resource's UID is ${currentUid}: a resource keeps its UID.`,
        caldavCondition('no-uid-conflict'),
      );
    }
    await mapUidTo(tx, CALDAV_SOURCE, uid, current.id);
    return;
  }
  if (isSiteUid(urls.site, uid)) {
    throw invalidResource(
      `UIDs of the form ${new URL(urls.site).host}?id=... are the site's own, given to the events it creates: a client's event needs a UID of its own.`,
    );
  }
  if ((await uidHolder(tx, uid)) !== undefined) throw uidTaken(uid);
  // What clients wrote under this UID before belongs to an event no longer shown with it (gone, or
  // in the trash, which keeps no UID): the UID starts a new event.
  await forgetUid(tx, CALDAV_SOURCE, uid);
}

const uidTaken = (uid: string) =>
  new DavError(409, `Another resource holds the UID ${uid}.`, caldavCondition('no-uid-conflict'));

/**
 * A category the event names that does not exist yet is created with it, which needs the role
 * creating it through its own route needs, as naming a new one in the API's event writes does
 * (services/event-links.ts); the import's writer, run by an administrator, does not ask.
 */
function assertMayCreateCategories(ctx: ServiceContext, items: ImportItem[]) {
  const missing = newCategories(items).at(0);
  if (missing !== undefined && !mayCall(ctx.caller, 'createCategory'))
    throw new DavError(403, `Creating the category "${missing}" needs the author role or higher.`);
}

/** Writes each item through the import's writer; the local IDs by RECURRENCE-ID ('' for the master). */
async function writeItems(ctx: ServiceContext, items: ImportItem[]): Promise<Map<string, number>> {
  const ids = new Map<string, number>();
  const run = { ctx, source: CALDAV_SOURCE, dryRun: false, rewrite: true };
  for (const item of items) {
    const { outcome } = await writeItem(run, item);
    if (outcome.result === 'skipped') throw invalidData(`It cannot be written: ${outcome.reason}`);
    const hash = item.externalId.indexOf('#');
    ids.set(hash < 0 ? '' : item.externalId.slice(hash + 1), outcome.localId);
  }
  return ids;
}

/**
 * A changed occurrence the client had and left out of its PUT goes back to being the series'
 * occurrence: no longer an exception, it takes the series' fields and times again (services/series.ts
 * syncSeries), as the client's calendar now shows it. One it never saw is left as it is.
 */
async function revertDropped(tx: Tx, ctx: ServiceContext, masterId: number, shown: number[], ids: Map<string, number>) {
  const kept = new Set(ids.values());
  const dropped = shown.filter((id) => !kept.has(id));
  if (!dropped.length) return;
  await tx.event.updateMany({
    where: { id: { in: dropped }, parentId: masterId },
    data: { isException: false, modifiedAt: new Date() },
  });
  await syncSeries(tx, ctx, masterId, { rebuild: true, links: true });
}

/** The resource's name on its event, and each VEVENT's kept lines on its own event. */
async function saveObjects(
  tx: Tx,
  masterId: number,
  name: string,
  extras: Map<string, string>,
  ids: Map<string, number>,
) {
  await tx.davObject.upsert({
    where: { eventId: masterId },
    create: { eventId: masterId, name, extra: extras.get('') ?? '' },
    update: { name, extra: extras.get('') ?? '' },
  });
  // Occurrences no longer changed in this PUT lose what they kept.
  const overrides = [...ids].filter(([key]) => key !== '').map(([, id]) => id);
  await tx.$executeRaw`
    DELETE FROM dav_objects d USING events e
    WHERE d.event_id = e.id AND e.parent_id = ${masterId}::int AND NOT (e.id = ANY(${overrides}::int[]))`;
  for (const [key, id] of ids) {
    if (key === '') continue;
    const extra = extras.get(key) ?? '';
    await tx.davObject.upsert({ where: { eventId: id }, create: { eventId: id, extra }, update: { extra } });
  }
}

/**
 * DELETE: the resource's event to the trash, a series with its occurrences (as the API's DELETE).
 * Its ETag is compared under the event's lock, so no write slips in between.
 */
export async function deleteResource(
  ctx: ServiceContext,
  urls: Urls,
  collection: Collection,
  name: string,
  conditions: Conditions,
): Promise<void> {
  await ctx.db.$transaction(async (tx) => {
    const inner: ServiceContext = { ...ctx, db: nestingTransactions(tx) };
    const existing = await lockedResource(tx, inner, urls, collection, name);
    if (!existing) throw new DavError(404, 'No such resource.');
    checkConditions(conditions, existing.etag);
    await deleteEvent(inner, { id: existing.master.id }, false);
  });
}
