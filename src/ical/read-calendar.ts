// Reads an iCalendar file (RFC 5545) and hands its events over in batches, keyed by UID (and, for a
// change of one occurrence, RECURRENCE-ID), each VEVENT read on its own (read-event.ts) so that a
// broken one is reported and skipped without losing the others. The importer reads files with it
// (import/commands.ts), CalDAV the calendar a client puts (caldav/items.ts), which it has parsed
// already: ical.js's reading of it is then used, not made again (ParsedCalendar).
//
// What a run holds is the file's bytes and a few numbers per VEVENT, not the events: a first pass
// reads every VEVENT to find which of several with one UID counts, which series the file holds and
// in which zone, and how many items there are; the batches read each VEVENT again as they are
// written (blocks.ts). Series and single events come first, then the changed occurrences.
import { createHash } from 'node:crypto';
import ICAL from 'ical.js';
import { eventZone } from '../lib/event-times.js';
import { type BlockList, blocksOf, blockText, unfold, type Blocks } from './blocks.js';
import { asUtf8, isUtf16, type Utf8File } from './charset.js';
import type { ImportItem, Unreadable } from '../domain/external-items.js';
import { asWritten } from './line-repair.js';
import { readEvent, type EventOptions, type EventRead } from './read-event.js';
import type { StatusReading } from './status.js';
import { ZoneBudget, zoneRefusal } from './zone-bounds.js';
import { originalStartIn, type Zones } from './zones.js';

/** What a door lets one calendar make it read. */
export interface ReadLimits {
  /** Items taken of each kind: a calendar's VEVENTs (the rest are left, with a note). */
  maxItems: number;
  /** Items one VEVENT may name of each kind (its organizers, its categories). */
  maxLinks: number;
}

export interface ReadOptions extends ReadLimits {
  /** Whose text it is, which says how STATUS and CLASS are read (status.ts); the import's if not given. */
  statuses?: StatusReading;
}

/**
 * A calendar a door has parsed already (caldav/resource-body.ts): its text, and ical.js's VCALENDAR
 * of that text. Each VEVENT and VTIMEZONE is read from that component where its text needs no
 * repair (line-repair.ts), else from its text, as a file's are.
 */
export interface ParsedCalendar {
  text: string;
  root: ICAL.Component;
}

/** Events handed to the writer at a time. */
const BATCH = 50;

export interface Calendar {
  /** The events the batches hold (each carries the venue, organizers and categories it names). */
  total: number;
  /** The VEVENTs that could not be read, or that another of their UID replaces. */
  unreadable: Unreadable[];
  /** What the user should know about the file as a whole. */
  notes: string[];
  batches(): Generator<ImportItem[]>;
}

/**
 * The key under which a run remembers an ID: its digest, of a fixed size whatever the UID's, and
 * not a piece of the VEVENT's text (V8 keeps a whole text alive for a substring of it).
 */
const keyOf = (id: string) => createHash('sha256').update(id).digest('base64');

/** What the first pass notes of each VEVENT, by its place in the file: a few bytes each. */
const NOT_CHOSEN = 0;
const SINGLE_OR_SERIES = 1;
const OVERRIDE = 2;

/**
 * Reads the file: the bytes are the calendar's to change (unfolded in place). `charset` is what its
 * server declared; a file that is not UTF-8 is converted (charset.ts), and the notes say so.
 */
export function readCalendar(source: Uint8Array | ParsedCalendar, options: ReadOptions, charset?: string): Calendar {
  const given = source instanceof Uint8Array ? undefined : source;
  const utf8 = unfoldedUtf8(source instanceof Uint8Array ? source : Buffer.from(source.text), charset);
  const text = utf8.bytes;
  const blocks = blocksOf(text);
  const notes: string[] = utf8.note ? [utf8.note] : [];
  if (!blocks.calendar) {
    if (!blocks.events.length) throw new Error('This is not an iCalendar file (no BEGIN:VCALENDAR, no VEVENT).');
    notes.push('The file has no BEGIN:VCALENDAR (RFC 5545 3.4): its VEVENTs were read all the same.');
  }
  const zones = calendarZones(blocks, text, notes, given && paired(given.root, 'vtimezone', blocks.timezones));
  const parsedEvents = given && paired(given.root, 'vevent', blocks.events);
  const eventOptions: EventOptions = { maxLinks: options.maxLinks, statuses: options.statuses ?? 'import' };
  const count = Math.min(blocks.events.length, options.maxItems);
  if (blocks.events.length > count) {
    notes.push(`The file holds ${blocks.events.length} VEVENTs: the first ${count} were read (--max-items).`);
  }
  const read = (index: number): EventRead => {
    const block = blocks.events.at(index);
    if (block.broken) throw new Error(`It is cut short: ${block.broken}.`);
    const written = blockText(text, block);
    const component = parsedEvents?.[index];
    return readEvent(component && asWritten(written, component) ? component : written, zones, eventOptions);
  };
  // Only what the batches need is kept: the SEQUENCEs of the first pass are let go.
  const { unreadable, indexOf, kinds, seriesZones, allDaySeries } = firstPass(count, read, (index) =>
    blockText(text, blocks.events.at(index)),
  );

  const seriesOf = (uid: string): Series | undefined => {
    const index = indexOf.get(keyOf(uid));
    const zone = index === undefined ? undefined : seriesZones[index];
    return index === undefined || zone === undefined ? undefined : { zone, allDay: allDaySeries[index] === 1 };
  };
  function* pass(kind: number): Generator<ImportItem[]> {
    let batch: ImportItem[] = [];
    for (let index = 0; index < count; index++) {
      if (kinds[index] !== kind) continue;
      // Read as in the first pass: the same text gives the same event.
      const { item, related } = read(index);
      if (item.occurrenceOf) withItsSeries(item, seriesOf);
      // Its venue, organizers and categories are created with it, in its transaction: an event
      // that is skipped leaves none behind (write-item.ts).
      item.embedded = related;
      batch.push(item);
      if (batch.length === BATCH) {
        yield batch;
        batch = [];
      }
    }
    if (batch.length) yield batch;
  }
  return {
    total: kinds.reduce((sum, kind) => sum + (kind === NOT_CHOSEN ? 0 : 1), 0),
    unreadable,
    notes,
    *batches() {
      yield* pass(SINGLE_OR_SERIES);
      yield* pass(OVERRIDE);
    },
  };
}

/**
 * The VCALENDAR's components of a kind, each one by the block of the text it was parsed from, when
 * they pair one to one (no block is broken, which ical.js may have read otherwise). Each without
 * its parent, as a block is read on its own: from the VCALENDAR, ical.js would resolve a TZID with
 * the file's VTIMEZONE itself, unbounded (zone-bounds.ts) and other than zones.ts reads it. The jCal
 * is shared, not parsed again.
 */
function paired(root: ICAL.Component, kind: string, blocks: BlockList): ICAL.Component[] | undefined {
  const components = root.getAllSubcomponents(kind);
  if (components.length !== blocks.length) return undefined;
  for (let index = 0; index < blocks.length; index++) if (blocks.at(index).broken) return undefined;
  return components.map((component) => new ICAL.Component(component.jCal));
}

/** The file as UTF-8, its lines unfolded: a UTF-16 file is converted first, any other after (charset.ts). */
function unfoldedUtf8(bytes: Uint8Array, charset?: string): Utf8File {
  const wide = isUtf16(bytes) ? asUtf8(bytes) : undefined;
  return wide ? { ...wide, bytes: unfold(wide.bytes) } : asUtf8(unfold(bytes), charset);
}

/**
 * The file's VTIMEZONEs that can be read, and the zone its dates and floating times are in; each
 * VTIMEZONE from `parsed`, its component a door parsed, when given.
 */
function calendarZones(blocks: Blocks, text: Uint8Array, notes: string[], parsed?: ICAL.Component[]): Zones {
  const zones: Zones = new Map();
  // Dates and floating times are in the calendar's zone when it names one the service knows.
  if (blocks.zone && eventZone(blocks.zone)) zones.floating = blocks.zone;
  else if (blocks.zone)
    notes.push(
      `X-WR-TIMEZONE "${blocks.zone}" is no IANA zone: dates and floating times were read in the site's zone.`,
    );
  const budget = new ZoneBudget();
  for (let index = 0; index < blocks.timezones.length; index++) {
    const block = blocks.timezones.at(index);
    if (block.broken) continue;
    let component: ICAL.Component;
    try {
      component = parsed?.[index] ?? new ICAL.Component(ICAL.parse(blockText(text, block)) as unknown[]);
    } catch {
      // A broken VTIMEZONE matters only to the events that use it, which then say so.
      continue;
    }
    // Bounded before ical.js may expand it (zone-bounds.ts): the events in it are refused with the reason.
    const refused = zoneRefusal(component, budget);
    if (refused) {
      notes.push(refused);
      zones.refused ??= new Map();
      zones.refused.set(String(component.getFirstPropertyValue('tzid') ?? ''), refused);
      continue;
    }
    try {
      const zone = new ICAL.Timezone(component);
      zones.set(zone.tzid, zone);
    } catch {
      // As above.
    }
  }
  return zones;
}

/** What the first pass keeps of the VEVENTs, by their place in the file: a few bytes each. */
interface Chosen {
  unreadable: Unreadable[];
  /** The place of the VEVENT that counts, by the key of its UID (and RECURRENCE-ID). */
  indexOf: Map<string, number>;
  kinds: Uint8Array;
  sequences: Float64Array;
  seriesZones: (string | undefined)[];
  allDaySeries: Uint8Array;
  /** Each zone name once (a piece of one text, not of every one). */
  zoneNames: Map<string, string>;
}

/** The first pass: which VEVENT counts for each UID (and RECURRENCE-ID), and each series' zone. */
function firstPass(count: number, read: (index: number) => EventRead, textAt: (index: number) => string): Chosen {
  const chosen: Chosen = {
    unreadable: [],
    indexOf: new Map(),
    kinds: new Uint8Array(count),
    sequences: new Float64Array(count),
    seriesZones: [],
    allDaySeries: new Uint8Array(count),
    zoneNames: new Map(),
  };
  for (let index = 0; index < count; index++) {
    const event = readOrReport(index, read, textAt, chosen.unreadable);
    if (event) choose(chosen, index, event);
  }
  return chosen;
}

/** The VEVENT read, or undefined when it cannot be, reported as unreadable under its UID if it has one. */
function readOrReport(
  index: number,
  read: (index: number) => EventRead,
  textAt: (index: number) => string,
  unreadable: Unreadable[],
): EventRead | undefined {
  try {
    return read(index);
  } catch (err) {
    const uid = /^UID:(.*)$/im.exec(textAt(index))?.[1]?.trim();
    unreadable.push({
      kind: 'event',
      externalId: uid || `VEVENT #${index + 1}`,
      reason: err instanceof Error ? err.message : String(err),
    });
    return undefined;
  }
}

/** Notes a VEVENT read in the first pass as the one of its UID that counts, unless another outranks it. */
function choose(chosen: Chosen, index: number, { item, sequence }: EventRead): void {
  const { kinds, sequences, unreadable } = chosen;
  // One VEVENT per UID (and RECURRENCE-ID): the highest SEQUENCE, the later in the file on a tie.
  const key = keyOf(item.externalId);
  const other = chosen.indexOf.get(key);
  if (other !== undefined && sequences[other] > sequence) {
    unreadable.push({
      kind: 'event',
      externalId: item.externalId,
      reason: 'Another VEVENT of this UID has a higher SEQUENCE (RFC 5545 3.8.7.4).',
    });
    return;
  }
  if (other !== undefined) {
    kinds[other] = NOT_CHOSEN;
    unreadable.push({
      kind: 'event',
      externalId: item.externalId,
      reason: 'A later VEVENT of this UID replaces it (RFC 5545 3.8.7.4: the same SEQUENCE).',
    });
  }
  chosen.indexOf.set(key, index);
  sequences[index] = sequence;
  kinds[index] = item.occurrenceOf ? OVERRIDE : SINGLE_OR_SERIES;
  if (!item.occurrenceOf) {
    // Few zones serve many series: each kept once (a piece of one text, not of every one).
    const zone = String(item.body.timezone);
    if (!chosen.zoneNames.has(zone)) chosen.zoneNames.set(zone, zone);
    chosen.seriesZones[index] = chosen.zoneNames.get(zone);
    chosen.allDaySeries[index] = item.body.all_day === true ? 1 : 0;
  }
}

/**
 * A changed occurrence is named by its start in its series' zone, which may not be its own. One
 * whose series the file does not hold (or could not read) is an event of its own, as calendar apps
 * show it: there is no occurrence here for it to change.
 */
function withItsSeries(item: ImportItem, seriesOf: (uid: string) => Series | undefined) {
  const of = item.occurrenceOf;
  if (!of) return;
  const series = seriesOf(of.series.externalId);
  if (series === undefined) {
    delete item.occurrenceOf;
    item.remarks = [
      ...(item.remarks ?? []),
      'a RECURRENCE-ID whose series is not in the file: imported as an event of its own',
    ];
    return;
  }
  // Exchange names an occurrence of an all-day series by its midnight in the organizer's zone
  // (`RECURRENCE-ID;TZID=W. Europe Standard Time:20270122T000000`): the day written is the one meant.
  if (series.allDay && of.day) {
    of.originalStart = `${of.day} 00:00:00`;
    delete of.instant;
  } else if (of.instant) of.originalStart = originalStartIn(of.instant, series.zone);
}

/** What a changed occurrence needs of its series: its zone, and whether it is all-day. */
interface Series {
  zone: string;
  allDay: boolean;
}
