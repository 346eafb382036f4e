// Who may read and change an event, venue or organizer (docs/decisions.md, "Permissions and roles"):
// editors and administrators everything; authors their own items, published or not; contributors
// their own unpublished items, without publishing; subscribers and anonymous callers read
// published items only. What a role may do at all is capabilities.ts's (and the document's
// `x-required-role`, checked early by http/security.ts); these are the per-object rules behind it.
import { Forbidden, InvalidInput } from '../domain/errors.js';
import { POST_STATUSES, type PostStatus } from '../domain/posts.js';
import { may } from './capabilities.js';
import { type Caller, hasRole } from './roles.js';

interface Owned {
  authorId: number | null;
  status: PostStatus;
}

/** The caller may not do this: an anonymous one is asked to sign in, a signed-in one refused. */
export const forbidden = (caller: Caller, message?: string) => new Forbidden(caller !== null, message);

const owns = (caller: Caller, item: Owned) => caller !== null && item.authorId === caller.id;

export const canPublish = (caller: Caller) => may(caller, 'publish');

export function canRead(caller: Caller, item: Owned): boolean {
  if (item.status === 'publish') return true;
  return hasRole(caller, 'editor') || (owns(caller, item) && hasRole(caller, 'contributor'));
}

export function canEdit(caller: Caller, item: Owned): boolean {
  if (hasRole(caller, 'editor')) return true;
  if (!owns(caller, item)) return false;
  if (hasRole(caller, 'author')) return true;
  return hasRole(caller, 'contributor') && (item.status === 'draft' || item.status === 'pending');
}

/**
 * Changing or deleting an uploaded image: editors any, authors their own (WordPress's edit_post and
 * delete_post on an attachment). Contributors upload nothing, so own none.
 */
export const canChangeMedia = (caller: Caller, media: { authorId: number | null }) =>
  hasRole(caller, 'editor') || (hasRole(caller, 'author') && owns(caller, { ...media, status: 'publish' }));

/** Deleting for good (`force=true`) is for editors and administrators. */
export const canDeleteForGood = (caller: Caller) => may(caller, 'edit others');

/**
 * The status to store. Callers who cannot publish get `pending` when they ask for a public status
 * and `draft` when they ask for nothing; a status not sent on update keeps the current one.
 */
export function effectiveStatus(caller: Caller, requested: PostStatus | undefined, current?: PostStatus): PostStatus {
  if (requested === undefined) return current ?? (canPublish(caller) ? 'publish' : 'draft');
  if (!canPublish(caller) && (requested === 'publish' || requested === 'future' || requested === 'private'))
    return 'pending';
  return requested;
}

/**
 * The author to store: the caller by default; another user only for editors and administrators.
 * `exists` tells whether a user ID is known.
 */
export async function effectiveAuthor(
  caller: Caller,
  requested: number | undefined,
  current: number | null | undefined,
  exists: (id: number) => Promise<boolean>,
): Promise<number | null> {
  if (requested === undefined || requested === current) {
    if (current !== undefined) return current;
    return caller?.ownsNothing ? null : (caller?.id ?? null);
  }
  if (requested !== caller?.id && !hasRole(caller, 'editor'))
    throw forbidden(caller, 'Sorry, you are not allowed to make another user the author.');
  if (!(await exists(requested))) throw new InvalidInput({ author: 'author is not the ID of a user.' });
  return requested;
}

/** Which items a list shows a caller: these statuses, and unpublished ones only if `ownerId` wrote them. */
export interface ListScope {
  statuses: PostStatus[];
  ownerId?: number;
}

/**
 * The scope of a list. Without `status`, callers who may edit get every status but trash, others
 * only published items; callers below editor never see other people's unpublished items. Callers
 * who may not edit can ask for `publish` only.
 */
export function listScope(caller: Caller, statuses: PostStatus[] | undefined): ListScope {
  if (caller === null || !hasRole(caller, 'contributor')) {
    if (statuses?.some((s) => s !== 'publish')) {
      throw new InvalidInput({ status: 'Only published items can be listed without an account that may edit them.' });
    }
    return { statuses: ['publish'] };
  }
  const wanted = statuses ?? POST_STATUSES.filter((s) => s !== 'trash');
  return hasRole(caller, 'editor') ? { statuses: wanted } : { statuses: wanted, ownerId: caller.id };
}
