// The statement of the venue and organizer lists: a page, newest first, and how many match in all,
// in one SQL statement (the matches are found once for both, as for events in event-rows.ts).
import { Prisma } from '../../generated/prisma/client.js';
import type { ListScope } from '../auth/permissions.js';
import type { PrismaClient } from '../db/client.js';
import type { VenueOrOrganizerKind, VenueOrOrganizerRecord } from '../domain/records.js';
import { inScope } from './list-scope.js';
import { selectRows } from '../db/driver.js';
import { type Json, record } from './rows.js';
import { holdsEveryWord, ORGANIZER_TEXT, searchWords, VENUE_TEXT } from './word-search.js';

export interface VenueOrOrganizerFilters {
  /** The items the caller may list. */
  scope: ListScope;
  /** The events the caller may read: only they count for `hasEvents` and `upcomingAfter`. */
  readableEvents: ListScope;
  search?: string;
  /** Linked to this event. */
  event?: number;
  /** True: linked to a published or future event; false: to no event at all. */
  hasEvents?: boolean;
  /** Linked to an event that starts at or after this instant. */
  upcomingAfter?: Date;
  /** Only items modified after this instant. */
  modifiedAfter?: Date;
}

export async function selectVenuesOrOrganizers(
  db: PrismaClient,
  kind: VenueOrOrganizerKind,
  f: VenueOrOrganizerFilters,
  page: { take: number; skip: number },
): Promise<{ total: number; items: VenueOrOrganizerRecord[] }> {
  const { sql, raw } = Prisma;
  const [table, links, column] = [raw(kind.tableName), raw(kind.linkTable), raw(`${kind.type}_id`)];
  const withEvents = (condition: Prisma.Sql) =>
    sql`EXISTS (SELECT 1 FROM ${links} l JOIN events ev ON ev.id = l.event_id WHERE l.${column} = p.id AND ${condition})`;
  // Only events the caller may read count (docs/decisions.md, "Venues and organizers": `has_events`
  // wants one that is not a draft or pending, `has_events=false` no event at all): nobody learns of
  // an event it may not read through a venue or organizer list.
  const readable = inScope(f.readableEvents, 'ev');
  const counted = sql`${readable} AND ev.status NOT IN ('draft', 'pending', 'trash')`;
  const and = [inScope(f.scope, 'p')];
  const words = f.search ? searchWords(f.search) : [];
  if (words.length) and.push(holdsEveryWord(kind.type === 'venue' ? VENUE_TEXT : ORGANIZER_TEXT, words));
  if (f.event !== undefined) {
    and.push(sql`EXISTS (SELECT 1 FROM ${links} l WHERE l.${column} = p.id AND l.event_id = ${f.event}::int)`);
  }
  if (f.hasEvents === true) and.push(withEvents(counted));
  if (f.hasEvents === false) and.push(sql`NOT ${withEvents(readable)}`);
  if (f.modifiedAfter) and.push(sql`p.modified_at > ${f.modifiedAfter}::timestamptz`);
  if (f.upcomingAfter) and.push(withEvents(sql`ev.start_utc >= ${f.upcomingAfter}::timestamptz AND ${readable}`));
  const where = Prisma.join(and, ' AND ');
  const order = sql`ORDER BY p.published_at DESC, p.id DESC`;
  const rows = await selectRows<{ row: string; total: number }>(
    db,
    sql`SELECT (to_jsonb(p) - 'total_matches')::text AS row, p.total_matches::int AS total
        FROM (SELECT p.*, count(*) OVER () AS total_matches FROM ${table} p WHERE ${where} ${order}
              LIMIT ${page.take}::int OFFSET ${page.skip}::int) p ${order}`,
    { prepare: !words.length }, // as event lists are, and not a search (queries/event-list.ts)
  );
  // A page past the end still tells the total.
  const total =
    rows[0]?.total ??
    (await selectRows<{ total: number }>(db, sql`SELECT count(*)::int AS total FROM ${table} p WHERE ${where}`))[0]
      .total;
  return { total, items: rows.map(({ row }) => record(JSON.parse(row) as Json) as VenueOrOrganizerRecord) };
}
