// Events: reads, and writes that run in one transaction with everything they link to (new venues,
// organizers and terms included), so that a failed write leaves nothing behind. Writes are true
// partial updates: a field that is not sent keeps its value (docs/decisions.md, "Writes are partial
// updates").
import type { components } from '../../generated/api.js';
import { Prisma as PrismaNS } from '../../generated/prisma/client.js';
import { canEdit, canRead, effectiveAuthor, effectiveStatus, forbidden } from '../auth/permissions.js';
import type { Prisma, Tx } from '../db/client.js';
import { InvalidInput, NotFound } from '../domain/errors.js';
import { describeKey, type Key } from '../domain/posts.js';
import { CATEGORY, type EventRecord, ORGANIZER, TAG, VENUE, type VenueOrOrganizerKind } from '../domain/records.js';
import { ICS_SOURCE } from '../domain/import-sources.js';
import { type EventZone, eventTimes, eventZone, fromWallClock, UTC_ZONE } from '../lib/event-times.js';
import {
  canonicalLines,
  convertLines,
  exdateLine,
  givesStart,
  parseRecurrence,
  shiftOf,
  splitLines,
} from '../lib/recurrence.js';
import { likeEscaped, startingWith } from '../lib/like.js';
import { selectEvents } from '../queries/event-rows.js';
import type { ServiceContext } from './context.js';
import {
  assertTermsFound,
  assertVenuesOrOrganizersFound,
  type LinksWrite,
  termIdsForWrite,
  termIdsOnly,
  venueOrOrganizerIdsForWrite,
  venueOrOrganizerIdsOnly,
} from './event-links.js';
import { transactionDriverOf } from '../db/driver.js';
import type { PostStatus } from '../domain/posts.js';
import { firstFreeSlug, slugify } from '../lib/slug.js';
import { lockForWrite, type PostTable, slugForUpdate, trashOrDelete } from './post-writes.js';
import { assertReadable, freeSlug, imageValue, type PostHead, publicationDate, userExists } from './posts.js';
import { inTransaction, retryOnConflict } from './retry.js';
import { assertSeriesRoom, chargeCreate, chargeCreateIn } from './quotas.js';
import {
  endSeries,
  exactLength,
  expandSeries,
  lockSeries,
  reachesFurther,
  readRecurrence,
  shiftSeries,
  syncSeries,
} from './series.js';

/** A write of an event, as the document defines it: every field optional (an update). */
export type EventInput = components['schemas']['EventFields'];

/** The event an ID or slug names, with everything its representation shows, or undefined. */
async function findEvent(db: Prisma | Tx, key: Key): Promise<EventRecord | undefined> {
  const where = 'id' in key ? PrismaNS.sql`e.id = ${key.id}::int` : PrismaNS.sql`e.slug = ${key.slug}::text`;
  return (await selectEvents(db, { where }))[0];
}

export async function getEvent(ctx: ServiceContext, key: Key): Promise<EventRecord> {
  const row = await findEvent(ctx.db, key);
  if (!row) throw new NotFound('event', describeKey(key));
  assertReadable('event', ctx.caller, row);
  return row;
}

/** Which events of a series a write or delete of one of them means (docs/decisions.md, "Recurring events"). */
export type Scope = 'this' | 'following' | 'all';

/**
 * The occurrences of a series changed on their own that a calendar shows as overrides of its rule:
 * those the caller may read, not in the trash (a deleted occurrence is an EXDATE of the series), and
 * still at a start the rule gives (else they are events of their own).
 */
export async function seriesOverrides(ctx: ServiceContext, series: EventRecord): Promise<EventRecord[]> {
  const rows = await selectEvents(ctx.db, {
    where: PrismaNS.sql`e.parent_id = ${series.id}::int AND e.is_exception AND e.status <> 'trash'`,
    orderBy: PrismaNS.sql`ORDER BY e.original_start_local`,
  });
  const zone = eventZone(series.timezone) ?? UTC_ZONE;
  const rule = parseRecurrence(series.recurrence, zone, series.allDay);
  return rows.filter(
    (row) => canRead(ctx.caller, row) && givesStart(rule, series.startLocal, occurrenceOf(row).original),
  );
}

export async function createEvent(
  ctx: ServiceContext,
  input: components['schemas']['EventInput'],
): Promise<EventRecord> {
  const plain = plainCreate(ctx, input);
  const id = plain ? await retryOnConflict(plain) : await inTransaction(ctx, (tx) => insertEvent(tx, ctx, input));
  return readBack(ctx.db, id);
}

const attempt = <T>(work: () => T): { value: T } | { error: unknown } => {
  try {
    return { value: work() };
  } catch (error) {
    return { error };
  }
};
const take = <T>(result: { value: T } | { error: unknown }): T => {
  if ('error' in result) throw result.error;
  return result.value;
};

/**
 * The create of the common case, past Prisma: an event that is no series and names its venues,
 * organizers and terms by ID only. The same checks, answers and errors (in the same order) as
 * insertEvent, in one transaction of five statements on the driver (BEGIN, one read for every
 * check and the slugs taken, the event, its links, COMMIT) instead of a dozen through Prisma's
 * query compiler. Undefined for any other create, or a client without a driver of its own.
 */
function plainCreate(
  ctx: ServiceContext,
  input: components['schemas']['EventInput'],
): (() => Promise<number>) | undefined {
  const transaction = transactionDriverOf(ctx.db);
  if (!transaction || input.recurrence?.length) return undefined;
  const venues = attempt(() => (input.venue === undefined ? [] : venueOrOrganizerIdsOnly(VENUE, input.venue)));
  const organizers = attempt(() =>
    input.organizer === undefined ? [] : venueOrOrganizerIdsOnly(ORGANIZER, input.organizer),
  );
  const categories = attempt(() =>
    input.categories === undefined ? [] : termIdsOnly(CATEGORY, 'categories', input.categories),
  );
  const tags = attempt(() => (input.tags === undefined ? [] : termIdsOnly(TAG, 'tags', input.tags)));
  if ([venues, organizers, categories, tags].some((r) => 'value' in r && r.value === undefined)) return undefined;
  const ids = (r: { value: number[] | undefined } | { error: unknown }) => ('value' in r ? (r.value ?? []) : []);
  const { caller, siteZone } = ctx;
  const title = input.title.trim();
  const publishedAt = publicationDate(input, siteZone);
  const when = times(input, undefined, siteZone);
  const base = (input.slug !== undefined ? slugify(input.slug) : '') || slugify(title) || 'event';
  // Before the author and the links, as in insertEvent: an image ID is refused first.
  const c = columns(input);
  return () =>
    transaction(async (query) => {
      const rows = (await query(
        `SELECT 'venue' AS kind, id, author_id, status::text AS status, NULL AS slug FROM venues WHERE id = ANY($1::int[])
         UNION ALL SELECT 'organizer', id, author_id, status::text, NULL FROM organizers WHERE id = ANY($2::int[])
         UNION ALL SELECT taxonomy::text, id, NULL, NULL, NULL FROM terms
           WHERE (taxonomy = 'tribe_events_cat' AND id = ANY($3::int[])) OR (taxonomy = 'post_tag' AND id = ANY($4::int[]))
         UNION ALL SELECT 'user', id, NULL, NULL, NULL FROM users WHERE id = $5::int
         UNION ALL SELECT 'slug', NULL, NULL, NULL, slug FROM events WHERE slug LIKE $6::text`,
        [ids(venues), ids(organizers), ids(categories), ids(tags), input.author ?? null, `${likeEscaped(base)}%`],
      )) as { kind: string; id: number; author_id: number | null; status: PostStatus; slug: string }[];
      const of = (kind: string) =>
        rows.filter((r) => r.kind === kind).map((r) => ({ id: r.id, authorId: r.author_id, status: r.status }));
      const slug = firstFreeSlug(
        base,
        rows.filter((r) => r.kind === 'slug').map((r) => r.slug),
      );
      const authorId = await effectiveAuthor(caller, input.author, undefined, (user) =>
        Promise.resolve(of('user').some((r) => r.id === user)),
      );
      const venueIds = take(venues) ?? [];
      assertVenuesOrOrganizersFound(caller, VENUE, venueIds, of('venue'));
      const organizerIds = take(organizers) ?? [];
      assertVenuesOrOrganizersFound(caller, ORGANIZER, organizerIds, of('organizer'));
      const categoryIds = take(categories) ?? [];
      assertTermsFound(CATEGORY, 'categories', categoryIds, new Set(of(CATEGORY).map((r) => r.id)));
      const tagIds = take(tags) ?? [];
      assertTermsFound(TAG, 'tags', tagIds, new Set(of(TAG).map((r) => r.id)));

      const now = new Date().toISOString();
      const wallClock = (d: Date) => d.toISOString().replace('Z', '');
      const values: [string, unknown, string][] = [];
      const set = (column: string, value: unknown, type: string) => {
        if (value !== undefined) values.push([column, value, type]);
      };
      set('author_id', authorId, 'int');
      set('status', effectiveStatus(caller, input.status), '"PostStatus"');
      set('slug', slug, 'text');
      set('title', title, 'text');
      set('description', c.description, 'text');
      set('excerpt', c.excerpt, 'text');
      set('published_at', publishedAt?.toISOString() ?? now, 'timestamptz');
      set('modified_at', now, 'timestamptz');
      set('start_local', wallClock(when.startLocal), 'timestamp');
      set('end_local', wallClock(when.endLocal), 'timestamp');
      set('start_utc', when.startUtc.toISOString(), 'timestamptz');
      set('end_utc', when.endUtc.toISOString(), 'timestamptz');
      set('timezone', when.timezone, 'text');
      set('all_day', when.allDay, 'boolean');
      set(
        'cost',
        c.cost === undefined ? undefined : c.cost === PrismaNS.DbNull ? null : JSON.stringify(c.cost),
        'jsonb',
      );
      set('website', c.website, 'text');
      set('image', c.image, 'text');
      set('show_map', c.showMap, 'boolean');
      set('show_map_link', c.showMapLink, 'boolean');
      set('hide_from_listings', c.hideFromListings, 'boolean');
      set('sticky', c.sticky, 'boolean');
      set('featured', c.featured, 'boolean');
      const [{ id }] = (await query(
        `INSERT INTO events (${values.map(([column]) => column).join(', ')})
         VALUES (${values.map(([, , type], i) => `$${i + 1}::${type}`).join(', ')}) RETURNING id`,
        values.map(([, value]) => value),
      )) as { id: number }[];
      const terms = [...categoryIds, ...tagIds];
      if (venueIds.length || organizerIds.length || terms.length) {
        // One statement: each link's trigger sees the event inserted above.
        await query(
          `WITH v AS (INSERT INTO event_venues (event_id, venue_id, position)
                      SELECT $1::int, t.id, t.n - 1 FROM unnest($2::int[]) WITH ORDINALITY AS t(id, n)),
                o AS (INSERT INTO event_organizers (event_id, organizer_id, position)
                      SELECT $1::int, t.id, t.n - 1 FROM unnest($3::int[]) WITH ORDINALITY AS t(id, n))
           INSERT INTO event_terms (event_id, term_id) SELECT $1::int, t.id FROM unnest($4::int[]) AS t(id)`,
          [id, venueIds, organizerIds, terms],
        );
      }
      await chargeCreate(query, ctx);
      return id;
    });
}

/** Creates the event inside the caller's transaction and answers its ID (the importer's writes). */
export async function insertEvent(
  tx: Tx,
  ctx: ServiceContext,
  input: components['schemas']['EventInput'],
): Promise<number> {
  const { caller, siteZone } = ctx;
  const title = input.title.trim();
  const publishedAt = publicationDate(input, siteZone);
  const when = times(input, undefined, siteZone);
  const { id, authorId } = await tx.event.create({
    data: {
      ...columns(input),
      ...when,
      recurrence: recurrenceFor(input, undefined, when),
      title,
      slug: await freeSlug(input.slug, title, 'event', (base) => takenSlugs(tx, base, undefined)),
      status: effectiveStatus(caller, input.status),
      authorId: await effectiveAuthor(caller, input.author, undefined, (user) => userExists(tx, user)),
      ...(publishedAt ? { publishedAt } : {}),
    },
    select: { id: true, authorId: true },
  });
  await writeLinks(tx, ctx, id, input, true);
  if (input.recurrence?.length) {
    await assertSeriesRoom(tx, ctx, authorId, id);
    await syncSeries(tx, ctx, id, { rebuild: true, links: false });
  }
  await chargeCreateIn(tx, ctx);
  return id;
}

/**
 * An update. Of a series (scope `all`, its default) it changes the series and every occurrence that
 * is not an exception. Of an occurrence: `this` (its default) changes it alone and makes it an
 * exception; `following` splits the series there, the change going to a new series of this and the
 * later occurrences; `all` changes the series. Answers the event changed: the occurrence, the new
 * series or the series.
 */
export async function updateEvent(
  ctx: ServiceContext,
  key: Key,
  input: EventInput,
  scope?: Scope,
): Promise<EventRecord> {
  const id = await inTransaction(ctx, (tx) => changeEvent(tx, ctx, key, input, scope));
  return readBack(ctx.db, id);
}

/** The update above inside the caller's transaction; answers the ID of the event changed. */
export async function changeEvent(
  tx: Tx,
  ctx: ServiceContext,
  key: Key,
  input: EventInput,
  scope?: Scope,
): Promise<number> {
  const current = await lockTarget(tx, ctx, key);
  const { kind, chosen, series } = await resolveScope(tx, ctx, current, scope);
  if (kind === 'occurrence') {
    if (!series) {
      if (input.recurrence !== undefined) throw new InvalidInput({ recurrence: RECURRENCE_OF_SERIES });
      const after = await writeEvent(tx, ctx, current, input, { isException: true });
      if (current.status === 'trash' && after.status !== 'trash') await restoreOccurrence(tx, current);
      return current.id;
    }
    if (chosen === 'all') {
      await writeEventAndOccurrences(tx, ctx, series, shiftedInput(input, current, series, ctx.siteZone));
      return series.id;
    }
    return splitSeries(tx, ctx, series, current, input);
  }
  await writeEventAndOccurrences(tx, ctx, current, input);
  return current.id;
}

const RECURRENCE_OF_SERIES =
  'recurrence belongs to the series: update it with scope=all, or from here on with scope=following.';

type EventKind = 'single' | 'series' | 'occurrence';
const kindOf = (row: EventRow): EventKind =>
  row.recurrence.length ? 'series' : row.parentId !== null ? 'occurrence' : 'single';

/** The scope a write means, its default filled in; 400 for a scope that does not apply. */
function checkScope(kind: EventKind, scope: Scope | undefined): Scope {
  if (kind === 'occurrence') return scope ?? 'this';
  if (scope === 'following' || (kind === 'series' && scope === 'this')) {
    throw new InvalidInput({
      scope:
        kind === 'series'
          ? 'scope=this and scope=following name one occurrence: send them to the occurrence.'
          : 'scope=following applies to occurrences of a series only.',
    });
  }
  return 'all';
}

/**
 * What a write or delete of `current` with `scope` means: its kind, the scope with its default, and
 * for `all` or `following` sent to an occurrence its series, which the caller must be allowed to
 * change too (an occurrence may have an author of its own). `following` from the first occurrence
 * is the whole series: nothing would be left before it.
 */
async function resolveScope(tx: Tx, ctx: ServiceContext, current: EventRow, scope: Scope | undefined) {
  const kind = kindOf(current);
  const chosen = checkScope(kind, scope);
  if (kind !== 'occurrence' || chosen === 'this') return { kind, chosen, series: undefined };
  const { series: seriesId, original } = occurrenceOf(current);
  const series = await readRow(tx, seriesId);
  if (!canEdit(ctx.caller, series)) throw forbidden(ctx.caller);
  return { kind, chosen: chosen === 'following' && original <= series.startLocal ? 'all' : chosen, series };
}

/** An occurrence's series and original start. */
function occurrenceOf(row: { parentId: number | null; originalStartLocal: Date | null }) {
  if (row.parentId === null || row.originalStartLocal === null) throw new Error('not an occurrence of a series');
  return { series: row.parentId, original: row.originalStartLocal };
}

type EventRow = NonNullable<Awaited<ReturnType<Tx['event']['findUnique']>>>;

async function readRow(tx: Tx, id: number): Promise<EventRow> {
  const row = await tx.event.findUnique({ where: { id } });
  if (!row) throw new NotFound('event', id);
  return row;
}

/**
 * The event a key names, locked, once the caller may change it and If-Match holds. An occurrence's
 * series is locked first, as every write of a series locks it before its occurrences
 * (services/series.ts), so that the two cannot deadlock.
 */
async function lockTarget(tx: Tx, ctx: ServiceContext, key: Key): Promise<EventRow> {
  const where = 'id' in key ? { id: key.id } : { slug: key.slug };
  const parent = (await tx.event.findUnique({ where, select: { parentId: true } }))?.parentId;
  if (parent) await lockSeries(tx, parent);
  const current = await lockForWrite(
    tx,
    ctx,
    eventTable(tx, (id) => tx.event.findUnique({ where: { id } })),
    key,
  );
  // Moved to another series (a split) between the two reads: lock that one too.
  if (current.parentId && current.parentId !== parent) await lockSeries(tx, current.parentId);
  return current;
}

/** Writes the event's own row and links; answers the row before and after. */
async function writeEvent(
  tx: Tx,
  ctx: ServiceContext,
  current: EventRow,
  input: EventInput,
  extra: { isException?: boolean } = {},
) {
  const { caller, siteZone } = ctx;
  const title = input.title?.trim() ?? current.title;
  const publishedAt = publicationDate(input, siteZone);
  const when = times(input, current, siteZone);
  const after = await tx.event.update({
    where: { id: current.id },
    data: {
      ...columns(input),
      ...when,
      recurrence: recurrenceFor(input, current, when),
      title,
      slug: await slugForUpdate(input.slug, current, title, 'event', (base) => takenSlugs(tx, base, current.id)),
      status: effectiveStatus(caller, input.status, current.status),
      authorId: await effectiveAuthor(caller, input.author, current.authorId, (user) => userExists(tx, user)),
      modifiedAt: new Date(),
      ...(publishedAt ? { publishedAt } : {}),
      ...extra,
    },
  });
  await writeLinks(tx, ctx, current.id, input);
  return after;
}

/** A write of a single event or a series, then of the series' occurrences. */
async function writeEventAndOccurrences(
  tx: Tx,
  ctx: ServiceContext,
  current: EventRow,
  input: EventInput,
): Promise<void> {
  const after = await writeEvent(tx, ctx, current, input);
  if (current.recurrence.length && !after.recurrence.length) return endSeries(tx, current.id);
  if (!after.recurrence.length) return;
  // A new series of this author: a single event that becomes one, or one out of the trash.
  if (!current.recurrence.length || (current.status === 'trash' && after.status !== 'trash')) {
    await assertSeriesRoom(tx, ctx, after.authorId, current.id);
  }
  const zone = eventZone(after.timezone) ?? UTC_ZONE;
  // Lines not sent, or sent again as they were: a move moves the occurrences with the series. A
  // change of the all-day flag is no move: recurrenceFor converted the dates already.
  const untouched =
    current.recurrence.length > 0 &&
    current.allDay === after.allDay &&
    (input.recurrence === undefined || after.recurrence.join('\n') === current.recurrence.join('\n'));
  const delta = untouched
    ? shiftOf(parseRecurrence(after.recurrence, zone, after.allDay), current.startLocal, after.startLocal)
    : 0;
  if (delta) {
    // Its occurrences' original starts, exceptions and EXDATEs move with it: IDs and exceptions are kept.
    const recurrence = await shiftSeries(tx, after, zone, current.startLocal, delta);
    await tx.event.update({ where: { id: current.id }, data: { recurrence } });
    after.recurrence = recurrence;
  }
  if (current.status === 'trash' && after.status !== 'trash') await restoreExceptions(tx, after, zone);
  const moved = (['startLocal', 'endLocal'] as const).some((k) => after[k].getTime() !== current[k].getTime());
  const rebuild =
    moved ||
    after.timezone !== current.timezone ||
    after.allDay !== current.allDay ||
    after.recurrence.join('\n') !== current.recurrence.join('\n');
  const links = [input.venue, input.organizer, input.categories, input.tags].some((v) => v !== undefined);
  await syncSeries(tx, ctx, current.id, { rebuild, links });
  if (reachesFurther(current.status, after.status)) await expandSeries(tx, current.id, 'extend', ctx, new Date());
}

/**
 * `scope=all` sent to an occurrence: new times given for the occurrence move the series by as much
 * (the occurrence moved from 19:00 to 20:00: every occurrence starts at 20:00).
 */
function shiftedInput(input: EventInput, occurrence: EventRow, series: EventRow, siteZone: string): EventInput {
  if (input.start_date === undefined && input.end_date === undefined) return input;
  const when = times(input, occurrence, siteZone);
  const shift = (field: 'start' | 'end') => {
    const moved = when[`${field}Local`].getTime() - occurrence[`${field}Local`].getTime();
    return formatWallClock(new Date(series[`${field}Local`].getTime() + moved));
  };
  return { ...input, start_date: shift('start'), end_date: shift('end'), timezone: when.timezone };
}

const formatWallClock = (local: Date) => local.toISOString().slice(0, 19).replace('T', ' ');

/**
 * `scope=following`: the series ends before the occurrence, and a new series (the input applied to a
 * copy of the old) takes over from it, with this and every later occurrence, exceptions included.
 */
async function splitSeries(
  tx: Tx,
  ctx: ServiceContext,
  series: EventRow,
  occurrence: EventRow,
  input: EventInput,
): Promise<number> {
  const from = occurrenceOf(occurrence).original;
  const zone = eventZone(series.timezone) ?? UTC_ZONE;
  // A new series starts where its rules do: at an RDATE of its own, a rule would count from the
  // wrong day (every Thursday from an added Thursday, where it was every Tuesday).
  const rules = { ...parseRecurrence(series.recurrence, zone, series.allDay), rdates: [] };
  if (from.getTime() !== series.startLocal.getTime() && !givesStart(rules, series.startLocal, from)) {
    throw new InvalidInput({
      scope: 'This occurrence was added by an RDATE: change it alone (scope=this), or the whole series (scope=all).',
    });
  }
  const { before, after } = splitLines(series.recurrence, zone, series.startLocal, series.allDay, from);
  const copy = await copySeries(tx, series, from, after);
  await tx.$executeRaw`
    UPDATE events SET parent_id = ${copy.id}::int WHERE parent_id = ${series.id}::int AND original_start_local >= ${formatWallClock(from)}::timestamp`;
  await tx.event.update({ where: { id: series.id }, data: { recurrence: before, modifiedAt: new Date() } });
  await syncSeries(tx, ctx, series.id, { rebuild: true, links: false });
  // The change is for this occurrence too, even one changed on its own before.
  await tx.event.update({ where: { id: occurrence.id }, data: { isException: false } });
  await writeEventAndOccurrences(tx, ctx, copy, input);
  // The occurrences moved over take the new series' links, even when the input named none.
  await syncSeries(tx, ctx, copy.id, { rebuild: false, links: true });
  return copy.id;
}

/** A copy of the series starting at `from`, with its links and these lines; no occurrences yet. */
async function copySeries(tx: Tx, series: EventRow, from: Date, lines: string[]): Promise<EventRow> {
  const zone = eventZone(series.timezone) ?? UTC_ZONE;
  // As its occurrences are (services/series.ts occurrenceTimes): the exact length, whole days all-day.
  const start = fromWallClock(from, zone);
  const end = series.allDay
    ? fromWallClock(new Date(from.getTime() + series.endLocal.getTime() - series.startLocal.getTime()), zone)
    : start.plus(exactLength(series, zone));
  const when = eventTimes(start, end, zone, series.allDay);
  if ('field' in when) throw new InvalidInput({ [when.field]: when.message });
  const { id: _id, slug, parentId: _p, originalStartLocal: _o, isException: _e, ...fields } = series;
  const copy = await tx.event.create({
    data: {
      ...fields,
      cost: fields.cost ?? PrismaNS.DbNull,
      ...when,
      recurrence: lines,
      slug: await freeSlug(undefined, slug, 'event', (base) => takenSlugs(tx, base, undefined)),
      modifiedAt: new Date(),
    },
  });
  for (const table of ['event_venues', 'event_organizers', 'event_terms'] as const) {
    const columns = PrismaNS.raw(
      table === 'event_venues'
        ? 'venue_id, position'
        : table === 'event_organizers'
          ? 'organizer_id, position'
          : 'term_id',
    );
    await tx.$executeRaw`
      INSERT INTO ${PrismaNS.raw(table)} (event_id, ${columns})
      SELECT ${copy.id}::int, ${columns} FROM ${PrismaNS.raw(table)} WHERE event_id = ${series.id}::int`;
  }
  return copy;
}

/** The event as stored, read after the write's transaction has committed. */
async function readBack(db: Prisma | Tx, id: number): Promise<EventRecord> {
  const row = await findEvent(db, { id });
  if (!row) throw new NotFound('event', id); // deleted by another request in between
  return row;
}

/**
 * To the trash, or for good with `force`; answers the event as it is after the trash, or as it was.
 * A series goes with all its occurrences. An occurrence goes alone (`this`, its default), and its
 * start becomes an EXDATE of the series, so that it does not come back; `following` ends the series
 * before it and takes the later occurrences too; `all` deletes the series.
 */
export async function deleteEvent(ctx: ServiceContext, key: Key, force: boolean, scope?: Scope): Promise<EventRecord> {
  const before = await inTransaction(ctx, async (tx) => {
    const locked = await lockTarget(tx, ctx, key);
    const { kind, chosen, series } = await resolveScope(tx, ctx, locked, scope);
    // Read under the lock, so that the answer to a delete for good is the event as it was deleted.
    const current = await readBack(tx, locked.id);
    if (series && chosen === 'all') {
      const whole = await readBack(tx, series.id);
      await removeSeries(ctx, tx, whole, force);
      return whole;
    }
    if (kind === 'series') {
      await removeSeries(ctx, tx, current, force);
      return current;
    }
    await trashOrDelete(ctx, 'event', current, force, {
      trash: () =>
        tx.event.update({
          where: { id: current.id },
          data: { status: 'trash', modifiedAt: new Date(), isException: kind === 'occurrence' },
        }),
      remove: () => tx.event.delete({ where: { id: current.id } }),
    });
    if (kind === 'occurrence') await dropOccurrences(tx, ctx, locked, chosen === 'following', force);
    return current;
  });
  return force ? before : readBack(ctx.db, before.id);
}

/** A series to the trash with all its occurrences, or for good (they go by cascade). */
async function removeSeries(ctx: ServiceContext, tx: Tx, series: EventRecord, force: boolean) {
  await trashOrDelete(ctx, 'event', series, force, {
    trash: async () => {
      const modifiedAt = new Date();
      await tx.event.update({ where: { id: series.id }, data: { status: 'trash', modifiedAt } });
      await tx.event.updateMany({ where: { parentId: series.id }, data: { status: 'trash', modifiedAt } });
    },
    remove: () => tx.event.delete({ where: { id: series.id } }).then(() => undefined),
  });
}

/**
 * An occurrence taken out of the trash: its start is no longer an EXDATE of the series, which would
 * leave it out of the series' iCalendar rule and bring it back no more on a re-expansion.
 */
async function restoreOccurrence(tx: Tx, occurrence: EventRow) {
  const { series: seriesId, original } = occurrenceOf(occurrence);
  const series = await readRow(tx, seriesId);
  const zone = eventZone(series.timezone) ?? UTC_ZONE;
  const recurrence = parseRecurrence(series.recurrence, zone, series.allDay);
  if (!recurrence.exdates.delete(original.getTime())) return;
  const lines = series.recurrence.filter((line) => !/^EXDATE[;:]/i.test(line));
  const exdates = [...recurrence.exdates].map((ms) => exdateLine(new Date(ms), zone, series.allDay));
  const recurrenceLines = canonicalLines([...lines, ...exdates], zone, series.allDay);
  await tx.event.update({ where: { id: seriesId }, data: { recurrence: recurrenceLines, modifiedAt: new Date() } });
}

/**
 * A series taken out of the trash: the exceptions that went to the trash with it come back with it.
 * Those deleted on their own before have an EXDATE, and stay in the trash.
 */
async function restoreExceptions(tx: Tx, series: EventRow, zone: EventZone) {
  const { exdates } = parseRecurrence(series.recurrence, zone, series.allDay);
  const kept = [...exdates].map((ms) => formatWallClock(new Date(ms)));
  await tx.$executeRaw`
    UPDATE events SET status = ${series.status}, modified_at = now()
    WHERE parent_id = ${series.id}::int AND is_exception AND status = 'trash'
      AND NOT (original_start_local = ANY(${kept}::timestamp[]))`;
}

/**
 * After an occurrence was deleted: its start becomes an EXDATE of the series; with `following` the
 * series ends before it, and the later occurrences go to the trash (or for good) with it.
 */
async function dropOccurrences(tx: Tx, ctx: ServiceContext, occurrence: EventRow, following: boolean, force: boolean) {
  const { series: seriesId, original: from } = occurrenceOf(occurrence);
  const series = await readRow(tx, seriesId);
  const zone = eventZone(series.timezone) ?? UTC_ZONE;
  const recurrence = following
    ? splitLines(series.recurrence, zone, series.startLocal, series.allDay, from).before
    : canonicalLines([...series.recurrence, exdateLine(from, zone, series.allDay)], zone, series.allDay);
  if (following) {
    const later = PrismaNS.sql`parent_id = ${series.id}::int AND original_start_local > ${formatWallClock(from)}::timestamp`;
    if (force) await tx.$executeRaw`DELETE FROM events WHERE ${later}`;
    else
      await tx.$executeRaw`UPDATE events SET status = 'trash', is_exception = true, modified_at = now() WHERE ${later}`;
  }
  await tx.event.update({ where: { id: series.id }, data: { recurrence, modifiedAt: new Date() } });
  if (following) await syncSeries(tx, ctx, series.id, { rebuild: true, links: false });
}

function eventTable<Row extends PostHead>(tx: Tx, read: PostTable<Row>['read']): PostTable<Row> {
  return { type: 'event', name: 'events', read, delegate: tx.event };
}

type EventColumns = Omit<
  PrismaNS.EventUncheckedCreateInput,
  'title' | 'slug' | 'startLocal' | 'endLocal' | 'startUtc' | 'endUtc' | 'timezone'
>;

/** The columns a write sets as sent: text, flags, cost, website and image. */
function columns(input: EventInput): EventColumns {
  const text = (value: string | undefined) => (value === undefined ? undefined : value.trim());
  // Null, though the schema has none, clears the cost as an empty one does.
  const cost = input.cost as EventInput['cost'] | null;
  const emptyCost = cost === '' || (Array.isArray(cost) && cost.length === 0);
  const website = input.website;
  return {
    description: text(input.description),
    excerpt: text(input.excerpt),
    // The cost is kept as given; `cost` and `cost_details` are derived from it when it is shown.
    cost: cost === undefined ? undefined : cost === null || emptyCost ? PrismaNS.DbNull : cost,
    website: website === undefined ? undefined : website.trim() || null,
    image: imageValue(input.image),
    showMap: input.show_map,
    showMapLink: input.show_map_link,
    hideFromListings: input.hide_from_listings,
    sticky: input.sticky,
    featured: input.featured,
  };
}

interface StoredTimes {
  timezone: string;
  allDay: boolean;
  startLocal: Date;
  endLocal: Date;
}

/**
 * Zone, all-day flag and times after a write. What is not sent keeps its value: a new zone keeps
 * the wall-clock times (the event still starts at 19:30, now in the new zone), and turning
 * `all_day` on widens the stored times to whole days.
 */
function times(input: EventInput, current: StoredTimes | undefined, siteZone: string) {
  const zoneName = input.timezone === undefined ? (current?.timezone ?? siteZone) : input.timezone.trim() || siteZone;
  const zone = eventZone(zoneName);
  if (!zone)
    throw new InvalidInput({
      timezone:
        'timezone must be an IANA time zone such as Europe/Paris, or an offset such as UTC+2, UTC-3:30 or UTC+5.5.',
    });
  const allDay = input.all_day ?? current?.allDay ?? false;
  const stored = (time: (t: StoredTimes) => Date) => {
    // A create has both (the document requires them), so only an update falls back on the stored times.
    if (!current) throw new Error('start_date and end_date are required to create an event');
    return fromWallClock(time(current), zone);
  };
  const start = input.start_date ?? stored((t) => t.startLocal);
  const end = input.end_date ?? stored((t) => t.endLocal);
  const result = eventTimes(start, end, zone, allDay);
  if ('field' in result) throw new InvalidInput({ [result.field]: result.message });
  return { ...result, timezone: zone.name, allDay };
}

/**
 * The lines to store (lib/recurrence.ts canonicalLines), checked in the event's final zone, or
 * undefined for no change. Blank lines are dropped, so `[]` (or only blanks) makes a series a
 * single event again. Lines not sent follow a change of the zone or the all-day flag: their dates
 * keep naming the same occurrences.
 */
function recurrenceFor(
  input: EventInput,
  current: { recurrence: string[]; timezone: string; allDay: boolean } | undefined,
  { timezone, allDay, startLocal }: { timezone: string; allDay: boolean; startLocal: Date },
): string[] | undefined {
  const zone = eventZone(timezone) ?? UTC_ZONE;
  if (input.recurrence !== undefined || !current) {
    const lines = input.recurrence?.map((line) => line.trim()).filter(Boolean) ?? [];
    if (!lines.length) return [];
    readRecurrence(lines, zone, allDay, startLocal); // a 400 naming the line
    return canonicalLines(lines, zone, allDay);
  }
  if (!current.recurrence.length || (current.timezone === timezone && current.allDay === allDay)) return undefined;
  const before = { zone: eventZone(current.timezone) ?? UTC_ZONE, allDay: current.allDay };
  return convertLines(current.recurrence, before, { zone, allDay, startLocal });
}

/**
 * Replaces the links a write sends; links it does not send stay as they are. A new event (`fresh`)
 * has no links to remove, and its categories and tags go in with one statement.
 */
async function writeLinks(tx: Tx, ctx: ServiceContext, eventId: number, input: EventInput, fresh = false) {
  const linked = async (kind: VenueOrOrganizerKind, value: LinksWrite | undefined) =>
    value === undefined ? undefined : venueOrOrganizerIdsForWrite(tx, ctx, kind, value);
  const venues = await linked(VENUE, input.venue);
  const organizers = await linked(ORGANIZER, input.organizer);
  if (venues) {
    if (!fresh) await tx.eventVenue.deleteMany({ where: { eventId } });
    await tx.eventVenue.createMany({ data: venues.map((venueId, position) => ({ eventId, venueId, position })) });
  }
  if (organizers) {
    if (!fresh) await tx.eventOrganizer.deleteMany({ where: { eventId } });
    await tx.eventOrganizer.createMany({
      data: organizers.map((organizerId, position) => ({ eventId, organizerId, position })),
    });
  }
  const terms: number[] = [];
  for (const [taxonomy, field, value] of [
    [CATEGORY, 'categories', input.categories],
    [TAG, 'tags', input.tags],
  ] as const) {
    if (value === undefined) continue;
    const ids = await termIdsForWrite(tx, ctx, taxonomy, field, value);
    if (fresh) {
      terms.push(...ids);
      continue;
    }
    await tx.eventTerm.deleteMany({ where: { eventId, term: { taxonomy } } });
    await tx.eventTerm.createMany({ data: ids.map((termId) => ({ eventId, termId })) });
  }
  if (terms.length) await tx.eventTerm.createMany({ data: terms.map((termId) => ({ eventId, termId })) });
}

async function takenSlugs(tx: Tx, base: string, self: number | undefined): Promise<string[]> {
  const rows = await tx.event.findMany({
    where: { slug: startingWith(base), ...(self ? { id: { not: self } } : {}) },
    select: { slug: true },
  });
  return rows.map((r) => r.slug);
}

/**
 * The UIDs these events, and the series of those that are occurrences, were imported with from
 * iCalendar, by ID: an exported event keeps its UID, so that importing the export again, or a
 * calendar app that had the original, finds the same event (serializers/ical.ts).
 */
export async function importedUids(ctx: ServiceContext, rows: EventRecord[]): Promise<Map<number, string>> {
  const ids = [...new Set(rows.flatMap((r) => (r.parentId === null ? [r.id] : [r.id, r.parentId])))];
  const uids = new Map<number, string>();
  // A feed's thousand events a hundred at a time: on the embedded database a statement holds the
  // event loop while it runs (services/event-list.ts reads the feed so too).
  for (let from = 0; from < ids.length; from += UIDS_READ) {
    const found = await ctx.db.$queryRaw<{ id: number; uid: string }[]>`
      SELECT local_id AS id, external_id AS uid FROM imported_items
      WHERE local_id = ANY(${ids.slice(from, from + UIDS_READ)}::int[]) AND kind = 'event' AND source = ${ICS_SOURCE}`;
    for (const row of found) uids.set(row.id, row.uid);
  }
  return uids;
}

const UIDS_READ = 100;
