// What a PUT writes: the calendar's VEVENTs read as the iCalendar import reads them (ical/read-calendar.ts),
// less what the client left as it was given. The text a client got (ical/write-calendar.ts) holds less
// than the event: plain text for an HTML description, the first organizer with an e-mail address,
// the first venue as a line of text, categories and tags together. Read back, each would overwrite
// what the event holds with less. So the text the client was served is read the same way, and a
// field or link the client sent as it was served is left out of the write: the event keeps what it
// holds, and only what the client changed is written. Where it changed a venue or an organizer,
// those it was never shown stay; names it sends are the categories and tags of those names here.
import { isDeepStrictEqual } from 'node:util';
import { DateTime } from 'luxon';
import type { Caller } from '../auth/roles.js';
import type { EventRecord } from '../domain/records.js';
import { type ParsedCalendar, readCalendar } from '../ical/read-calendar.js';
import type { ImportItem, ItemRef, RefField } from '../domain/external-items.js';
import { readableLinks } from '../serializers/events.js';
import { invalidData } from './errors.js';

/** VEVENTs in one resource: a series and up to this many changed occurrences. */
const MAX_VEVENTS = 1000;
/** CATEGORIES of one VEVENT: the document takes 100 categories and 100 tags, written there together. */
const MAX_LINKS = 200;

/**
 * The calendar read as the import reads it, but its STATUS and CLASS as CalDAV means them: the
 * inverse of what the export writes (ical/status.ts).
 */
const readItems = (calendar: string | ParsedCalendar) =>
  readCalendar(typeof calendar === 'string' ? Buffer.from(calendar) : calendar, {
    maxItems: MAX_VEVENTS,
    maxLinks: MAX_LINKS,
    statuses: 'caldav',
  });

/** The items of the calendar a client sent, parsed once (resource-body.ts); one that cannot be read refuses it. */
export function itemsOf(sent: ParsedCalendar): ImportItem[] {
  let calendar;
  try {
    calendar = readItems(sent);
  } catch (err) {
    throw invalidData(err instanceof Error ? err.message : String(err));
  }
  if (calendar.unreadable.length) throw invalidData(calendar.unreadable.map((u) => u.reason).join(' '));
  if (calendar.notes.length) throw invalidData(calendar.notes.join(' '));
  return [...calendar.batches()].flat();
}

/** The items of the text the client was served, by UID (and RECURRENCE-ID); none if it cannot be read. */
export function servedItems(text: string): Map<string, ImportItem> {
  try {
    return new Map([...readItems(text).batches()].flat().map((item) => [item.externalId, item]));
  } catch {
    return new Map();
  }
}

/**
 * Refuses what the import would take only by changing it (a remark), unless the text served gave
 * the same: the client did not make it so, and what it left as served is not written.
 */
export function assertWhole(items: ImportItem[], served: Map<string, ImportItem>) {
  for (const item of items) {
    const known = new Set(served.get(item.externalId)?.remarks ?? []);
    // Taken as calendar apps show it; every other remark is something the event would lose.
    const lost = (item.remarks ?? []).filter((r) => !r.startsWith('no SUMMARY') && !known.has(r));
    if (lost.length) throw invalidData(`It cannot be kept whole: ${lost.join('; ')}.`);
  }
}

/**
 * What writing a changed occurrence needs whatever changed: one with no mapping yet (changed
 * through the API) is checked as the import checks a new item, against the create operation.
 */
const OCCURRENCE_NEEDS = new Set(['title', 'start_date', 'end_date']);

/** The items with the fields and links the client sent as served left out. */
export function changedOnly(items: ImportItem[], served: Map<string, ImportItem>): ImportItem[] {
  return items.map((item) => {
    const was = served.get(item.externalId);
    if (!was) return item;
    const same = sameTimes(item.body, was.body);
    const body = Object.fromEntries(
      Object.entries(item.body).filter(([key, value]) => {
        if (item.occurrenceOf && OCCURRENCE_NEEDS.has(key)) return true;
        if (same.has(key)) return false;
        return !isDeepStrictEqual(value, was.body[key]);
      }),
    );
    const refs = item.refs.filter((ref) => {
      const before = was.refs.find((r) => r.field === ref.field);
      return !before || !isDeepStrictEqual(linkKeys(ref), linkKeys(before));
    });
    const linked = new Set(refs.flatMap((r) => r.items.map(keyOf)));
    return { ...item, body, refs, embedded: item.embedded?.filter((e) => linked.has(keyOf(e))) };
  });
}

/**
 * The time fields that say what was served in another form: the same start and end instants
 * written in another zone (a client that writes UTC), or an all-day event's zone, which its dates
 * do not carry (a client that drops the service's X- property).
 */
function sameTimes(body: Record<string, unknown>, was: Record<string, unknown>): Set<string> {
  if (body.all_day === true && was.all_day === true) return new Set(['timezone']);
  const instant = (b: Record<string, unknown>, key: string) =>
    DateTime.fromSQL(String(b[key]), { zone: String(b.timezone) }).toMillis();
  const moved = ['start_date', 'end_date'].some((key) => instant(body, key) !== instant(was, key));
  return moved || body.all_day !== was.all_day ? new Set() : new Set(['start_date', 'end_date', 'timezone']);
}

/** A link list as compared: categories in any order (CATEGORIES is a set), others in order. */
const linkKeys = (ref: RefField) => {
  const keys = ref.items.map(keyOf);
  return ref.field === 'categories' ? keys.sort() : keys;
};

const keyOf = (ref: ItemRef) => `${ref.kind}:${ref.externalId}`;

/**
 * Where the client changed the venue or organizer it was shown (the first venue, the first
 * organizer with an e-mail address, of those it may read), the event's others stay, after the
 * client's. An organizer sent with the e-mail address of the one shown is that one.
 */
export function keepUnserved(items: ImportItem[], master: EventRecord | undefined, caller: Caller): ImportItem[] {
  if (!master) return items;
  const shown = readableLinks(master, caller);
  const venueShown = shown.venues.at(0)?.id;
  const organizerShown = shown.organizers.find((o) => o.email);
  const venues = master.venues.map((l) => l.venueId).filter((id) => id !== venueShown);
  const organizers = master.organizers.map((l) => l.organizerId).filter((id) => id !== organizerShown?.id);
  return items.map((item) => {
    if (item.occurrenceOf) return item;
    const refs = item.refs.map((ref): RefField => {
      if (ref.field === 'venue') return { ...ref, items: [...ref.items, ...venues.map((id) => here('venue', id))] };
      if (ref.field !== 'organizer') return ref;
      const sent = ref.items.map((i) => {
        const email = item.embedded?.find((e) => keyOf(e) === keyOf(i))?.body.email;
        return organizerShown && email === organizerShown.email ? here('organizer', organizerShown.id) : i;
      });
      return { ...ref, items: [...sent, ...organizers.map((id) => here('organizer', id))] };
    });
    return { ...item, refs };
  });
}

/** A reference to an item here by its ID, which the writer takes as it is (services/items/write-item.ts). */
const here = (kind: 'venue' | 'organizer' | 'category' | 'tag', id: number): ItemRef => ({
  kind,
  externalId: `#${id}`,
  localId: id,
});
