// What the event, venue and organizer representations share: author, status and the publication
// and modification dates, in the site's zone and in UTC (docs/decisions.md, "Representations").
import type { PostStatus } from '../domain/posts.js';
import { formatDateTime } from '../lib/dates.js';

export interface PostRow {
  authorId: number | null;
  status: PostStatus;
  publishedAt: Date;
  modifiedAt: Date;
}

export function postMeta(row: PostRow, siteZone: string) {
  return {
    author: String(row.authorId ?? 0),
    status: row.status,
    date: formatDateTime(row.publishedAt, siteZone),
    date_utc: formatDateTime(row.publishedAt, 'UTC'),
    modified: formatDateTime(row.modifiedAt, siteZone),
    modified_utc: formatDateTime(row.modifiedAt, 'UTC'),
  };
}

/** The ID an object keeps across sites and exports: the site's host and the object's ID. */
export const globalId = (site: string, id: number) => `${new URL(site).host}?id=${id}`;

/**
 * A UID of the site's own form, `<host>?id=...` (any case): the site gives those to the events it
 * creates (their GUIDs), so no other event may carry one, or the next event created would share it.
 */
export const isSiteUid = (site: string, uid: string) =>
  uid.toLowerCase().startsWith(`${new URL(site).host}?id=`.toLowerCase());

/**
 * An event's iCalendar UID: the UID stored as its exported one (import/ledger.ts exportUid), unless
 * that has the site's form (an import of the site's own export), else its GUID.
 */
export const eventUid = (site: string, id: number, stored: string | undefined) =>
  stored !== undefined && !isSiteUid(site, stored) ? stored : globalId(site, id);
