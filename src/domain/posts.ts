// What events, venues and organizers share as posts, in the service's own terms.

export type PostStatus = 'publish' | 'future' | 'draft' | 'pending' | 'private' | 'trash';
export const POST_STATUSES: readonly PostStatus[] = ['publish', 'future', 'draft', 'pending', 'private', 'trash'];

/** How a request names an event, venue or organizer: by ID or by slug. */
export type Key = { id: number } | { slug: string };

/** The key as a not-found error names it. */
export const describeKey = (key: Key) => ('id' in key ? key.id : key.slug);

/**
 * What a write requires of the version of the object it changes (If-Match): that it exists (`*`),
 * or that its version (its modification time) is one of these.
 */
/** A post's or term's version (ETag, If-Match, the change feed): its modification time in milliseconds, base 36. */
export const versionOf = (modifiedAt: Date) => modifiedAt.getTime().toString(36);

export interface Precondition {
  versions: '*' | Date[];
}
