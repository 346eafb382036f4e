// Changes become deliveries. The dispatcher reads the change feed after its position
// (`webhook_dispatch`, migration webhooks) as the feed does (queries/changes.ts: only changes of
// transactions older than every one still running), writes one delivery per change and matching
// subscription, and moves its position, all in one transaction that holds the position's row lock:
// a second instance skips the locked row instead of dispatching the same changes again, and a crash
// before the commit leaves the position where it was. The write that made a change never waits.
import type { Principal } from '../auth/roles.js';
import type { Database, Tx } from '../db/client.js';
import type { ChangeRecord } from '../domain/records.js';
import type { Urls } from '../http/urls.js';
import type { CurrencySettings } from '../lib/cost.js';
import { serializeChange } from '../serializers/changes.js';
import { currentObjects } from '../services/changes.js';

/** Payloads show objects as an administrator reads them: subscriptions are administrators' (drafts included). */
const READER: Principal = { id: 0, login: 'webhooks', role: 'administrator' };

export interface PayloadSettings {
  urls: Urls;
  siteZone: string;
  currency: CurrencySettings;
}

interface ChangeRow {
  xid: string;
  seq: string;
  object_type: ChangeRecord['type'];
  object_id: number;
  action: ChangeRecord['action'];
  modified_ms: string;
  recorded_at: Date;
}

/** Whether a subscription's event types (`event.created`, `event.*`, `*`) take this one. */
export const takes = (types: string[], eventType: string) =>
  types.includes('*') || types.includes(eventType) || types.includes(`${eventType.split('.')[0]}.*`);

/**
 * Dispatches up to `limit` changes; answers how many it read (0: nothing to do, or another instance
 * is at it). Should the position have fallen behind the change feed's retention (dispatch failing
 * for longer than CHANGES_RETENTION_DAYS), the changes pruned are lost to webhooks: it goes on from
 * the retention mark and tells `report`.
 */
export async function dispatchChanges(
  db: Database,
  settings: PayloadSettings,
  limit = 200,
  report: (err: Error) => void = () => undefined,
): Promise<number> {
  // A generous time limit: a batch reads and serializes up to `limit` objects for every subscription.
  return db.prisma.$transaction(
    async (tx) => {
      const locked = await tx.$queryRaw<{ xid: string; seq: string; behind: boolean }[]>`
      SELECT greatest(d.xid, p.xid)::text AS xid,
        (CASE WHEN (d.xid, d.seq) < (p.xid, p.seq) THEN p.seq ELSE d.seq END)::text AS seq,
        (d.xid, d.seq) < (p.xid, p.seq) AS behind
      FROM webhook_dispatch d, changes_pruned p FOR UPDATE OF d SKIP LOCKED`;
      const position = locked.at(0);
      // Another instance holds the row: it is dispatching these changes.
      if (!position) return 0;
      if (position.behind) {
        report(
          new Error('webhook dispatch fell behind the change feed retention: the changes pruned were not delivered'),
        );
        await tx.$executeRaw`UPDATE webhook_dispatch SET xid = ${position.xid}::xid8, seq = ${position.seq}::bigint`;
      }
      const changes = await tx.$queryRaw<ChangeRow[]>`
      SELECT xid::text, seq::text, object_type, object_id, action, recorded_at,
        (extract(epoch FROM modified_at) * 1000)::bigint::text AS modified_ms
      FROM changes
      WHERE (xid, seq) > (${position.xid}::xid8, ${position.seq}::bigint) AND xid < pg_snapshot_xmin(pg_current_snapshot())
      ORDER BY xid, seq LIMIT ${limit}::int`;
      if (!changes.length) return 0;
      await writeDeliveries(tx, changes, settings);
      const last = changes[changes.length - 1];
      await tx.$executeRaw`UPDATE webhook_dispatch SET xid = ${last.xid}::xid8, seq = ${last.seq}::bigint`;
      return changes.length;
    },
    { timeout: 30_000 },
  );
}

async function writeDeliveries(tx: Tx, changes: ChangeRow[], settings: PayloadSettings) {
  const subscriptions = await tx.webhookSubscription.findMany({ where: { enabled: true } });
  const wanted = changes.filter((c) =>
    subscriptions.some((s) => takes(s.eventTypes, `${c.object_type}.${c.action}`) && c.recorded_at >= s.createdAt),
  );
  if (!wanted.length) return;
  // Read in the transaction: on the embedded database it holds the only connection.
  const objects = await currentObjects(
    tx,
    READER,
    wanted.map((c) => ({ type: c.object_type, id: c.object_id })),
  );
  const options = { ...settings, caller: READER };
  const deliveries = wanted.flatMap((c) => {
    const eventType = `${c.object_type}.${c.action}`;
    const change: ChangeRecord = {
      cursor: `${c.xid}-${c.seq}`,
      type: c.object_type,
      id: c.object_id,
      action: c.action,
      modifiedAt: new Date(Number(c.modified_ms)),
      object: objects.get(`${c.object_type}:${c.object_id}`),
    };
    const payload = JSON.stringify({
      type: eventType,
      timestamp: new Date().toISOString(),
      data: serializeChange(change, options),
    });
    return subscriptions
      .filter((s) => takes(s.eventTypes, eventType) && c.recorded_at >= s.createdAt)
      .map((s) => ({
        subscriptionId: s.id,
        // One message per change and subscription: the same ID on every attempt (`webhook-id`).
        messageId: `msg_${c.xid}_${c.seq}_${s.id}`,
        eventType,
        payload,
      }));
  });
  await tx.webhookDelivery.createMany({ data: deliveries, skipDuplicates: true });
}
