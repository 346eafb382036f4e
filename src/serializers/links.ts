// `_links` of every event, venue, organizer, category and tag, as WordPress writes them: a relation
// name to the links it holds, each pointing at one of our own routes (docs/decisions.md, "Links and
// embedding"). `self` says in `targetHints.allow` which methods the caller may use on the object, so
// that a client can offer "edit" only where it will work. Links marked `embeddable` are what
// `_embed` follows (http/embed.ts).
import type { components } from '../../generated/api.js';
import { canEdit, canRead } from '../auth/permissions.js';
import type { Caller } from '../auth/roles.js';
import type { Urls } from '../http/urls.js';
import type { PostStatus } from '../domain/posts.js';
import type { Taxonomy } from '../domain/records.js';
import { type Collection, collectionUrl, restUrl } from './rest-urls.js';

type Links = components['schemas']['Links'];
type HalLink = components['schemas']['HalLink'];

const READ = ['GET'] as const;
const READ_WRITE = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;
/** Expands the `wp:` relations (`wp:term`, `wp:post_type`) as WordPress does. */
const CURIES: HalLink[] = [{ name: 'wp', href: 'https://api.w.org/{rel}', templated: true }];

const self = (href: string, mayEdit: boolean): HalLink[] => [
  { href, targetHints: { allow: [...(mayEdit ? READ_WRITE : READ)] } },
];
const embeddable = (href: string): HalLink => ({ embeddable: true, href });

interface OwnedPost {
  id: number;
  authorId: number | null;
  status: PostStatus;
}

/**
 * An event's links: itself, the list, the venues and organizers it shows, its parent, and its
 * categories and tags as lists (all of them, whether or not they have published events).
 */
export function eventLinks(
  event: OwnedPost & { parent: OwnedPost | null },
  related: { venues: { id: number }[]; organizers: { id: number }[] },
  urls: Urls,
  caller: Caller,
): Links {
  const terms = (taxonomy: Taxonomy, collection: Collection) => ({
    taxonomy,
    ...embeddable(`${collectionUrl(collection, urls)}?event=${event.id}&hide_empty=false&per_page=50`),
  });
  return {
    self: self(restUrl('events', event.id, urls), canEdit(caller, event)),
    collection: [{ href: collectionUrl('events', urls) }],
    ...(related.venues.length ? { venue: related.venues.map((v) => embeddable(restUrl('venues', v.id, urls))) } : {}),
    ...(related.organizers.length
      ? { organizer: related.organizers.map((o) => embeddable(restUrl('organizers', o.id, urls))) }
      : {}),
    // The series of an occurrence, when the caller may read it.
    ...(event.parent && canRead(caller, event.parent)
      ? { up: [embeddable(restUrl('events', event.parent.id, urls))] }
      : {}),
    'wp:term': [terms('tribe_events_cat', 'categories'), terms('post_tag', 'tags')],
    curies: CURIES,
  };
}

/** A venue's or organizer's links: itself, the list, and the events it is linked to. */
export function venueOrOrganizerLinks(
  collection: 'venues' | 'organizers',
  item: OwnedPost,
  urls: Urls,
  caller: Caller,
): Links {
  const filter = collection === 'venues' ? 'venue' : 'organizer';
  return {
    self: self(restUrl(collection, item.id, urls), canEdit(caller, item)),
    collection: [{ href: collectionUrl(collection, urls) }],
    events: [{ href: `${collectionUrl('events', urls)}?${filter}=${item.id}` }],
  };
}

/** A term's links: itself, the list, its parent category, and the events that carry it. */
export function termLinks(
  collection: 'categories' | 'tags',
  term: { id: number; parentId: number },
  urls: Urls,
  mayEdit: boolean,
): Links {
  return {
    self: self(restUrl(collection, term.id, urls), mayEdit),
    collection: [{ href: collectionUrl(collection, urls) }],
    ...(term.parentId ? { up: [embeddable(restUrl(collection, term.parentId, urls))] } : {}),
    'wp:post_type': [{ href: `${collectionUrl('events', urls)}?${collection}=${term.id}` }],
    curies: CURIES,
  };
}
