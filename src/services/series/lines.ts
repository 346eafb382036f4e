// A series' lines as a write of an event sends them (docs/decisions.md, "Recurring events"): checked
// for the event's zone and start, a 400 naming `recurrence` when they are wrong or too costly to
// expand (readRecurrence), and made the lines to store (recurrenceFor), kept naming the same
// occurrences when the zone or the all-day flag changes.
import type { components } from '../../../generated/api.js';
import { InvalidInput } from '../../domain/errors.js';
import { type EventZone, eventZone, UTC_ZONE } from '../../lib/event-times.js';
import { reaches } from '../../recurrence/can-occur.js';
import { seriesTooCostly, stepTooLong } from '../../recurrence/cost.js';
import { parseRecurrence, RecurrenceError, type Recurrence } from '../../recurrence/parse.js';
import { canonicalLines, convertLines } from '../../recurrence/rewrite.js';
import { walkProblem } from '../../recurrence/walk-problem.js';

/**
 * The lines of a write, read for an event in `zone` starting at `start` (wall clock): 400 naming
 * `recurrence` when they are wrong, when a rule's steps from that start never land on what its
 * BY parts name (recurrence/can-occur.ts reaches), or when their walk would be too long to expand
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

/**
 * The lines to store (recurrence/rewrite.ts canonicalLines), checked in the event's final zone, or
 * undefined for no change. Blank lines are dropped, so `[]` (or only blanks) makes a series a
 * single event again. Lines not sent follow a change of the zone or the all-day flag: their dates
 * keep naming the same occurrences.
 */
export function recurrenceFor(
  input: Pick<components['schemas']['EventFields'], 'recurrence'>,
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
