// Collection synchronization (RFC 6578) on the change feed (services/changes.ts): a sync token is
// a feed position, so what changed since a token is what the feed gives after it. An event that
// changed is reported by the resource it belongs to (a series for its occurrences); a venue,
// organizer, term or image that changed, by the events whose text shows it. A token the feed no
// longer reaches (pruned) or never gave is refused with DAV:valid-sync-token, and the client
// starts over with a full sync (caldav/reports.ts).
import type { PrismaClient } from '../../db/client.js';
import { CursorExpired } from '../../domain/errors.js';
import { rowsShowing } from '../../queries/calendar-objects.js';
import { type ChangeRow, type FeedPosition, selectChanges } from '../../queries/changes.js';

const TOKEN_PREFIX = 'urn:calendar-events:sync:';

/** A token: the caller's view (read.ts viewDigest) and a feed position. */
const tokenOf = (view: string, position: FeedPosition) => `${TOKEN_PREFIX}${view}:${position.xid}-${position.seq}`;

/** Worded by caldav/ as DAV:valid-sync-token. */
const invalidToken = () => new CursorExpired();

function positionOf(token: string, view: string): FeedPosition {
  const given = token.trim();
  if (!given.startsWith(`${TOKEN_PREFIX}${view}:`)) throw invalidToken();
  const match = /^(\d{1,20})-(\d{1,19})$/.exec(given.slice(TOKEN_PREFIX.length + view.length + 1));
  if (!match) throw invalidToken();
  if (BigInt(match[1]) > 2n ** 64n - 1n || BigInt(match[2]) > 2n ** 63n - 1n) throw invalidToken();
  return { xid: match[1], seq: match[2] };
}

/** Where the feed is now: every change before it is in what is read after this. */
export async function currentToken(db: PrismaClient, view: string): Promise<string> {
  const read = await selectChanges(db, undefined, 0);
  if (!('next' in read)) throw new Error('the feed answered no position for its head');
  return tokenOf(view, read.next);
}

/** Changes read from the feed at a time. */
const PAGE = 1000;

/** The events (IDs of resources, or of rows that were) whose text changed after the token, and the new token. */
export async function changedSince(
  db: PrismaClient,
  token: string,
  view: string,
): Promise<{ ids: number[]; token: string }> {
  let position = positionOf(token, view);
  const changes: ChangeRow[] = [];
  for (;;) {
    const read = await selectChanges(db, position, PAGE);
    if (!('changes' in read)) throw invalidToken();
    changes.push(...read.changes);
    position = read.next;
    if (!read.more) break;
  }
  return { ids: await eventsOf(db, changes), token: tokenOf(view, position) };
}

/** The resources the changes touch: events by their series, and the events that show a changed item. */
async function eventsOf(db: PrismaClient, changes: ChangeRow[]): Promise<number[]> {
  const of = (...types: ChangeRow['type'][]) => [
    ...new Set(changes.filter((c) => types.includes(c.type)).map((c) => c.id)),
  ];
  const events = of('event');
  const rows = await rowsShowing(db, {
    events,
    venues: of('venue'),
    organizers: of('organizer'),
    terms: of('category', 'tag'),
    media: of('media'),
  });
  // Deleted for good, an event has no row: it is reported by its own ID.
  const present = new Set(rows.map((r) => r.own));
  const gone = events.filter((id) => !present.has(id));
  return [...new Set([...rows.map((r) => r.id), ...gone])].sort((a, b) => a - b);
}
