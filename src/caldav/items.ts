// What a PUT writes: the calendar's VEVENTs read as the iCalendar import reads them (import/ics-source.ts),
// less what the client left as it was given. The text a client got (serializers/ical.ts) holds less
// than the event: plain text for an HTML description, one organizer with an e-mail address, the
// venue as a line of text, categories and tags together, `TENTATIVE` for a draft. Read back, each
// would overwrite what the event holds with less (a draft published, formatting and organizers
// lost). So the text the client was served is read the same way, and a field or link the client
// sent as it was served is left out of the write: the event keeps what it holds, and only what the
// client changed is written.
import { isDeepStrictEqual } from 'node:util';
import type { Tx } from '../db/client.js';
import { readCalendar } from '../import/ics-source.js';
import type { ImportItem, ItemRef } from '../import/items.js';
import { invalidData } from './errors.js';

/** VEVENTs in one resource: a series and up to this many changed occurrences. */
const MAX_VEVENTS = 1000;
/** CATEGORIES of one VEVENT: the document takes 100 categories and 100 tags, written there together. */
const MAX_LINKS = 200;

const readItems = (text: string) =>
  readCalendar(Buffer.from(text), { maxPages: 1, maxItems: MAX_VEVENTS, maxLinks: MAX_LINKS });

/** The items of the calendar a client sent; one that cannot be read refuses it. */
export function itemsOf(text: string): ImportItem[] {
  let calendar;
  try {
    calendar = readItems(text);
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

/** The items with the fields and links the client sent as served left out. */
export function changedOnly(items: ImportItem[], served: Map<string, ImportItem>): ImportItem[] {
  return items.map((item) => {
    const was = served.get(item.externalId);
    if (!was) return item;
    const body = Object.fromEntries(
      Object.entries(item.body).filter(([key, value]) => !isDeepStrictEqual(value, was.body[key])),
    );
    const refs = item.refs.filter((ref) => {
      const before = was.refs.find((r) => r.field === ref.field);
      return !before || !isDeepStrictEqual(ref.items.map(keyOf), before.items.map(keyOf));
    });
    const linked = new Set(refs.flatMap((r) => r.items.map(keyOf)));
    return { ...item, body, refs, embedded: item.embedded?.filter((e) => linked.has(keyOf(e))) };
  });
}

const keyOf = (ref: ItemRef) => `${ref.kind}:${ref.externalId}`;

/**
 * The export writes an event's categories and tags alike as CATEGORIES, which the import reads as
 * categories. A name that is a tag here and no category is taken back as that tag: a round trip
 * neither makes categories of tags nor keeps a tag the client took out. When the client changed
 * CATEGORIES, they are all the event's terms: its tags are set too, to none if none.
 */
export async function takeTagsBack(tx: Tx, items: ImportItem[]): Promise<ImportItem[]> {
  const nameOf = (ref: { externalId: string }) => ref.externalId.slice('category:'.length);
  const names = [
    ...new Set(
      items.flatMap((i) => i.refs.filter((r) => r.field === 'categories').flatMap((r) => r.items.map(nameOf))),
    ),
  ];
  const tags = names.length
    ? await tx.$queryRaw<{ id: number; name: string }[]>`
        SELECT t.id, lower(t.name) AS name FROM terms t
        WHERE t.taxonomy = 'post_tag' AND lower(t.name) = ANY(${names}::text[])
          AND NOT EXISTS (SELECT FROM terms c WHERE c.taxonomy = 'tribe_events_cat' AND lower(c.name) = lower(t.name))`
    : [];
  const tagOf = new Map(tags.map((t) => [t.name, t.id]));
  const isTag = (ref: ItemRef) => ref.kind === 'category' && tagOf.has(nameOf(ref));
  // New items, not the read ones changed: a transaction run again (services/retry.ts) starts over.
  return items.map((item) => {
    const categories = item.refs.find((r) => r.field === 'categories');
    if (!categories) return item;
    return {
      ...item,
      body: { ...item.body, tags: categories.items.flatMap((i) => tagOf.get(nameOf(i)) ?? []) },
      refs: item.refs.map((r) => ({ ...r, items: r.items.filter((i) => !isTag(i)) })),
      embedded: item.embedded?.filter((e) => !isTag(e)),
    };
  });
}
