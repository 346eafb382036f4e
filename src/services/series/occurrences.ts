// Recurring events (docs/decisions.md, "Recurring events"): a series is an event row with RFC 5545
// lines in `recurrence`; each occurrence up to the horizon is an event row whose parent is the series,
// a copy of its fields at its own start, so that lists, filters, iCalendar and permissions treat it as
// any event. An occurrence changed on its own is an exception: what the series does later leaves it be.
//
// Every write here runs in the caller's transaction with the series row locked (FOR UPDATE) first:
// writes to a series and to its occurrences take that lock before any occurrence's, so two writers of
// one series queue on it instead of interleaving, and cannot deadlock on the occurrences. The unique
// (parent_id, original_start_local) index keeps an occurrence from being added twice all the same.
//
// This file holds the occurrence rows: made at a series' starts, moved with it, dropped by a rebuild,
// added alone (occurrenceAt), and those shown as overrides; window.ts says which starts are wanted.
import { Prisma } from '../../../generated/prisma/client.js';
import { canRead } from '../../auth/permissions.js';
import { DEFAULT_QUOTAS } from '../../config/limits.js';
import type { Tx } from '../../db/client.js';
import { statementsOf } from '../../db/driver.js';
import { QuotaExceeded } from '../../domain/errors.js';
import type { PostStatus } from '../../domain/posts.js';
import type { EventRecord } from '../../domain/records.js';
import { type EventZone, eventTimes, eventZone, fromWallClock, UTC_ZONE } from '../../lib/event-times.js';
import { firstCharacters, trimEndChar } from '../../lib/text.js';
import {
  copyLinks,
  dropOccurrenceRows,
  insertOccurrenceRows,
  lockEventRow,
  setOccurrenceTimes,
  slugsTaken,
} from '../../queries/event-storage.js';
import { selectEvents } from '../../queries/event-rows.js';
import { expand, givesStart } from '../../recurrence/expand.js';
import { parseRecurrence, type Recurrence } from '../../recurrence/parse.js';
import type { ServiceContext } from '../context.js';
import { occurrenceRoom } from '../quotas.js';

/** Occurrences added by one statement. */
const INSERT_ROWS = 200;

/** The series row, as expanding it needs it. */
export interface SeriesRow {
  id: number;
  slug: string;
  status: PostStatus;
  authorId: number | null;
  recurrence: string[];
  startLocal: Date;
  endLocal: Date;
  timezone: string;
  allDay: boolean;
  expandedUntilLocal: Date | null;
}

export const SERIES_COLUMNS = {
  id: true,
  slug: true,
  status: true,
  authorId: true,
  recurrence: true,
  startLocal: true,
  endLocal: true,
  timezone: true,
  allDay: true,
  expandedUntilLocal: true,
} as const;

/** Locks a series row for the rest of the transaction. */
export async function lockSeries(tx: Tx, id: number): Promise<void> {
  await lockEventRow(tx, id);
}

/** An occurrence's series and original start. */
export function occurrenceOf(row: { parentId: number | null; originalStartLocal: Date | null }) {
  if (row.parentId === null || row.originalStartLocal === null) throw new Error('not an occurrence of a series');
  return { series: row.parentId, original: row.originalStartLocal };
}

/**
 * Who writes a series, as far as its expansion cares: the configured limits, and the quotas of its
 * author (services/quotas.ts), which a write is refused for and housekeeping stops at (no caller).
 */
export type SeriesWriter = Pick<ServiceContext, 'recurrence' | 'quotas'> & { caller?: ServiceContext['caller'] };

/**
 * Adds occurrences at these starts, as many as the author's quota leaves room for (a write beyond it
 * is refused; housekeeping adds what there is room for); answers the starts added.
 */
export async function addOccurrences(
  tx: Tx,
  writer: SeriesWriter,
  series: SeriesRow,
  zone: EventZone,
  starts: Date[],
): Promise<Date[]> {
  const room = starts.length ? await occurrenceRoom(tx, writer, series.authorId) : 0;
  if (starts.length > room && writer.caller !== undefined) {
    throw new QuotaExceeded('occurrences', (writer.quotas ?? DEFAULT_QUOTAS).occurrences);
  }
  const kept = starts.slice(0, room);
  // A few hundred rows per statement: on the embedded database one statement holds the event loop.
  for (let from = 0; from < kept.length; from += INSERT_ROWS) {
    const ids = await insertOccurrences(tx, series, zone, kept.slice(from, from + INSERT_ROWS));
    await copyLinks(tx, series.id, ids, false);
  }
  return kept;
}

/**
 * A rebuild: occurrences the rule no longer gives go; those it gives keep their IDs and take the
 * series' new times. Rows past where this expansion stopped (the limit of one write), and rows
 * before the window from when it started earlier, stay when the rule still gives their start.
 */
export async function dropAndMove(
  tx: Tx,
  series: SeriesRow,
  zone: EventZone,
  recurrence: Recurrence,
  existing: { id: number; original: Date; exception: boolean }[],
  expansion: { wanted: Date[]; through: Date | undefined; past: Date | undefined },
): Promise<void> {
  const { through, past } = expansion;
  const own = existing.filter((o) => !o.exception);
  const startsIn = (after: Date, until: Date, limit: number) =>
    expand(recurrence, series.startLocal, { after, until, limit }).starts.map((d) => d.getTime());
  const beyond = through ? own.filter((o) => o.original > through) : [];
  const later =
    through && beyond.length
      ? startsIn(through, new Date(Math.max(...beyond.map((o) => o.original.getTime()))), beyond.length)
      : [];
  const earlier = past ? own.filter((o) => o.original <= past) : [];
  const before =
    past && earlier.length
      ? startsIn(new Date(Math.min(...earlier.map((o) => o.original.getTime())) - 1), past, Infinity)
      : [];
  const wanted = expansion.wanted.map((d) => d.getTime());
  const still = new Set([...wanted, ...later, ...before]);
  await dropOccurrenceRows(
    tx,
    own.filter((o) => !still.has(o.original.getTime())).map((o) => o.id),
  );
  const moved = new Set([...wanted, ...before]);
  await moveOccurrences(
    tx,
    series,
    zone,
    own.filter((o) => moved.has(o.original.getTime())),
  );
}

/**
 * The occurrence of the series that starts at this wall-clock time, added when its rule gives that
 * start but no row holds it (before the series' window, or past its horizon): an override in an
 * imported calendar may change an occurrence of 2012 of a series that began then. Undefined when the
 * rule does not give the start. The series row is locked first, as every write of its occurrences
 * does; the unique (parent_id, original_start_local) index keeps the row single all the same.
 */
export async function occurrenceAt(
  tx: Tx,
  writer: SeriesWriter,
  seriesId: number,
  original: Date,
): Promise<number | undefined> {
  await lockSeries(tx, seriesId);
  const existing = await tx.event.findFirst({
    where: { parentId: seriesId, originalStartLocal: original },
    select: { id: true },
  });
  if (existing) return existing.id;
  const series = await tx.event.findUnique({ where: { id: seriesId }, select: SERIES_COLUMNS });
  if (!series?.recurrence.length) return undefined;
  const zone = eventZone(series.timezone) ?? UTC_ZONE;
  const recurrence = parseRecurrence(series.recurrence, zone, series.allDay);
  if (!givesStart(recurrence, series.startLocal, original)) return undefined;
  if ((await occurrenceRoom(tx, writer, series.authorId)) < 1 && writer.caller !== undefined) {
    throw new QuotaExceeded('occurrences', (writer.quotas ?? DEFAULT_QUOTAS).occurrences);
  }
  const [id] = await insertOccurrences(tx, series, zone, [original]);
  await copyLinks(tx, seriesId, [id], false);
  return id;
}

/**
 * Times of an occurrence starting at a wall-clock time: the series' exact length, as RFC 5545 gives
 * every occurrence of a component with a DTEND, so that a 24-hour event stays 24 hours across a
 * change of offset (Lord Howe's half hour too) and calendar apps reading the rule agree; an all-day
 * series' occurrences cover as many days as it does.
 */
function occurrenceTimes(series: SeriesRow, zone: EventZone, start: Date) {
  const from = fromWallClock(start, zone);
  const wallEnd = new Date(start.getTime() + (series.endLocal.getTime() - series.startLocal.getTime()));
  const times = series.allDay
    ? eventTimes(from, fromWallClock(wallEnd, zone), zone, true)
    : eventTimes(from, from.plus(exactLength(series, zone)), zone, false);
  if ('field' in times) throw new Error(`occurrence times: ${times.message}`);
  return times;
}

/** How long the series' first occurrence lasts, in milliseconds, its zone's offsets counted. */
export const exactLength = (series: { startLocal: Date; endLocal: Date }, zone: EventZone) =>
  fromWallClock(series.endLocal, zone).toMillis() - fromWallClock(series.startLocal, zone).toMillis();

/** Occurrences kept by a rebuild take the series' current length, zone and all-day flag. */
async function moveOccurrences(
  tx: Tx,
  series: SeriesRow,
  zone: EventZone,
  kept: { id: number; original: Date }[],
): Promise<void> {
  if (!kept.length) return;
  const times = kept.map((o) => occurrenceTimes(series, zone, o.original));
  await setOccurrenceTimes(tx, series.id, {
    id: kept.map((o) => o.id),
    startLocal: times.map((t) => t.startLocal),
    endLocal: times.map((t) => t.endLocal),
    startUtc: times.map((t) => t.startUtc),
    endUtc: times.map((t) => t.endUtc),
  });
}

/** New occurrences at these wall-clock starts, copies of the series; their IDs. */
async function insertOccurrences(tx: Tx, series: SeriesRow, zone: EventZone, starts: Date[]): Promise<number[]> {
  if (!starts.length) return [];
  const times = starts.map((start) => occurrenceTimes(series, zone, start));
  const slugs = await occurrenceSlugs(tx, series.slug, starts);
  return insertOccurrenceRows(statementsOf(tx), series.id, {
    original: starts,
    slug: slugs,
    startLocal: times.map((t) => t.startLocal),
    endLocal: times.map((t) => t.endLocal),
    startUtc: times.map((t) => t.startUtc),
    endUtc: times.map((t) => t.endUtc),
  });
}

/**
 * Slugs for new occurrences: the series' slug and the date (`yoga-2026-12-01`), with the time when
 * that is taken (several a day), then a number. A writer racing for the same slug fails the unique
 * index and runs again (services/retry.ts).
 */
async function occurrenceSlugs(tx: Tx, base: string, starts: Date[]): Promise<string[]> {
  const stem = trimEndChar(firstCharacters(base, 170), '-');
  const candidates = starts.map((start) => {
    const [day, time] = start.toISOString().slice(0, 16).split('T');
    const dated = `${stem}-${day}`;
    const timed = `${dated}-${time.replace(':', '')}`;
    return [dated, timed, ...Array.from({ length: 8 }, (_, i) => `${timed}-${i + 2}`)];
  });
  const taken = await slugsTaken(tx, candidates.flat());
  return candidates.map((options) => {
    const free = options.find((slug) => !taken.has(slug)) ?? `${options[1]}-${Math.random().toString(36).slice(2, 8)}`;
    taken.add(free);
    return free;
  });
}

/**
 * The occurrences of a series changed on their own that a calendar shows as overrides of its rule:
 * those the caller may read, not in the trash (a deleted occurrence is an EXDATE of the series), and
 * still at a start the rule gives (else they are events of their own).
 */
export async function seriesOverrides(ctx: ServiceContext, series: EventRecord): Promise<EventRecord[]> {
  const rows = await selectEvents(ctx.db, {
    where: Prisma.sql`e.parent_id = ${series.id}::int AND e.is_exception AND e.status <> 'trash'`,
    orderBy: Prisma.sql`ORDER BY e.original_start_local`,
  });
  const zone = eventZone(series.timezone) ?? UTC_ZONE;
  const rule = parseRecurrence(series.recurrence, zone, series.allDay);
  return rows.filter(
    (row) => canRead(ctx.caller, row) && givesStart(rule, series.startLocal, occurrenceOf(row).original),
  );
}
