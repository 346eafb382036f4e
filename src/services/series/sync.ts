// A series' occurrences kept in line with a write of the series (docs/decisions.md, "Recurring
// events"): its fields and links copied, its occurrences made again when its rule or times changed,
// moved with it when only its start moved, and let go when it stops being a series. Runs in the
// event write's transaction (services/events/write.ts), with the series locked (events/scope.ts
// lockTarget).
import type { Event } from '../../../generated/prisma/client.js';
import type { Tx } from '../../db/client.js';
import { statementsOf } from '../../db/driver.js';
import { type EventZone, eventZone, UTC_ZONE } from '../../lib/event-times.js';
import {
  copyLinks,
  copySeriesFields,
  detachOccurrences,
  followingOccurrences,
  restoreTrashedExceptions,
  shiftOriginalStarts,
  announcedChanged,
  announcedToExceptions,
} from '../../queries/event-storage.js';
import { parseRecurrence } from '../../recurrence/parse.js';
import { shiftLines, shiftOf } from '../../recurrence/rewrite.js';
import type { ServiceContext } from '../context.js';
import { assertSeriesRoom } from '../quotas.js';
import type { SeriesWriter } from './occurrences.js';
import { expandSeries, reachesFurther } from './window.js';

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
 * After the write of an event's own row (`current` before, `after` after): a series that stops
 * being one lets its occurrences go; a series, new or changed, brings its occurrences in line.
 * `sent` says whether the write sent lines, and links (venues, organizers or terms).
 */
export async function followSeriesWrite(
  tx: Tx,
  ctx: ServiceContext,
  current: Event,
  after: Event,
  sent: { lines: boolean; links: boolean },
): Promise<void> {
  if (current.recurrence.length && !after.recurrence.length) return endSeries(tx, current.id);
  if (!after.recurrence.length) return;
  // A new series of this author: a single event that becomes one, or one out of the trash.
  if (!current.recurrence.length || (current.status === 'trash' && after.status !== 'trash')) {
    await assertSeriesRoom(tx, ctx, after.authorId, current.id);
  }
  const zone = eventZone(after.timezone) ?? UTC_ZONE;
  await moveWithSeries(tx, current, after, sent.lines, zone);
  if (announcedChanged(current, after)) await announcedToExceptions(tx, after, current);
  if (current.status === 'trash' && after.status !== 'trash') await restoreExceptions(tx, after, zone);
  await syncSeries(tx, ctx, current.id, { rebuild: rulesOrTimesChanged(current, after), links: sent.links });
  if (reachesFurther(current.status, after.status)) await expandSeries(tx, current.id, 'extend', ctx, new Date());
}

/**
 * A series moved with its rule unchanged (lines not sent, or sent again as they were): its
 * occurrences' original starts, exceptions and EXDATEs move with it, so IDs and exceptions are
 * kept. A change of the all-day flag is no move: recurrenceFor (lines.ts) converted the dates already.
 */
async function moveWithSeries(tx: Tx, current: Event, after: Event, linesSent: boolean, zone: EventZone) {
  const untouched =
    current.recurrence.length > 0 &&
    current.allDay === after.allDay &&
    (!linesSent || after.recurrence.join('\n') === current.recurrence.join('\n'));
  if (!untouched) return;
  const delta = shiftOf(parseRecurrence(after.recurrence, zone, after.allDay), current.startLocal, after.startLocal);
  if (!delta) return;
  const recurrence = await shiftSeries(tx, after, zone, current.startLocal, delta);
  await tx.event.update({ where: { id: current.id }, data: { recurrence } });
  after.recurrence = recurrence;
}

/** Whether the series' occurrences must be made again: its rule, times, zone or all-day flag changed. */
function rulesOrTimesChanged(current: Event, after: Event): boolean {
  const moved = (['startLocal', 'endLocal'] as const).some((k) => after[k].getTime() !== current[k].getTime());
  return (
    moved ||
    after.timezone !== current.timezone ||
    after.allDay !== current.allDay ||
    after.recurrence.join('\n') !== current.recurrence.join('\n')
  );
}

/**
 * A series taken out of the trash: the exceptions that went to the trash with it come back with it.
 * Those deleted on their own before have an EXDATE, and stay in the trash.
 */
async function restoreExceptions(tx: Tx, series: Event, zone: EventZone) {
  const { exdates } = parseRecurrence(series.recurrence, zone, series.allDay);
  await restoreTrashedExceptions(
    tx,
    series,
    [...exdates].map((ms) => new Date(ms)),
  );
}

/**
 * The series' first start moved by `deltaMs` (its rule unchanged): every occurrence's original start,
 * and the EXDATE and RDATE lines, move with it, so that an occurrence keeps its ID, an exception stays
 * the exception of its day, and a deleted occurrence stays deleted. The lines are answered.
 */
async function shiftSeries(
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
async function endSeries(tx: Tx, seriesId: number): Promise<void> {
  await detachOccurrences(tx, seriesId);
  await tx.event.update({ where: { id: seriesId }, data: { expandedUntilLocal: null } });
}
