// Edits of a series that an update or delete of one of its occurrences makes (the scopes of
// services/events/scope.ts): splitting it at an occurrence (`following`), EXDATEs added or taken
// back, a series trashed or deleted whole. Each runs in the caller's transaction with the series
// locked (events/scope.ts lockTarget); the change an update sends is written by the event use case
// (events/update.ts), so that these edits never call back into the event write.
import { Prisma } from '../../../generated/prisma/client.js';
import type { Tx } from '../../db/client.js';
import { InvalidInput } from '../../domain/errors.js';
import type { EventRecord } from '../../domain/records.js';
import { eventTimes, eventZone, fromWallClock, UTC_ZONE } from '../../lib/event-times.js';
import { givesStart } from '../../recurrence/expand.js';
import { parseRecurrence } from '../../recurrence/parse.js';
import { canonicalLines, exdateLine, splitLines } from '../../recurrence/rewrite.js';
import { copyLinks, dropOccurrencesAfter, moveOccurrencesFrom } from '../../queries/event-storage.js';
import type { ServiceContext } from '../context.js';
import { trashOrDelete } from '../post-writes.js';
import { freeSlug } from '../posts.js';
import { type EventRow, readRow } from '../events/scope.js';
import { takenSlugs } from '../events/links-and-slugs.js';
import { exactLength, occurrenceOf } from './occurrences.js';
import { syncSeries } from './sync.js';

/**
 * `scope=following`: the series ends before the occurrence, and a new series (a copy of the old, which
 * the caller then writes the change to) takes over from it, with this and every later occurrence,
 * exceptions included. Answers the new series.
 */
export async function splitSeries(
  tx: Tx,
  ctx: ServiceContext,
  series: EventRow,
  occurrence: EventRow,
): Promise<EventRow> {
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
  await moveOccurrencesFrom(tx, series.id, copy.id, from);
  await tx.event.update({ where: { id: series.id }, data: { recurrence: before, modifiedAt: new Date() } });
  await syncSeries(tx, ctx, series.id, { rebuild: true, links: false });
  // The change is for this occurrence too, even one changed on its own before.
  await tx.event.update({ where: { id: occurrence.id }, data: { isException: false } });
  return copy;
}

/** A copy of the series starting at `from`, with its links and these lines; no occurrences yet. */
async function copySeries(tx: Tx, series: EventRow, from: Date, lines: string[]): Promise<EventRow> {
  const zone = eventZone(series.timezone) ?? UTC_ZONE;
  // As its occurrences are (occurrences.ts occurrenceTimes): the exact length, whole days all-day.
  const start = fromWallClock(from, zone);
  const end = series.allDay
    ? fromWallClock(new Date(from.getTime() + series.endLocal.getTime() - series.startLocal.getTime()), zone)
    : start.plus(exactLength(series, zone));
  const when = eventTimes(start, end, zone, series.allDay);
  if ('field' in when) throw new InvalidInput({ [when.field]: when.message });
  // The image's meta is the trigger's to copy (migration media_library).
  const { id: _id, slug, parentId: _p, originalStartLocal: _o, isException: _e, imageMeta: _m, ...fields } = series;
  const copy = await tx.event.create({
    data: {
      ...fields,
      cost: fields.cost ?? Prisma.DbNull,
      ...when,
      recurrence: lines,
      slug: await freeSlug(undefined, slug, 'event', (base) => takenSlugs(tx, base, undefined)),
      modifiedAt: new Date(),
    },
  });
  await copyLinks(tx, series.id, [copy.id], false);
  return copy;
}

/**
 * An occurrence taken out of the trash: its start is no longer an EXDATE of the series, which would
 * leave it out of the series' iCalendar rule and bring it back no more on a re-expansion.
 */
export async function restoreOccurrence(tx: Tx, occurrence: EventRow) {
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
 * After an occurrence was deleted: its start becomes an EXDATE of the series; with `following` the
 * series ends before it, and the later occurrences go to the trash (or for good) with it.
 */
export async function dropOccurrences(
  tx: Tx,
  ctx: ServiceContext,
  occurrence: EventRow,
  following: boolean,
  force: boolean,
) {
  const { series: seriesId, original: from } = occurrenceOf(occurrence);
  const series = await readRow(tx, seriesId);
  const zone = eventZone(series.timezone) ?? UTC_ZONE;
  const recurrence = following
    ? splitLines(series.recurrence, zone, series.startLocal, series.allDay, from).before
    : canonicalLines([...series.recurrence, exdateLine(from, zone, series.allDay)], zone, series.allDay);
  if (following) {
    await dropOccurrencesAfter(tx, series.id, from, force);
  }
  await tx.event.update({ where: { id: series.id }, data: { recurrence, modifiedAt: new Date() } });
  if (following) await syncSeries(tx, ctx, series.id, { rebuild: true, links: false });
}

/** A series to the trash with all its occurrences, or for good (they go by cascade). */
export async function removeSeries(tx: Tx, ctx: ServiceContext, series: EventRecord, force: boolean) {
  await trashOrDelete(ctx, 'event', series, force, {
    trash: async () => {
      const modifiedAt = new Date();
      await tx.event.update({ where: { id: series.id }, data: { status: 'trash', modifiedAt } });
      await tx.event.updateMany({ where: { parentId: series.id }, data: { status: 'trash', modifiedAt } });
    },
    remove: () => tx.event.delete({ where: { id: series.id } }).then(() => undefined),
  });
}
