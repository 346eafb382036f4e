// Changes of events become activities for followers: one delivery per activity and follower inbox,
// written as the shared consumer (change-feed/consumer.ts) reads the change feed after federation's
// position (federation_dispatch) and moves it, in one transaction under the position's row lock, as
// for webhooks.
// What followers were told of each event (federation_events) is read and written in the same
// transaction, under the same lock, so Create, Update and Delete follow one another rightly:
// - an event anonymous readers can read: Create the first time, Update after;
// - one they cannot (a draft, private, pending, trashed or deleted): Delete, if it was created.
import type { Database, Tx } from '../db/client.js';
import type { Urls } from '../http/urls.js';
import type { CurrencySettings } from '../lib/cost.js';
import { dispatchFromCursor, type FeedCursor } from '../change-feed/consumer.js';
import type { ChangeRow } from '../queries/changes.js';
import { serializeEvent } from '../serializers/events.js';
import { withObjects } from '../services/changes.js';
import { type ActivityKind, eventActivity, eventObject, eventObjectId, federationUrls } from './activity-streams.js';
import { enqueueDeliveries, type NewDelivery } from './deliveries.js';
import { followerInboxes } from './followers.js';

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

/** Dispatches up to `limit` changes; answers how many it read (0: nothing to do, or another instance is at it). */
export function dispatchEventChanges(
  db: Database,
  settings: DispatchSettings,
  limit = 200,
  report: (err: Error) => void = () => undefined,
): Promise<number> {
  return dispatchFromCursor(
    db,
    CURSOR,
    limit,
    async (tx, changes) => {
      const events = changes.filter((c) => c.type === 'event');
      if (events.length) await writeActivities(tx, events, settings);
    },
    report,
  );
}

async function writeActivities(tx: Tx, changes: ChangeRow[], settings: DispatchSettings) {
  const urls = federationUrls(settings.urls.site);
  // The events as anonymous readers see them now: absent when they cannot read them.
  const records = await withObjects(tx, null, changes);
  const ids = [...new Set(changes.map((c) => c.id))];
  const told = new Map(
    (
      await tx.$queryRaw<{ event_id: number; live: boolean }[]>`
        SELECT event_id, live FROM federation_events WHERE event_id = ANY(${ids}::int[])`
    ).map((r) => [r.event_id, r.live]),
  );
  const activities: { kind: ActivityKind; body: Record<string, unknown>; objectId: string }[] = [];
  const options = { ...settings, caller: null, single: false };
  for (const record of records) {
    const live = told.get(record.id) ?? false;
    const version = record.modifiedAt.getTime();
    const objectId = eventObjectId(urls.site, record.id);
    let kind: ActivityKind | undefined;
    let object: Record<string, unknown> = { id: objectId };
    if (record.object?.type === 'event') {
      kind = live ? 'Update' : 'Create';
      object = eventObject(serializeEvent(record.object.row, options), urls);
    } else if (live) {
      kind = 'Delete';
    }
    if (!kind) continue;
    told.set(record.id, kind !== 'Delete');
    activities.push({ kind, objectId, body: eventActivity(kind, object, urls, version) });
  }
  if (!activities.length) return;
  // What followers now know, for the next changes and for the event's URL (410 once deleted).
  const known = [...told.entries()].filter(([id]) => ids.includes(id));
  await tx.$executeRaw`
    INSERT INTO federation_events (event_id, live)
    SELECT * FROM unnest(${known.map(([id]) => id)}::int[], ${known.map(([, live]) => live)}::boolean[])
    ON CONFLICT (event_id) DO UPDATE SET live = excluded.live, changed_at = now()`;
  const inboxes = await followerInboxes(tx);
  const deliveries: NewDelivery[] = activities.flatMap((a) =>
    inboxes.map((inbox) => ({ activityId: a.body.id as string, objectId: a.objectId, inbox, payload: a.body })),
  );
  await enqueueDeliveries(tx, deliveries);
}
