// Changes become deliveries: one per change and matching subscription, written as the shared
// consumer (change-feed/consumer.ts) reads the change feed after the webhooks' position and moves
// it, in one transaction under the position's row lock.
import type { Principal } from '../auth/roles.js';
import type { Database, Tx } from '../db/client.js';
import type { Urls } from '../http/urls.js';
import type { CurrencySettings } from '../lib/cost.js';
import { serializeChange } from '../serializers/changes.js';
import { dispatchFromCursor, type FeedCursor } from '../change-feed/consumer.js';
import type { ChangeRow } from '../queries/changes.js';
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

/** The webhooks' position (`webhook_dispatch`, migration webhooks); RSVPs' changes too: writeDeliveries gives them only to subscriptions allowed attendee data. */
const CURSOR: FeedCursor = {
  table: 'webhook_dispatch',
  attendeeData: true,
  submissions: true,
  fellBehind: 'webhook dispatch fell behind the change feed retention: the changes pruned were not delivered',
};

/**
 * Dispatches up to `limit` changes; answers how many it read (0: nothing to do, or another instance
 * is at it). Changes pruned before they were dispatched are lost to webhooks, and told to `report`
 * (change-feed/consumer.ts).
 */
export function dispatchChanges(
  db: Database,
  settings: PayloadSettings,
  limit = 200,
  report: (err: Error) => void = () => undefined,
): Promise<number> {
  return dispatchFromCursor(db, CURSOR, limit, (tx, changes) => writeDeliveries(tx, changes, settings), report);
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
