// The event, venue or organizer a request names: the `{id}` or the `{slug}` of its path.
import type { Call } from '../http/handler.js';
import type { Key } from '../services/posts.js';

export function keyOf(call: Call): Key {
  const params = call.params as { id?: number; slug?: string };
  return params.id !== undefined ? { id: params.id } : { slug: params.slug! };
}
