// Updating an event: a single event, a series, or an occurrence with a scope (`this`, `following`,
// `all`), in one transaction.
import type { Tx } from '../../db/client.js';
import { statementsOf } from '../../db/driver.js';
import { InvalidInput } from '../../domain/errors.js';
import { type Key } from '../../domain/posts.js';
import { type EventRecord } from '../../domain/records.js';
import type { ServiceContext } from '../context.js';
import { inTransaction } from '../retry.js';
import { type EventInput, times } from './input.js';
import { eventZone, UTC_ZONE, wallClockText } from '../../lib/event-times.js';
import { formatDateTime, parseDateInput } from '../../lib/dates.js';
import { readBack } from './read.js';
import { type Scope, resolveScope, type EventRow, lockTarget } from './scope.js';
import { splitSeries, restoreOccurrence } from '../series/edits.js';
import { syncSeries } from '../series/sync.js';
import { writeEvent, writeEventAndOccurrences } from './write.js';
import { sendsMail } from '../../mail/outbox.js';
import { settleSeats } from '../rsvps/seats.js';

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
  const id = await writeScoped(tx, ctx, key, input, scope);
  // New RSVP settings hold against the seats taken, and free seats go to the waiting list (before
  // the start), in this transaction (services/rsvps/seats.ts).
  // Moved to a later start, seats freed after the old one go to the waiting list now.
  if (input.rsvp !== undefined || input.start_date !== undefined) {
    await settleSeats(statementsOf(tx), id, sendsMail(ctx));
  }
  return id;
}

async function writeScoped(
  tx: Tx,
  ctx: ServiceContext,
  key: Key,
  input: EventInput,
  scope: Scope | undefined,
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
    const copy = await splitSeries(tx, ctx, series, current);
    await writeEventAndOccurrences(tx, ctx, copy, input);
    // The occurrences moved over take the new series' links, even when the input named none.
    await syncSeries(tx, ctx, copy.id, { rebuild: false, links: true });
    // A date cancelled or postponed alone stays so when the series changes from it on, as a date
    // deleted alone stays deleted (docs/decisions.md, "Cancelled, postponed, online").
    if (input.event_status === undefined && hasOwnStatus(current, series)) await keepOwnStatus(tx, current);
    return copy.id;
  }
  await writeEventAndOccurrences(tx, ctx, current, input);
  return current.id;
}

/** Whether a date changed alone says something of its own of whether it happens. */
const hasOwnStatus = (occurrence: EventRow, series: EventRow) =>
  occurrence.isException &&
  (occurrence.eventStatus !== series.eventStatus || occurrence.eventStatusReason !== series.eventStatusReason);

/** The date's own status and reason back, as a date changed alone (the series' later edits leave it). */
async function keepOwnStatus(tx: Tx, occurrence: EventRow) {
  const { eventStatus, eventStatusReason } = occurrence;
  await tx.event.update({ where: { id: occurrence.id }, data: { eventStatus, eventStatusReason, isException: true } });
}

const RECURRENCE_OF_SERIES =
  'recurrence belongs to the series: update it with scope=all, or from here on with scope=following.';

/**
 * `scope=all` sent to an occurrence: new times given for the occurrence move the series by as much
 * (the occurrence moved from 19:00 to 20:00: every occurrence starts at 20:00).
 */
function shiftedInput(input: EventInput, occurrence: EventRow, series: EventRow, siteZone: string): EventInput {
  const rsvp = shiftedRsvp(input, occurrence, series);
  const withRsvp = rsvp === input.rsvp ? input : { ...input, rsvp };
  if (input.start_date === undefined && input.end_date === undefined) return withRsvp;
  const when = times(input, occurrence, siteZone);
  const shift = (field: 'start' | 'end') => {
    const moved = when[`${field}Local`].getTime() - occurrence[`${field}Local`].getTime();
    return wallClockText(new Date(series[`${field}Local`].getTime() + moved));
  };
  return { ...withRsvp, start_date: shift('start'), end_date: shift('end'), timezone: when.timezone };
}

/**
 * `rsvp.closes_at` sent to an occurrence with `scope=all` says when RSVP to that date closes: the
 * series closes each date as long before its start (services/rsvps/settings.ts stores the offset),
 * so the time is moved onto the series' start by the wall-clock distance between the two dates.
 */
function shiftedRsvp(input: EventInput, occurrence: EventRow, series: EventRow): EventInput['rsvp'] {
  const closesAt = input.rsvp?.closes_at;
  if (closesAt === undefined || closesAt === null) return input.rsvp;
  const zone = (eventZone(input.timezone ?? occurrence.timezone) ?? UTC_ZONE).zone;
  const instant = parseDateInput(closesAt, zone);
  // One it cannot read is refused where the settings are read.
  if (!instant) return input.rsvp;
  const wallClock = new Date(`${formatDateTime(instant, zone).replace(' ', 'T')}Z`);
  const moved = wallClock.getTime() + series.startLocal.getTime() - occurrence.startLocal.getTime();
  return { ...input.rsvp, closes_at: wallClockText(new Date(moved)) };
}
