// A copy of the calendar kept in sync through the change feed (GET /changes), with the client typed
// from the document as in typed-client.ts. It reads from a cursor to the end of the feed, stores each
// object as the feed shows it, removes each tombstone, and keeps the last cursor for the next run.
// Against a running service (anonymously, it copies what the public can read):
//
//   CALENDAR_URL=http://127.0.0.1:8080/wp-json/calendar/events/v1 npx tsx examples/mirror.ts
import createClient from 'openapi-fetch';
import type { components, paths } from '../generated/api.js';

type Change = components['schemas']['Change'];

/** The copy: each object under `type:id`, as the feed last showed it. */
export type Copy = Map<string, NonNullable<Change['object']>>;

/**
 * Applies every change after `since` (from the oldest kept change without it) to `copy`, and
 * answers the cursor to go on from. A 410 means the feed no longer holds changes that far back:
 * start again with an empty copy and no cursor.
 */
export async function follow(baseUrl: string, copy: Copy, since?: string, token?: string): Promise<string> {
  const client = createClient<paths, 'application/json'>({
    baseUrl,
    headers: token ? { Authorization: `Bearer ${token}` } : {},
  });
  let cursor = since;
  for (;;) {
    const { data, error, response } = await client.GET('/changes', {
      params: { query: { per_page: 500, ...(cursor ? { since: cursor } : {}) } },
    });
    if (!data) throw new Error(`${response.status}: ${JSON.stringify(error)}`);
    for (const change of data.changes) {
      const key = `${change.type}:${change.id}`;
      if (change.object === null) copy.delete(key);
      else copy.set(key, change.object);
    }
    cursor = data.next_cursor;
    if (!data.more) return cursor;
  }
}

// Run as a script: copy everything once, then follow every five seconds.
if (import.meta.url === `file://${process.argv[1]}`) {
  const url = process.env.CALENDAR_URL ?? 'http://127.0.0.1:8080/wp-json/calendar/events/v1';
  const copy: Copy = new Map();
  let cursor: string | undefined;
  for (;;) {
    cursor = await follow(url, copy, cursor, process.env.CALENDAR_TOKEN);
    console.log(`${copy.size} objects, up to cursor ${cursor}`);
    await new Promise((resolve) => setTimeout(resolve, 5000));
  }
}
