// The stored objects as the services hand them on, to serializers and handlers. Types only: how
// they are read is queries/' and services/' business (docs/architecture.md).
import type { Media, Prisma as Prisma, Rsvp, Term } from '../../generated/prisma/client.js';
import type { PostStatus } from './posts.js';

/** Everything an event's representation shows: the event, its links, and what they link to. */
export const eventInclude = {
  venues: { include: { venue: true }, orderBy: [{ position: 'asc' }, { venueId: 'asc' }] },
  organizers: { include: { organizer: true }, orderBy: [{ position: 'asc' }, { organizerId: 'asc' }] },
  terms: { include: { term: true } },
  // An occurrence's series, as far as telling whether the caller may read it.
  parent: { select: { id: true, status: true, authorId: true } },
} satisfies Prisma.EventInclude;

/**
 * An event as read (queries/event-rows.ts): an occurrence that has no text of its own shows its
 * series' description and excerpt, so these are always text here; with its RSVP counts.
 */
export type EventRecord = Omit<Prisma.EventGetPayload<{ include: typeof eventInclude }>, 'description' | 'excerpt'> & {
  description: string;
  excerpt: string;
  /** Its RSVPs' public counts, in seats (queries/event-rows.ts): seated (going or checked in), and waiting. */
  rsvpCounts: RsvpCounts;
};

export interface RsvpCounts {
  going: number;
  waiting: number;
  /** Seats of RSVPs checked in at the door (counted in `going` too). */
  checked_in: number;
}

/** A venue or an organizer: the columns both have, and the kind's own (address, email...). */
export interface VenueOrOrganizerRecord {
  id: number;
  authorId: number | null;
  status: PostStatus;
  slug: string;
  name: string;
  description: string;
  excerpt: string;
  publishedAt: Date;
  modifiedAt: Date;
  image: string | null;
  imageId: number | null;
  /** The uploaded image's meta (services/media.ts ImageMeta), copied into the row by a trigger. */
  imageMeta: unknown;
  [column: string]: unknown;
}

/** What an item's `image` shows of an uploaded image, its files named by paths under /uploads/ (serializers/images.ts); a size not made is absent. */
export interface ImageMeta {
  id: number;
  file: string;
  extension: string;
  width: number;
  height: number;
  filesize: number;
  sizes: Partial<
    Record<string, { width: number; height: number; 'mime-type': string; filesize: number; file: string }>
  >;
}

/** An uploaded image: its texts and the meta of its files (the files themselves are read by name only). */
export type MediaRecord = Media;

export type Taxonomy = 'tribe_events_cat' | 'post_tag';
export const CATEGORY: Taxonomy = 'tribe_events_cat';
export const TAG: Taxonomy = 'post_tag';
/** The resource a taxonomy's terms are. */
export const TERM_TYPE = { tribe_events_cat: 'category', post_tag: 'tag' } as const;

export type TermRow = Term;

/** A category or tag as its representation shows it. */
export interface TermRecord {
  id: number;
  taxonomy: Taxonomy;
  name: string;
  slug: string;
  description: string;
  parentId: number;
  /** Published events carrying the term. */
  count: number;
  /** Slugs from the root category down to this term, for its permalink. */
  path: string[];
  /** The version If-Match names. */
  modifiedAt: Date;
}

/**
 * What tells venues and organizers apart where both are handled alike: the field names of their
 * representation and writes, their tables, and the fields that search and de-duplication look at.
 */
export interface VenueOrOrganizerKind {
  type: 'venue' | 'organizer';
  /** The field of the representation and of writes that holds the name. */
  nameField: 'venue' | 'organizer';
  /** Text fields stored in a column of the same name. */
  textFields: readonly string[];
  tableName: 'venues' | 'organizers';
  /** The table of links from events. */
  linkTable: 'event_venues' | 'event_organizers';
  /** Fields that, with the name, make a new item the same as an existing one (same section). */
  duplicateFields: readonly string[];
}

export const VENUE: VenueOrOrganizerKind = {
  type: 'venue',
  nameField: 'venue',
  tableName: 'venues',
  linkTable: 'event_venues',
  textFields: ['address', 'city', 'country', 'province', 'state', 'zip', 'phone', 'website', 'stateprovince'],
  duplicateFields: ['description', 'excerpt', 'address', 'city', 'province', 'state', 'stateprovince', 'zip', 'phone'],
};

export const ORGANIZER: VenueOrOrganizerKind = {
  type: 'organizer',
  nameField: 'organizer',
  tableName: 'organizers',
  linkTable: 'event_organizers',
  textFields: ['phone', 'website', 'email'],
  duplicateFields: ['description', 'excerpt', 'phone', 'email', 'website'],
};

/** An object the change feed names, as it is now. */
export type ChangedObject =
  | { type: 'event'; row: EventRecord }
  | { type: 'venue' | 'organizer'; row: VenueOrOrganizerRecord }
  | { type: 'category' | 'tag'; row: TermRecord }
  | { type: 'media'; row: MediaRecord }
  | { type: 'rsvp'; row: Rsvp };

/** One change of the feed (queries/changes.ts), with the object when the reader may read it. */
export interface ChangeRecord {
  cursor: string;
  type: ChangedObject['type'];
  id: number;
  action: 'created' | 'submitted' | 'updated' | 'trashed' | 'deleted';
  /** The fields an update of an event changed that its public needs to know (queries/changes.ts). */
  changed: string[];
  /** The object's modification time when the change was recorded. */
  modifiedAt: Date;
  object?: ChangedObject;
}

/** A calendar as CalDAV shows it (services/calendar-objects/): the whole calendar, or the events of one category. */
export type Collection = { kind: 'all' } | { kind: 'category'; id: number; slug: string; name: string };
