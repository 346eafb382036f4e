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
