// The event, venue or organizer a request names: the `{id}` or the `{slug}` of its path.
import type { Key } from '../domain/posts.js';

export const keyOf = (params: { id: number } | { slug: string }): Key =>
  'id' in params ? { id: params.id } : { slug: params.slug };

/** The path below the collection that names the same object: `12` or `by-slug/winter-jazz`. */
export const keyPath = (params: { id: number } | { slug: string }): string =>
  'id' in params ? String(params.id) : `by-slug/${encodeURIComponent(params.slug)}`;
