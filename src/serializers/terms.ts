// The term representation (docs/decisions.md, "Categories and tags"): categories carry `parent`, tags do not.
import type { components } from '../../generated/api.js';
import { may } from '../auth/capabilities.js';
import type { Caller } from '../auth/roles.js';
import type { Urls } from '../http/urls.js';
import { termLinks } from './links.js';
import { collectionUrl, restUrl } from './rest-urls.js';
import { CATEGORY, type TermRecord } from '../domain/records.js';

type Category = components['schemas']['Category'];
type Tag = components['schemas']['Tag'];

/** The route segment of each taxonomy's collection. */
export const COLLECTION = { tribe_events_cat: 'categories', post_tag: 'tags' } as const;

export function termUrls(term: Pick<TermRecord, 'id' | 'taxonomy' | 'parentId'>, urls: Urls) {
  const collection = COLLECTION[term.taxonomy];
  return {
    self: restUrl(collection, term.id, urls),
    collection: collectionUrl(collection, urls),
    ...(term.parentId ? { up: restUrl(collection, term.parentId, urls) } : {}),
  };
}

export function termPermalink(term: TermRecord, urls: Urls): string {
  return term.taxonomy === CATEGORY
    ? `${urls.site}/events/category/${term.path.map(encodeURIComponent).join('/')}/`
    : `${urls.site}/tag/${encodeURIComponent(term.slug)}/`;
}

/** Who may change a term (auth/capabilities.ts). */
const MANAGE = { tribe_events_cat: 'manage categories', post_tag: 'manage tags' } as const;

/** A term; with `links` (not for a term deleted for good) its `_links` for that caller. */
export function serializeTerm(term: TermRecord, urls: Urls, links?: { caller: Caller }): Category | Tag {
  const head = { id: term.id, count: term.count, description: term.description, name: term.name, slug: term.slug };
  const tail = {
    meta: [] as [],
    url: termPermalink(term, urls),
    urls: termUrls(term, urls),
    ...(links
      ? { _links: termLinks(COLLECTION[term.taxonomy], term, urls, may(links.caller, MANAGE[term.taxonomy])) }
      : {}),
  };
  return term.taxonomy === CATEGORY
    ? { ...head, taxonomy: 'tribe_events_cat', parent: term.parentId, ...tail }
    : { ...head, taxonomy: 'post_tag', ...tail };
}
