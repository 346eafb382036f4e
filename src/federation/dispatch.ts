// Changes of events become activities for followers: one delivery per activity and follower inbox,
// written as the shared consumer (change-feed/consumer.ts) reads the change feed after federation's
// position (federation_dispatch) and moves it, in one transaction under the position's row lock, as
// for webhooks.
// What followers were told of each event (federation_events) is read and written in the same
// transaction, under the same lock, so Create, Update and Delete follow one another rightly:
// - an event anonymous readers can read: Create the first time, Update after, when what its document
//   shows changed (the event, or its venue: the feed records a change of every event at a venue
//   that changes);
// - one they cannot (a draft, private, pending, trashed or deleted): Delete, if it was created.
import { createHash } from 'node:crypto';
import type { Database, Tx } from '../db/client.js';
import type { Urls } from '../http/urls.js';
import type { CurrencySettings } from '../lib/cost.js';
import { dispatchFromCursor, type FeedCursor } from '../change-feed/consumer.js';
import type { ChangeRow } from '../queries/changes.js';
import { serializeEvent } from '../serializers/events.js';
import { withObjects } from '../services/changes.js';
import { type ActivityKind, eventActivity, eventObject, eventObjectId, federationUrls } from './activity-streams.js';
import { enqueueDeliveries, type NewDelivery } from './deliveries.js';
import { countFollowerInboxes, followerInboxes } from './followers.js';
import { remoteEventIds } from './remote-events.js';

export interface DispatchSettings {
  urls: Urls;
  siteZone: string;
  currency: CurrencySettings;
}

/** Federation's position (`federation_dispatch`, migration federation). */
const CURSOR: FeedCursor = {
  table: 'federation_dispatch',
  fellBehind: 'federation dispatch fell behind the change feed retention: the changes pruned were not sent',
};

/**
 * Deliveries one dispatch transaction writes at most (changes times follower inboxes): a venue
 * renamed changes every event at it (migration change_feed), thousands with many followers' servers.
 */
export const MAX_DELIVERIES_PER_TRANSACTION = 2000;

/**
 * Dispatches up to `limit` changes; answers how many it read (0: nothing to do, or another instance
 * is at it). They are read in transactions of as many changes as keep each within
 * `maxDeliveries` deliveries (one change at least), each under the position's lock.
 */
export async function dispatchEventChanges(
  db: Database,
  settings: DispatchSettings,
  limit = 200,
  report: (err: Error) => void = () => undefined,
  maxDeliveries = MAX_DELIVERIES_PER_TRANSACTION,
): Promise<number> {
  // Counted before the transactions: a follower who comes meanwhile makes one batch a little larger.
  const inboxes = await countFollowerInboxes(db.prisma);
  const batch = Math.max(1, Math.min(limit, Math.floor(maxDeliveries / Math.max(1, inboxes))));
  let read = 0;
  for (;;) {
    const asked = Math.min(batch, limit - read);
    const n = await dispatchFromCursor(
      db,
      CURSOR,
      asked,
      async (tx, changes) => {
        const events = changes.filter((c) => c.type === 'event');
        if (events.length) await writeActivities(tx, events, settings);
      },
      report,
    );
    read += n;
    if (n < asked || read >= limit) return read;
  }
}

/** What followers were last told of an event (federation_events). */
interface Told {
  live: boolean;
  version: number | null;
  hash: string | null;
}

/**
 * The version of what an event's document shows: its own modification time, or its venue's when
 * that is later (a venue renamed or moved changes every event's Place, the event itself unchanged).
 * Never at or below the version told before: an activity's id is made of it, and a receiver takes
 * an id once.
 */
function versionOf(eventModified: Date, venues: { venue: { modifiedAt: Date | string } }[], told: number | null) {
  const shown = Math.max(eventModified.getTime(), ...venues.map((l) => new Date(l.venue.modifiedAt).getTime()));
  return told !== null && shown <= told ? told + 1 : shown;
}

/** A digest of the document followers are sent: the same document twice is sent once. */
const digest = (object: Record<string, unknown>) => createHash('sha256').update(JSON.stringify(object)).digest('hex');

async function writeActivities(tx: Tx, changes: ChangeRow[], settings: DispatchSettings) {
  const urls = federationUrls(settings.urls.site);
  // The events as anonymous readers see them now: absent when they cannot read them.
  const records = await withObjects(tx, null, changes);
  const ids = [...new Set(changes.map((c) => c.id))];
  const told = new Map(
    (
      await tx.$queryRaw<{ event_id: number; live: boolean; told_version: bigint | null; told_hash: string | null }[]>`
        SELECT event_id, live, told_version, told_hash FROM federation_events WHERE event_id = ANY(${ids}::int[])`
    ).map((r): [number, Told] => [
      r.event_id,
      { live: r.live, version: r.told_version === null ? null : Number(r.told_version), hash: r.told_hash },
    ]),
  );
  const activities: { kind: ActivityKind; body: Record<string, unknown>; objectId: string }[] = [];
  const options = { ...settings, caller: null, single: false };
  const remote = await remoteEventIds(tx, ids);
  for (const record of records) {
    // Another server's event is its server's to send: sent again under this calendar's id, two
    // calendars that follow each other would copy each other's events back and forth for ever.
    if (remote.has(record.id)) continue;
    const before = told.get(record.id) ?? { live: false, version: null, hash: null };
    const objectId = eventObjectId(urls.site, record.id);
    if (record.object?.type === 'event') {
      const row = record.object.row;
      const object = eventObject(serializeEvent(row, options), urls);
      const hash = digest(object);
      // Followers have this document already (its organizer changed, which it does not show).
      if (before.live && before.hash === hash) continue;
      const kind = before.live ? 'Update' : 'Create';
      const version = versionOf(record.modifiedAt, row.venues, before.version);
      told.set(record.id, { live: true, version, hash });
      activities.push({ kind, objectId, body: eventActivity(kind, object, urls, version) });
    } else if (before.live) {
      const version = versionOf(record.modifiedAt, [], before.version);
      told.set(record.id, { live: false, version, hash: null });
      activities.push({ kind: 'Delete', objectId, body: eventActivity('Delete', { id: objectId }, urls, version) });
    }
  }
  if (!activities.length) return;
  // What followers now know, for the next changes and for the event's URL (410 once deleted).
  const known = [...told.entries()].filter(([id]) => ids.includes(id));
  await tx.$executeRaw`
    INSERT INTO federation_events (event_id, live, told_version, told_hash)
    SELECT * FROM unnest(${known.map(([id]) => id)}::int[], ${known.map(([, t]) => t.live)}::boolean[],
      ${known.map(([, t]) => (t.version === null ? null : String(t.version)))}::bigint[], ${known.map(([, t]) => t.hash)}::text[])
    ON CONFLICT (event_id) DO UPDATE SET live = excluded.live, told_version = excluded.told_version,
      told_hash = excluded.told_hash, changed_at = now()`;
  const inboxes = await followerInboxes(tx);
  const deliveries: NewDelivery[] = activities.flatMap((a) =>
    inboxes.map((inbox) => ({ activityId: a.body.id as string, objectId: a.objectId, inbox, payload: a.body })),
  );
  await enqueueDeliveries(tx, deliveries);
}
