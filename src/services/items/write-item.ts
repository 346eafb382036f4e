// The one writer of items that another calendar names by its own identity: an item of an import
// (import/), or a VEVENT a CalDAV client put (services/calendar-objects/write.ts). Each item is
// written through the services, in one transaction with its mapping (ledger.ts): an import stopped
// at any moment leaves every item either written and mapped or not written at all, so running it
// again picks up where it stopped. The body is checked against the document first
// (validate-body.ts) and then goes through the same service functions as the API's writes, with
// the same permissions, derived fields, counts and change feed.
import { createHash } from 'node:crypto';
import type { Tx } from '../../db/client.js';
import { DomainError, DuplicateTermName, InvalidTermSlug, InvalidInput } from '../../domain/errors.js';
import { UID_SOURCES } from '../../domain/import-sources.js';
import { CATEGORY, ORGANIZER, TAG, VENUE } from '../../domain/records.js';
import type { ServiceContext } from '../context.js';
import { occurrenceAt } from '../series/occurrences.js';
import { insertEvent } from '../events/create.js';
import { changeEvent } from '../events/update.js';
import { inTransaction } from '../retry.js';
import { changeTerm, insertTerm, type TermInput } from '../terms.js';
import { changeVenueOrOrganizer, insertVenueOrOrganizer } from '../venues-and-organizers.js';
import { type ImportItem, type ItemKind, refKey } from '../../domain/external-items.js';
import { exportUid, findMapping, localState, MAX_EXTERNAL_ID, saveMapping } from './ledger.js';
import { bodyProblem, reasonOf } from './validate-body.js';

export type Outcome =
  { result: 'created' | 'updated' | 'unchanged'; localId: number } | { result: 'skipped'; reason: string };

/** A run of writes from one source: an import, or one CalDAV PUT. */
export interface ItemWriting {
  ctx: ServiceContext;
  /** The source's name in the mapping: the API's base URL, `ics`, or `caldav` (domain/import-sources.ts). */
  source: string;
  /** Decide and report, write nothing. */
  dryRun: boolean;
  /** How many items of a kind are written at once (import/run-import.ts); 1 when not given. */
  concurrency?: number;
  /** In a dry run: the items it would have created so far (refKey), which later ones may carry again. */
  planned?: Set<string>;
  /**
   * The local IDs of items this run found or wrote, by refKey, once their transaction committed: an
   * event's venue, organizers and terms are looked up once per run, not once per event. A
   * transaction run again (services/retry.ts) reads afresh, in case one was deleted here meanwhile.
   * Events, which no item names, are not kept: the run's memory grows with the items named, not
   * with the calendar.
   */
  known?: Map<string, number>;
  /**
   * Writes an event even when its body is the one last written from the source: a CalDAV PUT
   * replaces the event as it is now, which the API may have changed since (calendar-objects/write.ts).
   */
  rewrite?: boolean;
  /**
   * Runs in the item's transaction once it is stored and mapped (federation/remote-events.ts: the
   * cap of its source, its moderation); a DomainError it throws skips the item, and nothing of it stays.
   */
  afterStore?: (tx: Tx, item: ImportItem, stored: { localId: number; created: boolean }) => Promise<void>;
}

/** Whether items of this kind are named by others (and so kept in `known` and `planned`). */
const named = (key: string) => !key.startsWith('event:');

/** Writes the item (and, first, what it carries that was not imported yet); never throws a refusal. */
export async function writeItem(
  run: ItemWriting,
  item: ImportItem,
): Promise<{ outcome: Outcome; carried: ImportItem[]; remarks: string[] }> {
  let attempt: Attempt = { carried: [], found: new Map(), remarks: [] };
  let tries = 0;
  try {
    const outcome = await inTransaction(run.ctx, async (tx) => {
      // A transaction run again starts over, without what the run remembers.
      attempt = { carried: [], found: new Map(), remarks: [] };
      tries++;
      const written = await write(tx, { ...run, known: tries === 1 ? run.known : undefined }, item, attempt);
      // A skipped item leaves nothing behind: not the venue or organizers it carried.
      if (written.result === 'skipped' && attempt.carried.length) throw new SkippedWithCarried(written.reason);
      return written;
    });
    for (const [key, id] of attempt.found) if (named(key)) run.known?.set(key, id);
    const written = outcome.result !== 'skipped';
    return { outcome, carried: written ? attempt.carried : [], remarks: written ? attempt.remarks : [] };
  } catch (err) {
    // What the API would answer with a 4xx: this item is skipped, the import goes on. Anything
    // else (the database gone) stops it.
    if (err instanceof SkippedWithCarried)
      return { outcome: { result: 'skipped', reason: err.reason }, carried: [], remarks: [] };
    if (err instanceof DomainError) {
      return { outcome: { result: 'skipped', reason: reasonOf(err) }, carried: [], remarks: [] };
    }
    throw err;
  }
}

/** Rolls back what a skipped item's transaction created for it. */
class SkippedWithCarried extends Error {
  constructor(readonly reason: string) {
    super(reason);
  }
}

/** What one transaction of writeItem found and wrote besides its item. */
interface Attempt {
  /** Items it created because the item carried them. */
  carried: ImportItem[];
  /** Local IDs of items it found present or wrote, for ItemWriting.known once it commits. */
  found: Map<string, number>;
  /** What it changed of the item to take it, for the summary. */
  remarks: string[];
}

/** Writes the item, after what it carries; skipped when it is in the trash here or its body is refused. */
async function write(tx: Tx, run: ItemWriting, item: ImportItem, attempt: Attempt): Promise<Outcome> {
  // An item is known by its ID there; one the mapping cannot hold could never be found again.
  if (item.externalId.length > MAX_EXTERNAL_ID)
    return {
      result: 'skipped',
      reason: `its ID there is longer than ${MAX_EXTERNAL_ID.toLocaleString('en')} characters`,
    };
  await writeCarried(tx, run, item, attempt);
  const mapping = await findMapping(tx, run.source, item);
  const state = mapping ? await localState(tx, TABLE[item.kind], mapping.localId) : 'gone';
  const passed = passedOver(item, mapping, state, attempt);
  if (passed) return passed;
  const body = await withLocalIds(tx, run, item, attempt.found);
  const hash = contentHash(body);
  if (mapping && state === 'present' && mapping.contentHash === hash && !(run.rewrite && item.kind === 'event')) {
    attempt.found.set(refKey(item), mapping.localId);
    return { result: 'unchanged', localId: mapping.localId };
  }
  const localId = mapping && state === 'present' ? mapping.localId : undefined;
  const problem = bodyProblem(item.kind, body, localId);
  if (problem) return { result: 'skipped', reason: problem };
  if (run.dryRun) return planned(run, item, localId);
  return store(tx, run, item, { body, hash, localId, isNew: !mapping }, attempt);
}

/**
 * Writes the items this one carries that are neither here (mapped, and not deleted since) nor
 * written or planned by this run; one that is refused refuses this item.
 */
async function writeCarried(tx: Tx, run: ItemWriting, item: ImportItem, attempt: Attempt): Promise<void> {
  for (const inner of item.embedded ?? []) {
    const key = refKey(inner);
    if (run.planned?.has(key) || run.known?.has(key)) continue;
    const mapping = await findMapping(tx, run.source, inner);
    if (mapping && (await localState(tx, TABLE[inner.kind], mapping.localId)) !== 'gone') {
      attempt.found.set(key, mapping.localId);
      continue;
    }
    const outcome = await write(tx, run, inner, attempt);
    if (outcome.result === 'skipped') throw new InvalidInput({ [inner.kind]: `"${inner.label}": ${outcome.reason}` });
    attempt.carried.push(inner);
  }
}

/** In a dry run: what writing the item would do, noted in `planned` for the items that name it. */
function planned(run: ItemWriting, item: ImportItem, localId: number | undefined): Outcome {
  if (named(refKey(item))) run.planned?.add(refKey(item));
  return { result: localId === undefined ? 'created' : 'updated', localId: localId ?? 0 };
}

/** A body to write: its hash, the local item it updates (if any), and whether it is mapped yet. */
interface Writing {
  body: Record<string, unknown>;
  hash: string;
  localId: number | undefined;
  isNew: boolean;
}

/** Creates the item, or updates the one here, and maps it. */
async function store(
  tx: Tx,
  run: ItemWriting,
  item: ImportItem,
  { body, hash, localId, isNew }: Writing,
  attempt: Attempt,
): Promise<Outcome> {
  // Taken for one that was here already: recorded, and counted as unchanged.
  const made = localId === undefined ? await create(tx, run, item, body, attempt) : undefined;
  const id = made ? made.id : await update(tx, run.ctx, item, localId ?? 0, body);
  await saveMapping(tx, run.source, item, id, hash, isNew);
  // Its UID is the one it is exported with, unless another event's is already (ledger.ts exportUid).
  if (item.kind === 'event' && UID_SOURCES.has(run.source)) await exportUid(tx, run.source, item.externalId);
  await run.afterStore?.(tx, item, { localId: id, created: made !== undefined && !made.found });
  attempt.found.set(refKey(item), id);
  return { result: storedResult(made), localId: id };
}

/**
 * Why an item found here is not written: it is in the trash here, or it is older than the version
 * taken last. Versions that arrive out of order (a federated Update overtaken by a later one, a
 * source read from a stale copy) never roll back a newer one: the mapping's row is locked
 * (findMapping), so two versions written at once are compared one after the other.
 */
function passedOver(
  item: ImportItem,
  mapping: Awaited<ReturnType<typeof findMapping>>,
  state: Awaited<ReturnType<typeof localState>> | 'gone',
  attempt: Attempt,
): Outcome | undefined {
  if (state === 'trash') return { result: 'skipped', reason: 'it is in the trash here' };
  if (mapping && state === 'present' && olderThan(item.modified, mapping.sourceModified)) {
    attempt.found.set(refKey(item), mapping.localId);
    return { result: 'skipped', reason: 'a newer version of it is here' };
  }
  return undefined;
}

/** Whether the source's modification time `modified` is before the one taken last (both readable as dates). */
function olderThan(modified: string | undefined, taken: string | null): boolean {
  if (modified === undefined || taken === null) return false;
  const [a, b] = [Date.parse(modified), Date.parse(taken)];
  return !Number.isNaN(a) && !Number.isNaN(b) && a < b;
}

/** How a stored item counts: updated, created, or unchanged when one here was taken for it. */
function storedResult(made: { found: boolean } | undefined): 'created' | 'updated' | 'unchanged' {
  if (!made) return 'updated';
  return made.found ? 'unchanged' : 'created';
}

const TABLE = {
  event: 'events',
  venue: 'venues',
  organizer: 'organizers',
  category: 'terms',
  tag: 'terms',
} as const satisfies Record<ItemKind, string>;

/** The body with each named item's local ID; a name that was never imported refuses the item. */
async function withLocalIds(
  tx: Tx,
  run: ItemWriting,
  item: ImportItem,
  found: Map<string, number>,
): Promise<Record<string, unknown>> {
  const body = { ...item.body };
  for (const { field, items } of item.refs) {
    const ids: number[] = [];
    for (const ref of items) {
      const key = refKey(ref);
      const localId =
        ref.localId ?? run.known?.get(key) ?? found.get(key) ?? (await findMapping(tx, run.source, ref))?.localId;
      // A dry run has not written what it would have: any ID stands for it.
      if (localId === undefined && !run.dryRun) {
        throw new InvalidInput({ [field]: `the ${ref.kind} ${ref.externalId} it names was not imported` });
      }
      if (localId !== undefined) found.set(key, localId);
      ids.push(localId ?? 1);
    }
    body[field] = field === 'parent' ? (ids.at(0) ?? 0) : ids;
  }
  return body;
}

/** SHA-256 of the body with its keys in order: the same body always gives the same hash. */
function contentHash(body: unknown): string {
  return createHash('sha256')
    .update(JSON.stringify(canonical(body)))
    .digest('hex');
}

/** The value with the keys of each object in it sorted. */
function canonical(value: unknown): unknown {
  if (value && typeof value === 'object' && !Array.isArray(value)) {
    return Object.fromEntries(
      Object.entries(value)
        .sort(byKey)
        .map(([key, inner]) => [key, canonical(inner)]),
    );
  }
  if (Array.isArray(value)) return value.map(canonical);
  return value;
}

/** Orders entries by key, by code unit (not by locale): the same on every machine. */
function byKey([a]: [string, unknown], [b]: [string, unknown]): number {
  if (a < b) return -1;
  if (a > b) return 1;
  return 0;
}

/** Creates the item; `found` when one here was taken for it instead (the same venue, a term of that name). */
async function create(
  tx: Tx,
  run: ItemWriting,
  item: ImportItem,
  body: Record<string, unknown>,
  attempt: Attempt,
): Promise<{ id: number; found: boolean }> {
  const { ctx } = run;
  switch (item.kind) {
    case 'event': {
      const series = item.occurrenceOf && (await findMapping(tx, run.source, item.occurrenceOf.series));
      if (item.occurrenceOf && !series) {
        // Its series was refused: this changed occurrence is an event of its own, as calendar apps show it.
        attempt.remarks.push('a RECURRENCE-ID whose series was not imported: imported as an event of its own');
      }
      if (!item.occurrenceOf || !series) {
        const input = { ...body, ...item.createOnly } as Parameters<typeof insertEvent>[2];
        return { id: await insertEvent(tx, ctx, input), found: false };
      }
      const id = await occurrenceId(tx, ctx, series.localId, item.occurrenceOf);
      return { id: await changeEvent(tx, ctx, { id }, body, 'this'), found: false };
    }
    case 'venue':
    case 'organizer': {
      // A venue or organizer of the same name and details is taken as it is, as an event's inline
      // venue would be (services/venues-and-organizers.ts).
      const made = await insertVenueOrOrganizer(tx, ctx, item.kind === 'venue' ? VENUE : ORGANIZER, body);
      return { id: made.row.id, found: !made.created };
    }
    case 'category':
    case 'tag':
      return insertOrAdoptTerm(tx, ctx, item.kind === 'category' ? CATEGORY : TAG, body);
  }
}

/**
 * A term of the same name (and parent) here already is this one; a taken slug gives way to a
 * derived one. A concurrent import may create the name between the two tries: taken then too.
 */
async function insertOrAdoptTerm(
  tx: Tx,
  { caller }: ServiceContext,
  taxonomy: typeof CATEGORY,
  body: TermInput,
): Promise<{ id: number; found: boolean }> {
  for (const input of [body, { ...body, slug: undefined }]) {
    try {
      return { id: await insertTerm(tx, caller, taxonomy, input), found: false };
    } catch (err) {
      if (err instanceof DuplicateTermName) return { id: err.existingId, found: true };
      if (!(err instanceof InvalidTermSlug) || input.slug === undefined) throw err;
    }
  }
  throw new Error('unreachable: the second try has no slug to refuse');
}

async function update(tx: Tx, ctx: ServiceContext, item: ImportItem, id: number, body: Record<string, unknown>) {
  switch (item.kind) {
    case 'event':
      return changeEvent(tx, ctx, { id }, body, item.occurrenceOf ? 'this' : undefined);
    case 'venue':
    case 'organizer':
      return (await changeVenueOrOrganizer(tx, ctx, item.kind === 'venue' ? VENUE : ORGANIZER, { id }, body)).id;
    case 'category':
    case 'tag':
      await changeTerm(tx, ctx, item.kind === 'category' ? CATEGORY : TAG, id, body);
      return id;
  }
}

/**
 * The occurrence of an imported series that an override replaces, by its original start: added when
 * the rule gives it but it lies outside the series' window (services/series/occurrences.ts occurrenceAt).
 */
async function occurrenceId(
  tx: Tx,
  ctx: ServiceContext,
  seriesId: number,
  { originalStart }: NonNullable<ImportItem['occurrenceOf']>,
): Promise<number> {
  // Original starts are wall-clock times in the series' zone, kept as if UTC (services/series/occurrences.ts).
  const id = await occurrenceAt(tx, ctx, seriesId, new Date(`${originalStart.replace(' ', 'T')}Z`));
  if (id === undefined) {
    throw new InvalidInput({
      'recurrence-id': `the series has no occurrence starting ${originalStart}: its rule does not give that start (RFC 5545 3.8.4.4: a RECURRENCE-ID names an occurrence of its series)`,
    });
  }
  return id;
}
