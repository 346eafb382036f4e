// What a source (import/tec-source.ts, ical/read-calendar.ts for an .ics file or a CalDAV PUT) hands to the writer (services/items/write-item.ts): each item of the
// other calendar as a body of our API, with the items it names by their IDs over there.

export type ItemKind = 'category' | 'tag' | 'venue' | 'organizer' | 'event';

/** Categories first (a parent before its children), events last: each names only earlier kinds. */
export const KIND_ORDER: readonly ItemKind[] = ['category', 'tag', 'venue', 'organizer', 'event'];

/** An item of the other calendar: which kind, and its ID there. */
export interface ItemRef {
  kind: ItemKind;
  externalId: string;
  /**
   * The item here it names, when that is known without the mapping: a CalDAV client names the
   * categories, venue and organizer it was served, which need no import (caldav/items.ts).
   */
  localId?: number;
}

/** A field of the body that names other items; set to their local IDs when the item is written. */
export interface RefField {
  field: 'categories' | 'tags' | 'venue' | 'organizer' | 'parent';
  items: ItemRef[];
}

export interface ImportItem extends ItemRef {
  /** The title or name, for the report. */
  label: string;
  /** The source's modification time, when it gives one; kept with the mapping. */
  modified?: string;
  /** The body as the document's create operation of this kind takes it, references left out. */
  body: Record<string, unknown>;
  /**
   * Fields of an event written only when it is created, outside the body's hash: a remote event's
   * first status (federation/remote-events.ts), which moderation decides after.
   */
  createOnly?: Record<string, unknown>;
  refs: RefField[];
  /**
   * Items this one carries whole (an event's venue, organizers and terms, as the modelled service
   * embeds them): created first when they were not imported yet, for lists leave out drafts.
   */
  embedded?: ImportItem[];
  /** What the source changed to take the item (a title given, links cut), for the summary. */
  remarks?: string[];
  /**
   * Links it has there that could not be made here (a category nested deeper than categories may
   * nest, moved up; a category that was refused, left out), each said: the item comes without the
   * one link rather than not at all, is reported, and the run ends with status 3.
   */
  linksLeftOut?: string[];
  /** An override of one occurrence of a series (iCalendar RECURRENCE-ID): which series, which start. */
  occurrenceOf?: {
    series: ItemRef;
    originalStart: string;
    instant?: Date;
    /** The RECURRENCE-ID's date as written (`YYYY-MM-DD`): the occurrence's day in an all-day series. */
    day?: string;
  };
}

/** An item that could not be read: reported and skipped, nothing written for it. */
export interface Unreadable {
  kind: ItemKind;
  externalId: string;
  reason: string;
}

export const refKey = (ref: ItemRef) => `${ref.kind}:${ref.externalId}`;

/**
 * The first `max` of the items an item names of one kind (limits.ts, maxLinks), with a remark when
 * it named more: one VEVENT with 11,000 CATEGORIES does not make 11,000 categories.
 */
export function firstLinks<T>(values: T[], max: number, what: string, remarks: string[]): T[] {
  if (values.length <= max) return values;
  remarks.push(`more than ${max} ${what}: the first ${max} were taken (--max-links)`);
  return values.slice(0, max);
}
