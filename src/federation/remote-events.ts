// Remote events become events here through the importer's writer (services/items/write-item.ts),
// keyed as every item another calendar names: source `activitypub`, external ID the object's id
// (its URL there). No remote object can so reach a local event, nor one of another source (ledger.ts),
// and an id on this calendar's own origin is refused before (inbox.ts). In the transaction that
// writes the event, under the row lock of the source that brought it (so that two activities of
// one source take turns, and its count is exact):
// - a new event past the source's cap (FEDERATION_MAX_EVENTS_PER_SOURCE) is refused, the rest of it
//   rolled back; an event already here is updated whatever the count;
// - a new event of a trusted source is published; of any other, it waits `pending` with a
//   submission in the moderation queue that names the source instead of a submitter;
// - an update leaves the status as moderation left it (the status is written only at creation);
// - a Delete trashes the event, and rejects its submission if it still waits.
// Two activities about one object at once (a Create and an Update racing) meet on the mapping's
// row lock or its primary key (ledger.ts) and make one event: the second updates the first's.
import type { Principal } from '../auth/roles.js';
import type { Config } from '../config.js';
import type { PrismaClient, Tx } from '../db/client.js';
import { InvalidInput } from '../domain/errors.js';
import type { ImportItem } from '../domain/external-items.js';
import { withoutControlCharacters } from '../import/clean-item.js';
import { serviceContext, type ServiceContext } from '../services/context.js';
import { changeEvent } from '../services/events/update.js';
import { findMapping } from '../services/items/ledger.js';
import { type Outcome, writeItem } from '../services/items/write-item.js';
import { inTransaction } from '../services/retry.js';
import { ACTIVITYPUB_SOURCE } from './remote-event.js';
import { sourceById, type SourceRow } from './sources.js';

/**
 * Who writes remote events: an editor (it publishes, and makes the tags events name) whose writes
 * belong to no account, as a public submission's contributor does (services/submissions/submit.ts).
 */
const FEDERATION_WRITER: Principal = { id: 0, login: 'federation', role: 'editor', ownsNothing: true };

export const federationWriter = (config: Config, db: PrismaClient): ServiceContext =>
  serviceContext(config, { db, caller: FEDERATION_WRITER });

/** The submitter's name column holds 250 characters. */
const SUBMITTER_NAME = 250;

/** What the moderation queue shows instead of a submitter: the source's name and handle. */
export function sourceLabel(source: Pick<SourceRow, 'name' | 'handle' | 'actorId'>): string {
  const handle = source.handle ?? source.actorId;
  const label = source.name && source.name !== handle ? `${source.name} (${handle})` : handle;
  return label.slice(0, SUBMITTER_NAME);
}

/**
 * Writes the remote event for the source; answers what the writer did (skipped with why: in the
 * trash here, refused by the API's rules, or past the cap).
 */
export async function takeRemoteEvent(
  ctx: ServiceContext,
  source: SourceRow,
  item: ImportItem,
  maxEvents: number,
): Promise<Outcome> {
  // The venue a new event of a source not trusted brings waits with it, as a submission's does. The
  // trust is read here, before the transaction: an administrator changing it meanwhile leaves at
  // worst the venue of one event as the old trust would; the event's own status is decided below,
  // under the source's lock.
  // As the importer's items (import/clean-item.ts): PostgreSQL stores no NUL, which sanitised HTML may still hold.
  const { item: clean } = withoutControlCharacters(item);
  const venue = clean.body.venue;
  const body =
    typeof venue === 'object' && venue !== null && !source.trusted
      ? { ...clean.body, venue: { ...venue, status: 'pending' } }
      : clean.body;
  const { outcome } = await writeItem(
    {
      ctx,
      source: ACTIVITYPUB_SOURCE,
      dryRun: false,
      afterStore: (tx, written, stored) => recordRemoteEvent(tx, ctx, source.id, written, stored, maxEvents),
    },
    { ...clean, body, createOnly: { status: 'pending' } },
  );
  return outcome;
}

async function recordRemoteEvent(
  tx: Tx,
  ctx: ServiceContext,
  sourceId: number,
  item: ImportItem,
  stored: { localId: number; created: boolean },
  maxEvents: number,
) {
  // The source's row lock: its activities take turns here, so that the count below is exact.
  const source = await sourceById(tx, sourceId, true);
  if (!source) throw new InvalidInput({ source: 'the calendar no longer follows this source' });
  await tx.$executeRaw`
    INSERT INTO federation_remote_events (event_id, object_id, source_id)
    VALUES (${stored.localId}::int, ${item.externalId}, ${sourceId}::int)
    ON CONFLICT (event_id) DO NOTHING`;
  if (!stored.created) return;
  // Counted after the lock, by a statement of its own: in PostgreSQL's READ COMMITTED, a statement
  // that waited for the lock would still count with the snapshot it started with.
  const [{ n }] = await tx.$queryRaw<{ n: number }[]>`
    SELECT count(*)::int AS n FROM federation_remote_events WHERE source_id = ${sourceId}::int`;
  if (n > maxEvents) {
    throw new InvalidInput({ source: `this source brought ${maxEvents} events already, as many as one may` });
  }
  if (source.trusted) {
    await changeEvent(tx, ctx, { id: stored.localId }, { status: 'publish' });
    return;
  }
  // Waiting, as a public submission waits (services/submissions/submit.ts): the venue made for it
  // with it; the change named `submitted`, which only editors read in the feed.
  const url = typeof item.body.website === 'string' && item.body.website ? item.body.website : item.externalId;
  await tx.$executeRaw`
    INSERT INTO submissions (event_id, state, submitter_name, new_venue_id, duplicate_key, federation_source_id, source_url)
    VALUES (${stored.localId}::int, 'pending', ${sourceLabel(source)},
      (SELECT v.id FROM event_venues l JOIN venues v ON v.id = l.venue_id
        WHERE l.event_id = ${stored.localId}::int AND v.status = 'pending' AND v.author_id IS NULL LIMIT 1),
      ${`activitypub ${item.externalId}`}, ${sourceId}::int, ${url})
    ON CONFLICT DO NOTHING`;
  await tx.$executeRaw`
    UPDATE changes SET action = 'submitted'
    WHERE xid = pg_current_xact_id() AND object_type = 'event' AND object_id = ${stored.localId}::int`;
}

/**
 * Moves the remote event to the trash, with its submission rejected if it still waits. Locks the
 * object's mapping first, as the writer does: a Delete and an Update at once take turns, and an
 * Update after the Delete finds the event in the trash and is skipped (write-item.ts).
 */
export async function trashRemoteEvent(ctx: ServiceContext, objectId: string): Promise<boolean> {
  return inTransaction(ctx, async (tx) => {
    const mapping = await findMapping(tx, ACTIVITYPUB_SOURCE, { kind: 'event', externalId: objectId });
    if (!mapping) return false;
    const trashed = await tx.$executeRaw`
      UPDATE events SET status = 'trash', modified_at = now() WHERE id = ${mapping.localId}::int AND status <> 'trash'`;
    await tx.$executeRaw`
      UPDATE submissions SET state = 'rejected', reason = 'Deleted at its source.', decided_at = now()
      WHERE event_id = ${mapping.localId}::int AND state IN ('pending', 'spam')`;
    return trashed > 0;
  });
}

/** Which of these events came from other servers (federation_remote_events). */
export async function remoteEventIds(db: PrismaClient | Tx, ids: number[]): Promise<Set<number>> {
  if (!ids.length) return new Set();
  const rows = await db.$queryRaw<{ event_id: number }[]>`
    SELECT event_id FROM federation_remote_events WHERE event_id = ANY(${ids}::int[])`;
  return new Set(rows.map((row) => row.event_id));
}
