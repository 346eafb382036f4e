// A copy of the calendar kept in sync through the change feed (GET /changes), with the client typed
// from the document as in typed-client.ts. It reads from a cursor to the end of the feed, stores each
// object as the feed shows it, removes each tombstone, and keeps the last cursor for the next run.
// A change of a series stands for its occurrences too (those not changed on their own): the copy
// reads them again from the series' list (`post_parent`).
// Against a running service (anonymously, it copies what the public can read):
//
//   CALENDAR_URL=http://127.0.0.1:8080/wp-json/calendar/events/v1 npx tsx examples/mirror.ts
import createClient from 'openapi-fetch';
import type { components, paths } from '../generated/api.js';
import { plain } from './plain.js';

type Change = components['schemas']['Change'];

/** The copy: each object under `type:id`, as the feed last showed it. */
export type Copy = Map<string, NonNullable<Change['object']>>;

/**
 * Applies every change after `since` (from the oldest kept change without it) to `copy`, and
 * answers the cursor to go on from. A 410 means the feed no longer holds changes that far back:
 * start again with an empty copy and no cursor.
 */
export async function follow(baseUrl: string, copy: Copy, since?: string, token?: string): Promise<string> {
  const client = createClient<paths>({
    baseUrl,
    headers: token ? { Authorization: `Bearer ${token}` } : {},
  });
  let cursor = since;
  for (;;) {
    const {
      data: answer,
      error,
      response,
    } = await client.GET('/changes', {
      params: { query: { per_page: 500, ...(cursor ? { since: cursor } : {}) } },
    });
    if (!answer) throw new Error(`${response.status}: ${JSON.stringify(error)}`);
    const data = plain(answer);
    for (const change of data.changes) {
      const key = `${change.type}:${change.id}`;
      const before = copy.get(key);
      if (change.object === null) copy.delete(key);
      else copy.set(key, change.object);
      if (isSeries(before) || isSeries(change.object)) await copyOccurrences(client, copy, change.id);
    }
    cursor = data.next_cursor;
    if (!data.more) return cursor;
  }
}

type Client = ReturnType<typeof createClient<paths>>;
type Event = components['schemas']['Event'];

const isSeries = (object: Change['object'] | undefined): object is Event =>
  Boolean(object && 'recurrence' in object && object.recurrence.length);

/** The series' occurrences as its list answers them now (every date), in place of those the copy has. */
async function copyOccurrences(client: Client, copy: Copy, series: number): Promise<void> {
  for (const [key, object] of copy) {
    if ('recurring_event_id' in object && object.recurring_event_id === series) copy.delete(key);
  }
  for (let page = 1; ; page++) {
    const {
      data: answer,
      error,
      response,
    } = await client.GET('/events', {
      params: { query: { post_parent: series, start_date: '0001-01-01', end_date: '9999-12-30', per_page: 50, page } },
    });
    if (!answer) throw new Error(`${response.status}: ${JSON.stringify(error)}`);
    const data = plain(answer);
    for (const event of data.events) copy.set(`event:${event.id}`, event);
    if (!data.next_rest_url) return;
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
