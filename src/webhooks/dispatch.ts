// Changes become deliveries. The dispatcher reads the change feed after its position
// (`webhook_dispatch`, migration webhooks) as the feed does (queries/changes.ts: only changes of
// transactions older than every one still running), writes one delivery per change and matching
// subscription, and moves its position, all in one transaction that holds the position's row lock:
// a second instance skips the locked row instead of dispatching the same changes again, and a crash
// before the commit leaves the position where it was. The write that made a change never waits.
import type { Principal } from '../auth/roles.js';
import type { Database, Tx } from '../db/client.js';
import type { Urls } from '../http/urls.js';
import type { CurrencySettings } from '../lib/cost.js';
import { serializeChange } from '../serializers/changes.js';
import { type ChangeRow, type FeedPosition, selectChanges } from '../queries/changes.js';
import { withObjects } from '../services/changes.js';

/** Payloads show objects as an administrator reads them: subscriptions are administrators' (drafts included). */
const READER: Principal = { id: 0, login: 'webhooks', role: 'administrator' };

export interface PayloadSettings {
  urls: Urls;
  siteZone: string;
  currency: CurrencySettings;
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
      const locked = await tx.$queryRaw<FeedPosition[]>`
        SELECT xid::text, seq::text FROM webhook_dispatch FOR UPDATE SKIP LOCKED`;
      const held = locked.at(0);
      // Another instance holds the row: it is dispatching these changes.
      if (!held) return 0;
      let position = held;
      // RSVPs' changes too: writeDeliveries gives them only to subscriptions allowed attendee data.
      let read = await selectChanges(tx, position, limit, true, true);
      if ('expired' in read) {
        report(
          new Error('webhook dispatch fell behind the change feed retention: the changes pruned were not delivered'),
        );
        position = read.expired;
        read = await selectChanges(tx, position, limit, true, true);
      }
      // A position this dispatcher wrote is never ahead, nor (just moved to it) before the retention.
      if (!('changes' in read)) return 0;
      const last = read.changes.at(-1)?.position ?? position;
      if (read.changes.length) await writeDeliveries(tx, read.changes, settings);
      if (last !== held) {
        await tx.$executeRaw`UPDATE webhook_dispatch SET xid = ${last.xid}::xid8, seq = ${last.seq}::bigint`;
      }
      return read.changes.length;
    },
    { timeout: 30_000 },
  );
}

async function writeDeliveries(tx: Tx, changes: ChangeRow[], settings: PayloadSettings) {
  const subscriptions = await tx.webhookSubscription.findMany({ where: { enabled: true } });
  // Each change's subscriptions: those that take its kind and existed when it was recorded; an
  // RSVP's, with its name and e-mail address, only those an administrator allowed attendee data
  // (one without takes `*` as every other change: docs/decisions.md, "RSVP").
  const takers = (c: ChangeRow) =>
    subscriptions.filter(
      (s) =>
        takes(s.eventTypes, `${c.type}.${c.action}`) &&
        c.recordedAt >= s.createdAt &&
        (c.type !== 'rsvp' || s.attendeeData),
    );
  const wanted = changes.filter((c) => takers(c).length);
  if (!wanted.length) return;
  // Read in the transaction: on the embedded database it holds the only connection.
  const records = await withObjects(tx, READER, wanted);
  const options = { ...settings, caller: READER };
  const deliveries = wanted.flatMap((c, i) => {
    const eventType = `${c.type}.${c.action}`;
    const payload = JSON.stringify({
      type: eventType,
      timestamp: new Date().toISOString(),
      data: serializeChange(records[i], options),
    });
    return takers(c).map((s) => ({
      subscriptionId: s.id,
      // One message per change and subscription: the same ID on every attempt (`webhook-id`).
      messageId: `msg_${c.position.xid}_${c.position.seq}_${s.id}`,
      eventType,
      payload,
      rsvpId: c.type === 'rsvp' ? c.id : null,
    }));
  });
  await tx.webhookDelivery.createMany({ data: deliveries, skipDuplicates: true });
}
