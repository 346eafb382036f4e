// The calendar's followers (federation_followers, migration federation).
import type { PrismaClient, Tx } from '../db/client.js';
import { type FederationUrls, followAnswer } from './activity-streams.js';
import { enqueueDelivery } from './deliveries.js';

export interface FollowerRow {
  actor_id: string;
  inbox: string;
  shared_inbox: string | null;
}

/** A follower as the administrators' operations read it (services/followers.ts). */
export interface StoredFollower extends FollowerRow {
  id: number;
  follow_id: string;
  accepted: boolean;
  created_at: Date;
}

/**
 * Keeps a follower and answers whether it is accepted. A second Follow of the same actor (a retry,
 * or a follow after an Undo raced with it) updates its row: one upsert on the unique actor_id, so
 * two arriving at once leave one row; one accepted before stays accepted.
 */
export async function saveFollower(
  db: PrismaClient,
  f: { actorId: string; inbox: string; sharedInbox: string | null; followId: string; accepted: boolean },
): Promise<boolean> {
  const [row] = await db.$queryRaw<{ accepted: boolean }[]>`
    INSERT INTO federation_followers (actor_id, inbox, shared_inbox, follow_id, accepted)
    VALUES (${f.actorId}, ${f.inbox}, ${f.sharedInbox}, ${f.followId}, ${f.accepted})
    ON CONFLICT (actor_id) DO UPDATE SET inbox = excluded.inbox, shared_inbox = excluded.shared_inbox,
      follow_id = excluded.follow_id, accepted = federation_followers.accepted OR excluded.accepted
    RETURNING accepted`;
  return row.accepted;
}

export async function removeFollower(db: PrismaClient, actorId: string): Promise<void> {
  await db.$executeRaw`DELETE FROM federation_followers WHERE actor_id = ${actorId}`;
}

/**
 * Queues the calendar's answer to a follow (`Accept` or `Reject`) for the follower's own inbox, not
 * a shared one: it concerns that actor alone. Its object is the Follow, so a Reject queued after an
 * Accept reaches the inbox after it (deliver.ts keeps one object's activities in order).
 */
export function queueFollowAnswer(
  db: PrismaClient | Tx,
  kind: 'Accept' | 'Reject',
  follower: { follow_id: string; actor_id: string; inbox: string },
  urls: FederationUrls,
): Promise<void> {
  const payload = followAnswer(kind, { followId: follower.follow_id, actorId: follower.actor_id }, urls);
  return enqueueDelivery(db, { activityId: payload.id, objectId: follower.follow_id, inbox: follower.inbox, payload });
}

/** Accepted followers, in the order they came. */
export const followersPage = (db: PrismaClient, offset: number, limit: number) =>
  db.$queryRaw<FollowerRow[]>`
    SELECT actor_id, inbox, shared_inbox FROM federation_followers WHERE accepted
    ORDER BY id OFFSET ${offset}::int LIMIT ${limit}::int`;

export async function countFollowers(db: PrismaClient): Promise<number> {
  const [{ n }] = await db.$queryRaw<
    { n: number }[]
  >`SELECT count(*)::int AS n FROM federation_followers WHERE accepted`;
  return n;
}

/** Where activities for every follower go: each server's shared inbox once, else each follower's own. */
export async function followerInboxes(tx: Tx): Promise<string[]> {
  const rows = await tx.$queryRaw<{ inbox: string }[]>`
    SELECT DISTINCT coalesce(shared_inbox, inbox) AS inbox FROM federation_followers WHERE accepted ORDER BY 1`;
  return rows.map((r) => r.inbox);
}

/** How many inboxes followerInboxes gives. */
export async function countFollowerInboxes(db: PrismaClient): Promise<number> {
  const [{ n }] = await db.$queryRaw<{ n: number }[]>`
    SELECT count(DISTINCT coalesce(shared_inbox, inbox))::int AS n FROM federation_followers WHERE accepted`;
  return n;
}
