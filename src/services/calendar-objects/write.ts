// Writing a calendar object resource that a CalDAV client put, and deleting one: the use case
// behind caldav/write.ts, which only reads the body and words the answer. Each VEVENT is written by
// the one writer of items with an identity of their own (services/items/write-item.ts), so
// permissions, validation, the change feed and webhooks are the API's.
//
// Identity: a resource's UID is written under the source `caldav` (domain/import-sources.ts), never
// the import's, so a client's UID never names an imported item nor the reverse; a new resource may
// not carry a UID another live event is exported with, nor one of the site's own form, which the
// service gives the events it creates (docs/caldav.md, "Writing").
//
// Concurrency: the whole write is one transaction. Writers of one name, and of one UID, take turns
// on advisory locks taken first, always the name before the UID; the event a name names is locked
// (FOR UPDATE) before its ETag is compared and it is changed. So the second of two writers sees
// what the first committed: its If-Match or If-None-Match fails, or its UID is taken.
import { assertMay } from '../../auth/capabilities.js';
import { canEdit } from '../../auth/permissions.js';
import type { Tx } from '../../db/client.js';
import { nestingTransactions } from '../../db/savepoints.js';
import { ifMatchHolds, noneMatch } from '../../domain/entity-tags.js';
import { Forbidden, ObjectRefused, PreconditionFailed } from '../../domain/errors.js';
import type { ImportItem } from '../../domain/external-items.js';
import { eventUid, isSiteUid } from '../../domain/identities.js';
import { CALDAV_SOURCE } from '../../domain/import-sources.js';
import type { EventRecord } from '../../domain/records.js';
import { forgetOccurrenceLines, termsNamed } from '../../queries/calendar-objects.js';
import { lockEventStatus } from '../../queries/event-storage.js';
import type { ServiceContext } from '../context.js';
import { deleteEvent } from '../events/delete.js';
import { importedUids } from '../events/read.js';
import { exportUid, forgetUid, mapUidTo, uidHolder } from '../items/ledger.js';
import { writeItem } from '../items/write-item.js';
import { retryOnConflict } from '../retry.js';
import { syncSeries } from '../series/sync.js';
import { idOfName } from './read.js';

/** If-Match and If-None-Match as the client sent them. */
export interface Conditions {
  ifMatch?: string;
  ifNoneMatch?: string;
}

/** A resource as it is stored and was served: its ETag, its event and changed occurrences, its text. */
export interface StoredObject {
  etag: string;
  master: EventRecord;
  overrides: EventRecord[];
  text: string;
}

/** What a PUT asks to be written. */
export interface ObjectPut {
  name: string;
  uid: string;
  site: string;
  /** Each VEVENT's lines that no field holds, kept as written, by RECURRENCE-ID ('' for the series). */
  extras: Map<string, string>;
  conditions: Conditions;
  /** The resource the name names as this caller is served it (caldav/texts.ts), in the write's transaction. */
  stored(ctx: ServiceContext, id: number): Promise<StoredObject | undefined>;
  /**
   * The items to write, given what is stored: what the client changed of what it was served
   * (caldav/items.ts), the rest left as it is.
   */
  items(stored: StoredObject | undefined): ImportItem[];
}

/** Writes the resource; whether it was created. */
export function putCalendarObject(ctx: ServiceContext, put: ObjectPut): Promise<{ created: boolean }> {
  return retryOnConflict(() =>
    ctx.db.$transaction(
      async (tx) => {
        const inner: ServiceContext = { ...ctx, db: nestingTransactions(tx) };
        // Writers of one name, or of one UID, take turns from here: each sees what the one before
        // it committed (a new resource, a claimed UID), which no row lock can give for rows that
        // do not exist yet.
        await tx.$executeRaw`SELECT pg_advisory_xact_lock(hashtextextended(${`caldav name ${put.name}`}, 0))`;
        await tx.$executeRaw`SELECT pg_advisory_xact_lock(hashtextextended(${`caldav uid ${put.uid}`}, 0))`;
        const existing = await lockedObject(tx, inner, put);
        if (!existing) await freeName(tx, put.name);
        checkConditions(put.conditions, existing?.etag);
        assertMayWrite(ctx, existing?.master);
        await claimUid(tx, inner, put, existing?.master);
        const linked = existing?.master.terms.map((t) => t.termId) ?? [];
        const items = await resolveTerms(tx, put.items(existing), linked);
        const shown = existing?.overrides.map((o) => o.id) ?? [];
        const ids = await writeItems(inner, items);
        const masterId = ids.get('') ?? 0;
        // A new resource is exported with its UID, or not made (an import took the UID meanwhile).
        if (!existing && !(await exportUid(tx, CALDAV_SOURCE, put.uid))) throw uidTaken(put.uid);
        await revertDropped(tx, inner, masterId, shown, ids);
        await saveObjects(tx, masterId, put.name, put.extras, ids);
        return { created: !existing };
      },
      { timeout: 30_000 },
    ),
  );
}

/**
 * The resource the name names, as the caller is served it, locked; none when the name is free. A
 * name is free when nothing has it or its event is gone or in the trash; a name whose event the
 * caller may not read, or that lies outside the collection, is refused, never taken over.
 */
async function lockedObject(tx: Tx, ctx: ServiceContext, put: Pick<ObjectPut, 'name' | 'stored'>) {
  const id = await idOfName(tx, put.name);
  const status = id === undefined ? undefined : await lockEventStatus(tx, id);
  if (status === undefined || status === 'trash') return undefined;
  const stored = await put.stored(ctx, id ?? 0);
  if (!stored) throw new ObjectRefused('not-here', 'This name belongs to an event you may not change here.');
  return stored;
}

/** Changing an event needs the right to edit it; creating one, the capability to create events. */
function assertMayWrite(ctx: ServiceContext, current: EventRecord | undefined) {
  if (current && !canEdit(ctx.caller, current))
    throw new Forbidden(true, 'Sorry, you are not allowed to edit this event.');
  if (!current) assertMay(ctx.caller, 'create events');
}

/**
 * Takes the name from an event that is gone or in the trash, for a new one. `<number>.ics` are the
 * names of events no client named (read.ts idOfName): a client cannot give one to a new event,
 * which would take the name of a later one.
 */
async function freeName(tx: Tx, name: string) {
  if (NUMBERED.test(name))
    throw new ObjectRefused('not-here', `Names such as ${name} are the service's own: choose another.`);
  await tx.davObject.updateMany({ where: { name }, data: { name: null } });
}

const NUMBERED = /^\d+\.ics$/;

/** If-Match and If-None-Match (domain/entity-tags.ts), against the resource's current ETag. */
function checkConditions({ ifMatch, ifNoneMatch }: Conditions, etag: string | undefined) {
  if (!ifMatchHolds(ifMatch, etag) || (etag !== undefined && !noneMatch(ifNoneMatch, etag)))
    throw new PreconditionFailed('The resource is not in the state the request expects; read it again.');
}

/**
 * Makes the UID this resource's under the source `caldav`, which the writer finds it by. A resource
 * keeps its UID (the one it is exported with); a new one may take a UID no live event is exported
 * with (RFC 4791 5.3.2.1, no-uid-conflict), never one of the site's own form, which the next event
 * created through the API would be given too.
 */
async function claimUid(tx: Tx, ctx: ServiceContext, put: ObjectPut, current: EventRecord | undefined) {
  const { uid, site } = put;
  if (current) {
    const currentUid = eventUid(site, current.id, (await importedUids(ctx, [current])).get(current.id));
    if (currentUid !== uid)
      throw new ObjectRefused('uid-conflict', `This resource's UID is ${currentUid}: a resource keeps its UID.`);
    await mapUidTo(tx, CALDAV_SOURCE, uid, current.id);
    return;
  }
  if (isSiteUid(site, uid)) {
    throw new ObjectRefused(
      'site-uid',
      `UIDs of the form ${new URL(site).host}?id=... are the site's own, given to the events it creates: a client's event needs a UID of its own.`,
    );
  }
  if ((await uidHolder(tx, uid)) !== undefined) throw uidTaken(uid);
  // What clients wrote under this UID before belongs to an event no longer shown with it (gone, or
  // in the trash, which keeps no UID): the UID starts a new event.
  await forgetUid(tx, CALDAV_SOURCE, uid);
}

const uidTaken = (uid: string) => new ObjectRefused('uid-conflict', `Another resource holds the UID ${uid}.`);

/**
 * The iCalendar export writes an event's categories and tags alike as CATEGORIES, which a reader
 * takes as categories of no parent, made where none of that name and parent is. Here a name is the
 * category of that name whatever its parent (the one the event has, else the first), else the tag
 * of that name, and only a name that is neither makes a category (which needs the capability to:
 * services/terms.ts insertTerm): a round trip neither makes top-level copies of subcategories nor
 * categories of tags. When the client changed CATEGORIES, they are all the event's terms: its tags
 * are set too, to none if none.
 */
async function resolveTerms(tx: Tx, items: ImportItem[], linked: number[]): Promise<ImportItem[]> {
  const nameOf = (ref: { externalId: string }) => ref.externalId.slice('category:'.length);
  const names = [
    ...new Set(
      items.flatMap((i) => i.refs.filter((r) => r.field === 'categories').flatMap((r) => r.items.map(nameOf))),
    ),
  ];
  const terms = names.length ? await termsNamed(tx, names, linked) : [];
  const found = new Map<string, { kind: 'category' | 'tag'; id: number }>();
  for (const t of terms) {
    // Categories first (termsNamed's order), the event's own before others of the same name.
    if (!found.has(t.name)) found.set(t.name, { kind: t.taxonomy === 'post_tag' ? 'tag' : 'category', id: t.id });
  }
  const here = (name: string) => {
    const term = found.get(name);
    return term && { kind: term.kind, externalId: `#${term.id}`, localId: term.id };
  };
  // New items, not the read ones changed: a transaction run again (services/retry.ts) starts over.
  return items.map((item) => {
    const categories = item.refs.find((r) => r.field === 'categories');
    if (!categories) return item;
    const resolved = categories.items.map((i) => here(nameOf(i)) ?? i);
    return {
      ...item,
      refs: [
        ...item.refs.filter((r) => r.field !== 'categories'),
        { field: 'categories', items: resolved.filter((r) => r.kind === 'category') },
        { field: 'tags', items: resolved.filter((r) => r.kind === 'tag') },
      ],
      embedded: item.embedded?.filter((e) => e.kind !== 'category' || !found.has(nameOf(e))),
    };
  });
}

/** Writes each item with the one writer; the local IDs by RECURRENCE-ID ('' for the master). */
async function writeItems(ctx: ServiceContext, items: ImportItem[]): Promise<Map<string, number>> {
  const ids = new Map<string, number>();
  const run = { ctx, source: CALDAV_SOURCE, dryRun: false, rewrite: true };
  for (const item of items) {
    const { outcome } = await writeItem(run, item);
    if (outcome.result === 'skipped') throw new ObjectRefused('unwritable', `It cannot be written: ${outcome.reason}`);
    const hash = item.externalId.indexOf('#');
    ids.set(hash < 0 ? '' : item.externalId.slice(hash + 1), outcome.localId);
  }
  return ids;
}

/**
 * A changed occurrence the client had and left out of its PUT goes back to being the series'
 * occurrence: no longer an exception, it takes the series' fields and times again (services/series/sync.ts
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
  await forgetOccurrenceLines(tx, masterId, overrides);
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
export async function deleteCalendarObject(
  ctx: ServiceContext,
  remove: Pick<ObjectPut, 'name' | 'stored'> & { conditions: Conditions },
): Promise<void> {
  await ctx.db.$transaction(async (tx) => {
    const inner: ServiceContext = { ...ctx, db: nestingTransactions(tx) };
    const existing = await lockedObject(tx, inner, remove);
    if (!existing) throw new ObjectRefused('missing', 'No such resource.');
    checkConditions(remove.conditions, existing.etag);
    await deleteEvent(inner, { id: existing.master.id }, false);
  });
}
