// Changes of events become activities for followers. As the webhook dispatcher does
// (webhooks/dispatch.ts), it reads the change feed after its position (federation_dispatch) and
// writes one delivery per activity and follower inbox, moving the position, all in one transaction
// that holds the position's row lock: a second instance skips the locked row instead of dispatching
// the same changes again, and a crash before the commit leaves the position where it was.
// What followers were told of each event (federation_events) is read and written in the same
// transaction, under the same lock, so Create, Update and Delete follow one another rightly:
// - an event anonymous readers can read: Create the first time, Update after;
// - one they cannot (a draft, private, pending, trashed or deleted): Delete, if it was created.
import type { Tx } from '../db/client.js';
import type { Database } from '../db/client.js';
import type { Urls } from '../http/urls.js';
import type { CurrencySettings } from '../lib/cost.js';
import { type ChangeRow, type FeedPosition, selectChanges } from '../queries/changes.js';
import { serializeEvent } from '../serializers/events.js';
import { withObjects } from '../services/changes.js';
import { type ActivityKind, eventActivity, eventObject, eventObjectId, federationUrls } from './activity-streams.js';
import { enqueueDeliveries, type NewDelivery } from './deliveries.js';
import { followerInboxes } from './followers.js';
import { remoteEventIds } from './remote-events.js';

export interface DispatchSettings {
  urls: Urls;
  siteZone: string;
  currency: CurrencySettings;
}

/** Dispatches up to `limit` changes; answers how many it read (0: nothing to do, or another instance is at it). */
export async function dispatchEventChanges(
  db: Database,
  settings: DispatchSettings,
  limit = 200,
  report: (err: Error) => void = () => undefined,
): Promise<number> {
  return db.prisma.$transaction(
    async (tx) => {
      const locked = await tx.$queryRaw<FeedPosition[]>`
        SELECT xid::text, seq::text FROM federation_dispatch FOR UPDATE SKIP LOCKED`;
      const held = locked.at(0);
      if (!held) return 0;
      let position = held;
      let read = await selectChanges(tx, position, limit);
      if ('expired' in read) {
        report(
          new Error('federation dispatch fell behind the change feed retention: the changes pruned were not sent'),
        );
        position = read.expired;
        read = await selectChanges(tx, position, limit);
      }
      if (!('changes' in read)) return 0;
      const last = read.changes.at(-1)?.position ?? position;
      const events = read.changes.filter((c) => c.type === 'event');
      if (events.length) await writeActivities(tx, events, settings);
      if (last !== held) {
        await tx.$executeRaw`UPDATE federation_dispatch SET xid = ${last.xid}::xid8, seq = ${last.seq}::bigint`;
      }
      return read.changes.length;
    },
    { timeout: 30_000 },
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
  const remote = await remoteEventIds(tx, ids);
  for (const record of records) {
    // Another server's event is its server's to send: sent again under this calendar's id, two
    // calendars that follow each other would copy each other's events back and forth for ever.
    if (remote.has(record.id)) continue;
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
