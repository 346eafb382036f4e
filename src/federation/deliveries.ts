// The delivery table (federation_deliveries, migration federation): one row per activity and inbox,
// written by the dispatcher (dispatch.ts) and the inbox (an Accept), sent by deliver.ts.
import type { PrismaClient, Tx } from '../db/client.js';

export interface NewDelivery {
  activityId: string;
  /** The object the activity is about: its activities reach one inbox in the order written. */
  objectId: string;
  inbox: string;
  payload: unknown;
}

/** The inbox's host (with port), which keys the limits and back-off per remote server. */
const hostOf = (inbox: string) => new URL(inbox).host;

/**
 * Writes deliveries; one already written for the same activity and inbox (the same change
 * dispatched again, a Follow sent twice) is kept as it is (the unique index).
 */
export async function enqueueDeliveries(db: PrismaClient | Tx, deliveries: NewDelivery[]): Promise<void> {
  if (!deliveries.length) return;
  await db.$executeRaw`
    INSERT INTO federation_deliveries (activity_id, object_id, inbox, host, payload)
    SELECT * FROM unnest(${deliveries.map((d) => d.activityId)}::text[], ${deliveries.map((d) => d.objectId)}::text[],
      ${deliveries.map((d) => d.inbox)}::text[], ${deliveries.map((d) => hostOf(d.inbox))}::text[],
      ${deliveries.map((d) => JSON.stringify(d.payload))}::text[])
    ON CONFLICT (activity_id, inbox) DO NOTHING`;
}

export const enqueueDelivery = (db: PrismaClient | Tx, delivery: NewDelivery) => enqueueDeliveries(db, [delivery]);
