// Reads an iCalendar file (RFC 5545) and hands its events over in batches, keyed by UID (and, for a
// change of one occurrence, RECURRENCE-ID), each VEVENT read on its own (ics-event.ts) so that a
// broken one is reported and skipped without losing the others.
//
// What a run holds is the file's bytes and a few numbers per VEVENT, not the events: a first pass
// reads every VEVENT to find which of several with one UID counts, which series the file holds and
// in which zone, and how many items there are; the batches read each VEVENT again as they are
// written (ics-blocks.ts). Series and single events come first, then the changed occurrences.
import ICAL from 'ical.js';
import { blocksOf, blockText, unfold } from './ics-blocks.js';
import { originalStartIn, readEvent, type EventRead, type Zones } from './ics-event.js';
import { type ImportItem, refKey, type Unreadable } from './items.js';
import type { ImportLimits } from './limits.js';

export const ICS_SOURCE = 'ics';

/** Events handed to the writer at a time, with the venues, organizers and categories they name first. */
const BATCH = 50;

export interface Calendar {
  /** The items the batches hold: events, and the venues, organizers and categories they name. */
  total: number;
  /** The VEVENTs that could not be read, or that another of their UID replaces. */
  unreadable: Unreadable[];
  /** What the user should know about the file as a whole. */
  notes: string[];
  batches(): Generator<ImportItem[]>;
}

/** Which VEVENT counts for a UID (and RECURRENCE-ID), and what its series needs to know of it. */
interface Chosen {
  index: number;
  sequence: number;
  override: boolean;
  /** A series' zone, in which its changed occurrences are named. */
  zone?: string;
}

/** Reads the file: the bytes are the calendar's to change (unfolded in place). */
export function readCalendar(bytes: Uint8Array, limits: ImportLimits): Calendar {
  const text = unfold(bytes);
  const blocks = blocksOf(text);
  const notes: string[] = [];
  if (!blocks.calendar) {
    if (!blocks.events.length) throw new Error('This is not an iCalendar file (no BEGIN:VCALENDAR, no VEVENT).');
    notes.push('The file has no BEGIN:VCALENDAR (RFC 5545 3.4): its VEVENTs were read all the same.');
  }
  const zones: Zones = new Map();
  for (const block of blocks.timezones) {
    if (block.broken) continue;
    try {
      const zone = new ICAL.Timezone(new ICAL.Component(ICAL.parse(blockText(text, block)) as unknown[]));
      zones.set(zone.tzid, zone);
    } catch {
      // A broken VTIMEZONE matters only to the events that use it, which then say so.
    }
  }
  let events = blocks.events;
  if (events.length > limits.maxItems) {
    notes.push(`The file holds ${events.length} VEVENTs: the first ${limits.maxItems} were read (--max-items).`);
    events = events.slice(0, limits.maxItems);
  }
  const read = (index: number): EventRead => {
    const block = events[index];
    if (block.broken) throw new Error(`It is cut short: ${block.broken}.`);
    return readEvent(blockText(text, block), zones, limits);
  };

  const unreadable: Unreadable[] = [];
  const chosen = new Map<string, Chosen>();
  const related = new Set<string>();
  for (let index = 0; index < events.length; index++) {
    let event: EventRead;
    try {
      event = read(index);
    } catch (err) {
      const uid = /^UID:(.*)$/im.exec(blockText(text, events[index]))?.[1]?.trim();
      unreadable.push({
        kind: 'event',
        externalId: uid || `VEVENT #${index + 1}`,
        reason: err instanceof Error ? err.message : String(err),
      });
      continue;
    }
    const { item, sequence } = event;
    for (const inner of event.related) related.add(refKey(inner));
    // One VEVENT per UID (and RECURRENCE-ID): the highest SEQUENCE, the later in the file on a tie.
    const other = chosen.get(item.externalId);
    if (other && other.sequence > sequence) {
      unreadable.push({
        kind: 'event',
        externalId: item.externalId,
        reason: 'Another VEVENT of this UID has a higher SEQUENCE (RFC 5545 3.8.7.4).',
      });
      continue;
    }
    if (other) {
      unreadable.push({
        kind: 'event',
        externalId: item.externalId,
        reason: 'A later VEVENT of this UID replaces it (RFC 5545 3.8.7.4: the same SEQUENCE).',
      });
    }
    const override = Boolean(item.occurrenceOf);
    chosen.set(item.externalId, { index, sequence, override, zone: override ? undefined : String(item.body.timezone) });
  }

  const byIndex = new Map([...chosen.values()].map((entry) => [entry.index, entry]));
  // The venues, organizers and categories are handed over once, with the first event that names them.
  const handed = new Set<string>();
  function* pass(overrides: boolean): Generator<ImportItem[]> {
    let batch: ImportItem[] = [];
    let count = 0;
    for (let index = 0; index < events.length; index++) {
      if (byIndex.get(index)?.override !== overrides) continue;
      // Read as in the first pass: the same text gives the same event.
      const { item, related: named } = read(index);
      if (item.occurrenceOf) withItsSeries(item, chosen);
      for (const inner of named) {
        if (handed.has(refKey(inner))) continue;
        handed.add(refKey(inner));
        batch.push(inner);
      }
      batch.push(item);
      if (++count % BATCH === 0) {
        yield batch;
        batch = [];
      }
    }
    if (batch.length) yield batch;
  }
  return {
    total: chosen.size + related.size,
    unreadable,
    notes,
    *batches() {
      yield* pass(false);
      yield* pass(true);
    },
  };
}

/**
 * A changed occurrence is named by its start in its series' zone, which may not be its own. One
 * whose series the file does not hold (or could not read) is an event of its own, as calendar apps
 * show it: there is no occurrence here for it to change.
 */
function withItsSeries(item: ImportItem, chosen: Map<string, Chosen>) {
  const of = item.occurrenceOf;
  if (!of) return;
  const series = chosen.get(of.series.externalId);
  if (!series) {
    delete item.occurrenceOf;
    item.remarks = [
      ...(item.remarks ?? []),
      'a RECURRENCE-ID whose series is not in the file: imported as an event of its own',
    ];
    return;
  }
  if (of.instant && series.zone !== undefined) of.originalStart = originalStartIn(of.instant, series.zone);
}
