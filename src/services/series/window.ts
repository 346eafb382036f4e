// The window of occurrences a series keeps ahead (docs/decisions.md, "Recurring events"): from some
// days of the past to the horizon (two years by default, less for a series not published), at most so
// many occurrences an expansion, and how far the last one took it (`expanded_until_local`), which
// housekeeping extends from (extendSeries). The rows themselves are occurrences.ts's. An expansion
// runs in the caller's transaction with the series row locked first (occurrences.ts); housekeeping
// runs one transaction per series.
import { DEFAULT_RECURRENCE, DEFAULT_QUOTAS, type RecurrenceLimits } from '../../config/limits.js';
import type { Tx } from '../../db/client.js';
import type { PostStatus } from '../../domain/posts.js';
import { type EventZone, eventZone, UTC_ZONE } from '../../lib/event-times.js';
import { nextSeriesShortOf, occurrencesOf } from '../../queries/event-storage.js';
import { wallClockAt } from '../../recurrence/dates.js';
import { expand, firstStart, lastStart } from '../../recurrence/expand.js';
import { parseRecurrence, type Recurrence } from '../../recurrence/parse.js';
import { addOccurrences, dropAndMove, SERIES_COLUMNS, type SeriesRow, type SeriesWriter } from './occurrences.js';

/** `expanded_until_local` of a series whose rule has ended: no occurrence lies beyond it. */
const ENDED = new Date(Date.UTC(9999, 11, 31));

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
