// Writing an event that exists: its own row and links, then, for a series, its occurrences. Writes
// are true partial updates: a field that is not sent keeps its value (docs/decisions.md, "Writes are
// partial updates"). Every function runs in the caller's transaction with the event locked
// (scope.ts lockTarget).
import { effectiveAuthor, effectiveStatus } from '../../auth/permissions.js';
import type { Tx } from '../../db/client.js';
import { type EventZone, eventZone, UTC_ZONE } from '../../lib/event-times.js';
import { parseRecurrence } from '../../recurrence/parse.js';
import { shiftOf } from '../../recurrence/rewrite.js';
import { restoreTrashedExceptions } from '../../queries/event-storage.js';
import type { ServiceContext } from '../context.js';
import { slugForUpdate } from '../post-writes.js';
import { publicationDate, userExists } from '../posts.js';
import { assertSeriesRoom } from '../quotas.js';
import { endSeries, expandSeries, reachesFurther, shiftSeries, syncSeries } from '../series/occurrences.js';
import { type EventInput, columns, times, recurrenceFor } from './input.js';
import type { EventRow } from './scope.js';
import { writeLinks, takenSlugs } from './links-and-slugs.js';
import { imageColumns } from '../media.js';

/** Writes the event's own row and links; answers the row before and after. */
export async function writeEvent(
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
      ...(await imageColumns(input.image, tx)),
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
export async function writeEventAndOccurrences(
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
  await moveWithSeries(tx, current, after, input, zone);
  if (current.status === 'trash' && after.status !== 'trash') await restoreExceptions(tx, after, zone);
  const links = [input.venue, input.organizer, input.categories, input.tags].some((v) => v !== undefined);
  await syncSeries(tx, ctx, current.id, { rebuild: rulesOrTimesChanged(current, after), links });
  if (reachesFurther(current.status, after.status)) await expandSeries(tx, current.id, 'extend', ctx, new Date());
}

/**
 * A series moved with its rule unchanged (lines not sent, or sent again as they were): its
 * occurrences' original starts, exceptions and EXDATEs move with it, so IDs and exceptions are
 * kept. A change of the all-day flag is no move: recurrenceFor converted the dates already.
 */
async function moveWithSeries(tx: Tx, current: EventRow, after: EventRow, input: EventInput, zone: EventZone) {
  const untouched =
    current.recurrence.length > 0 &&
    current.allDay === after.allDay &&
    (input.recurrence === undefined || after.recurrence.join('\n') === current.recurrence.join('\n'));
  if (!untouched) return;
  const delta = shiftOf(parseRecurrence(after.recurrence, zone, after.allDay), current.startLocal, after.startLocal);
  if (!delta) return;
  const recurrence = await shiftSeries(tx, after, zone, current.startLocal, delta);
  await tx.event.update({ where: { id: current.id }, data: { recurrence } });
  after.recurrence = recurrence;
}

/** Whether the series' occurrences must be made again: its rule, times, zone or all-day flag changed. */
function rulesOrTimesChanged(current: EventRow, after: EventRow): boolean {
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
async function restoreExceptions(tx: Tx, series: EventRow, zone: EventZone) {
  const { exdates } = parseRecurrence(series.recurrence, zone, series.allDay);
  await restoreTrashedExceptions(
    tx,
    series,
    [...exdates].map((ms) => new Date(ms)),
  );
}
