// The event, venue or organizer a request names: the `{id}` or the `{slug}` of its path.
import type { Key } from '../domain/posts.js';

export const keyOf = (params: { id: number } | { slug: string }): Key =>
  'id' in params ? { id: params.id } : { slug: params.slug };
