// Recurring events (docs/decisions.md, "Recurring events"): a series is an event row with RFC 5545
// lines in `recurrence`; each occurrence up to the horizon is an event row whose parent is the series,
// a copy of its fields at its own start, so that lists, filters, iCalendar and permissions treat it as
// any event. An occurrence changed on its own is an exception: what the series does later leaves it be.
//
// Every function here runs in the caller's transaction with the series row locked (FOR UPDATE) first:
// writes to a series and to its occurrences take that lock before any occurrence's, so two writers of
// one series queue on it instead of interleaving, and cannot deadlock on the occurrences. The unique
// (parent_id, original_start_local) index keeps an occurrence from being added twice all the same.
import { DEFAULT_QUOTAS, DEFAULT_RECURRENCE, type RecurrenceLimits } from '../config/limits.js';
import type { Tx } from '../db/client.js';
import { statementsOf } from '../db/driver.js';
import {
  copyLinks,
  copySeriesFields,
  deleteEventRows,
  detachOccurrences,
  followingOccurrences,
  insertOccurrenceRows,
  lockEventRow,
  nextSeriesShortOf,
  occurrencesOf,
  setOccurrenceTimes,
  shiftOriginalStarts,
  slugsTaken,
} from '../queries/event-storage.js';
import { firstCharacters, trimEndChar } from '../lib/text.js';
import { InvalidInput, QuotaExceeded } from '../domain/errors.js';
import type { PostStatus } from '../domain/posts.js';
import { type EventZone, eventTimes, eventZone, fromWallClock, UTC_ZONE } from '../lib/event-times.js';
import {
  expand,
  firstStart,
  givesStart,
  lastStart,
  parseRecurrence,
  reaches,
  RecurrenceError,
  type Recurrence,
  seriesTooCostly,
  stepTooLong,
  walkProblem,
  shiftLines,
  wallClockAt,
} from '../lib/recurrence.js';
import type { ServiceContext } from './context.js';
import { occurrenceRoom } from './quotas.js';

/** Occurrences added by one statement. */
const INSERT_ROWS = 200;

/** `expanded_until_local` of a series whose rule has ended: no occurrence lies beyond it. */
const ENDED = new Date(Date.UTC(9999, 11, 31));

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

const SERIES_COLUMNS = {
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

/**
 * The lines of a write, read for an event in `zone` starting at `start` (wall clock): 400 naming
 * `recurrence` when they are wrong, when a rule's steps from that start never land on what its
 * BY parts name (lib/recurrence.ts, reaches), or when their walk would be too long to expand
 * (seriesTooCostly: starts too rare, COUNTs too long a walk for them, too many rules).
 */
export function readRecurrence(lines: readonly string[], zone: EventZone, allDay: boolean, start: Date): Recurrence {
  try {
    const recurrence = parseRecurrence(lines, zone, allDay);
    // A step too long is refused before reaches walks a cycle of such steps.
    for (const { text, parts } of recurrence.rules) {
      const why = stepTooLong(parts);
      if (why) throw new RecurrenceError(`${text}: ${why}`);
    }
    const stray = recurrence.rules.find(({ parts }) => !reaches(parts, start));
    if (stray) {
      throw new RecurrenceError(
        `${stray.text} never gives a start after the event's start: its INTERVAL steps from there never land on the hours or days its BY parts name.`,
      );
    }
    const why = seriesTooCostly(recurrence.rules, start);
    if (why) throw new RecurrenceError(why);
    // A rule RFC 5545 forbids, or that ical.js (CalDAV's expander) cannot walk at all, is refused; a
    // valid one it walks otherwise (BYWEEKNO) is taken, and a CalDAV expansion of it refused alone.
    for (const { text } of recurrence.rules) {
      const problem = walkProblem(text.slice('RRULE:'.length), start, false);
      if (problem) throw new RecurrenceError(`${text}: ${problem}`);
    }
    return recurrence;
  } catch (err) {
    if (err instanceof RecurrenceError) throw new InvalidInput({ recurrence: err.message });
    throw err;
  }
}

/** Locks a series row for the rest of the transaction. */
export async function lockSeries(tx: Tx, id: number): Promise<void> {
  await lockEventRow(tx, id);
}

/**
 * Makes the occurrences match the series after a write of it: its fields other than times go onto
 * every occurrence that is not an exception, with `links` its venues, organizers and terms too; with
 * `rebuild` (its rule, times, zone or all-day flag changed) occurrences the rule no longer gives go,
 * missing ones come, and the others take the new times.
 */
export async function syncSeries(
  tx: Tx,
  writer: SeriesWriter,
  seriesId: number,
  { rebuild, links }: { rebuild: boolean; links: boolean },
): Promise<void> {
  await copySeriesFields(statementsOf(tx), seriesId);
  if (links) {
    await copyLinks(tx, seriesId, await followingOccurrences(tx, seriesId), true);
  }
  if (rebuild) await expandSeries(tx, seriesId, 'rebuild', writer, new Date());
}

/**
 * Who writes a series, as far as its expansion cares: the configured limits, and the quotas of its
 * author (services/quotas.ts), which a write is refused for and housekeeping stops at (no caller).
 */
export type SeriesWriter = Pick<ServiceContext, 'recurrence' | 'quotas'> & { caller?: ServiceContext['caller'] };

/** Unpublished series get only a glimpse of their dates (config/limits.ts RecurrenceLimits). */
const unpublished = (status: PostStatus) => status === 'draft' || status === 'pending' || status === 'trash';

/**
 * The limits of a series of this status: the horizon in days, the days of the past it shows, and the
 * occurrences one expansion adds.
 */
function limitsOf(status: PostStatus, limits: RecurrenceLimits) {
  return unpublished(status)
    ? {
        days: limits.draftHorizonDays,
        past: limits.pastDays,
        occurrences: Math.min(limits.draftMaxOccurrences, limits.maxOccurrences),
      }
    : { days: limits.horizonDays, past: limits.pastDays, occurrences: limits.maxOccurrences };
}

/** Whether a status change lets a series reach further (published again): the write extends it then. */
export const reachesFurther = (before: PostStatus, after: PostStatus) => unpublished(before) && !unpublished(after);

/**
 * Adds the occurrences of the series from the start of its window to the horizon. The window starts
 * `pastDays` before now (or before the last start of a series that ended), or at the series' first
 * start when that is later: a daily series that began in 2012 has this week's occurrences, and the
 * limit of one expansion counts from where occurrences are wanted, not from 2012. `rebuild` expands
 * the whole window (and removes what the rule no longer gives, earlier rows too); `extend` goes on
 * from where the last expansion stopped, or from the window when that stopped before it. Either adds
 * at most `limits.maxOccurrences`; housekeeping extends the rest later.
 */
export async function expandSeries(
  tx: Tx,
  seriesId: number,
  mode: 'rebuild' | 'extend',
  writer: SeriesWriter,
  now: Date,
): Promise<void> {
  const series = await tx.event.findUnique({ where: { id: seriesId }, select: SERIES_COLUMNS });
  if (!series?.recurrence.length) return;
  const zone = eventZone(series.timezone) ?? UTC_ZONE;
  const limits = limitsOf(series.status, writer.recurrence ?? DEFAULT_RECURRENCE);
  const horizon = horizonOf(series, zone, limits.days, now);
  if (mode === 'extend' && series.expandedUntilLocal && series.expandedUntilLocal >= horizon) return;
  const recurrence = parseRecurrence(series.recurrence, zone, series.allDay);
  const { needed, past } = windowOf(recurrence, series.startLocal, wallClockAt(now, zone), limits.past);
  const done = mode === 'extend' ? series.expandedUntilLocal : null;
  const { behind, ahead } = startsWanted(recurrence, series.startLocal, {
    needed,
    past,
    done,
    horizon,
    limit: limits.occurrences,
  });
  const existing = await occurrencesOf(tx, seriesId);
  if (mode === 'rebuild') {
    await dropAndMove(tx, series, zone, recurrence, existing, {
      wanted: [...behind, ...ahead.starts],
      through: ahead.through,
      past,
    });
  }
  const have = new Set(existing.map((o) => o.original.getTime()));
  const added = [...behind.slice(-limits.occurrences), ...ahead.starts].filter((d) => !have.has(d.getTime()));
  const kept = await addOccurrences(tx, writer, series, zone, added);
  // Stopped short by the quota: housekeeping goes on from there once there is room.
  const reached = kept.length < added.length ? kept.at(-1) : expandedThrough(ahead);
  if (reached) await tx.event.update({ where: { id: seriesId }, data: { expandedUntilLocal: reached } });
}

/** How far an expansion took the series: to its end, or to where it stopped. */
const expandedThrough = (ahead: { ended: boolean; through: Date | undefined }) => (ahead.ended ? ENDED : ahead.through);

/**
 * Adds occurrences at these starts, as many as the author's quota leaves room for (a write beyond it
 * is refused; housekeeping adds what there is room for); answers the starts added.
 */
async function addOccurrences(
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
 * Two years (by default) ahead of now, or of the series' start when that is later: a series in a
 * later year has its first occurrences all the same.
 */
function horizonOf(series: SeriesRow, zone: EventZone, days: number, now: Date): Date {
  const reach = days * 86_400_000;
  return new Date(
    Math.max(wallClockAt(new Date(now.getTime() + reach), zone).getTime(), series.startLocal.getTime() + reach),
  );
}

/**
 * The starts an expansion wants: `behind`, the window's past before `needed`, all of them, so that
 * a rebuild keeps the rows the rule still gives; `ahead`, from `needed` (or where the last
 * expansion stopped) to the horizon, at most `limit` (the limit counts from where occurrences are
 * needed).
 */
function startsWanted(
  recurrence: Recurrence,
  dtstart: Date,
  window: { needed: Date; past: Date | undefined; done: Date | null; horizon: Date; limit: number },
) {
  const { needed, past, done } = window;
  const caughtUp = done && done >= needed;
  const behind = caughtUp
    ? []
    : expand(recurrence, dtstart, { after: latest(past, done), until: new Date(needed.getTime() - 1), limit: Infinity })
        .starts;
  const ahead = expand(recurrence, dtstart, {
    after: latest(new Date(needed.getTime() - 1), done),
    until: window.horizon,
    limit: window.limit,
  });
  return { behind, ahead };
}

/**
 * A rebuild: occurrences the rule no longer gives go; those it gives keep their IDs and take the
 * series' new times. Rows past where this expansion stopped (the limit of one write), and rows
 * before the window from when it started earlier, stay when the rule still gives their start.
 */
async function dropAndMove(
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
  await deleteEventRows(
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
 * The series' window: `needed`, from when its occurrences are wanted in full (now, or its last start
 * when it ended earlier), and `past`, the last wall-clock time before the `pastDays` it shows of what
 * lies before that (undefined when those take in its first start).
 */
function windowOf(recurrence: Recurrence, dtstart: Date, nowLocal: Date, pastDays: number) {
  const needed = new Date(Math.min(nowLocal.getTime(), lastStart(recurrence, dtstart)?.getTime() ?? Infinity));
  const from = needed.getTime() - pastDays * 86_400_000;
  return { needed, past: from > firstStart(recurrence, dtstart).getTime() ? new Date(from - 1) : undefined };
}

/** The later of two times, either of which may be missing. */
function latest(a: Date | null | undefined, b: Date | null | undefined): Date | undefined {
  if (a && b) return a > b ? a : b;
  return a ?? b ?? undefined;
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
 * The series' first start moved by `deltaMs` (its rule unchanged): every occurrence's original start,
 * and the EXDATE and RDATE lines, move with it, so that an occurrence keeps its ID, an exception stays
 * the exception of its day, and a deleted occurrence stays deleted. The lines are answered.
 */
export async function shiftSeries(
  tx: Tx,
  series: { id: number; recurrence: string[]; allDay: boolean },
  zone: EventZone,
  start: Date,
  deltaMs: number,
): Promise<string[]> {
  await shiftOriginalStarts(tx, series.id, deltaMs);
  return shiftLines(series.recurrence, zone, series.allDay, start, deltaMs);
}

/**
 * A series that stops being one (its `recurrence` emptied) becomes a single event: its occurrences
 * go, except the exceptions, which stay as events of their own.
 */
export async function endSeries(tx: Tx, seriesId: number): Promise<void> {
  await detachOccurrences(tx, seriesId);
  await tx.event.update({ where: { id: seriesId }, data: { expandedUntilLocal: null } });
}

/**
 * Extends every series whose occurrences stop short of the horizon, each in a transaction of its
 * own; a series another writer holds is skipped (SKIP LOCKED) and extended next round.
 */
export async function extendSeries(
  db: { $transaction<T>(work: (tx: Tx) => Promise<T>): Promise<T> },
  limits: RecurrenceLimits,
  now = new Date(),
  quotas = DEFAULT_QUOTAS,
): Promise<number> {
  let extended = 0;
  // The horizon in UTC, a day early, finds every series short of it in any zone; each checks its own.
  // Unpublished series are left as their last write expanded them.
  const soon = new Date(now.getTime() + (limits.horizonDays - 1) * 86_400_000);
  for (let lastId = 0; ;) {
    const id = await db.$transaction(async (tx) => {
      const found = await nextSeriesShortOf(tx, lastId, soon, limits.horizonDays);
      if (found !== undefined) await expandSeries(tx, found, 'extend', { recurrence: limits, quotas }, now);
      return found;
    });
    if (id === undefined) return extended;
    extended++;
    lastId = id;
  }
}
