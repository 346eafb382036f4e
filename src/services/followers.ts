// The calendar's followers as administrators manage them (the document's x-required-role): listed,
// a waiting follow approved (an Accept sent) or rejected (a Reject sent), a follower removed (a
// Reject sent, as Mastodon's RemoveFromFollowersService and Mobilizon's reject of a follow do, so
// that the remote server stops showing it as following). The inbox (federation/federation.ts)
// writes them as follows arrive; the answers go through the delivery table (federation/deliver.ts).
//
// Each decision is one conditional statement on the follower's row, in the transaction that queues
// its answer: of two decisions at once, PostgreSQL makes the second wait for the first's row lock
// and re-check its condition on the row as the first left it, so it finds nothing to do (a 409, or
// a 404 once removed) and queues nothing. One Accept, one Reject at most per decision.
import { FollowerRefused, NotFound } from '../domain/errors.js';
import type { Tx } from '../db/client.js';
import { federationUrls } from '../federation/activity-streams.js';
import { queueFollowAnswer, type StoredFollower } from '../federation/followers.js';
import type { ServiceContext } from './context.js';

export type FollowerState = 'waiting' | 'accepted';

/** Followers in one state (both when none), in the order they came, with how many there are. */
export async function listFollowers(
  ctx: ServiceContext,
  state: FollowerState | undefined,
  page: { take: number; skip: number },
): Promise<{ items: StoredFollower[]; total: number }> {
  const accepted = state === undefined ? null : state === 'accepted';
  const [items, [{ total }]] = await Promise.all([
    ctx.db.$queryRaw<StoredFollower[]>`
      SELECT id, actor_id, inbox, shared_inbox, follow_id, accepted, created_at FROM federation_followers
      WHERE ${accepted}::boolean IS NULL OR accepted = ${accepted}::boolean
      ORDER BY id OFFSET ${page.skip}::int LIMIT ${page.take}::int`,
    ctx.db.$queryRaw<{ total: number }[]>`
      SELECT count(*)::int AS total FROM federation_followers
      WHERE ${accepted}::boolean IS NULL OR accepted = ${accepted}::boolean`,
  ]);
  return { items, total };
}

/** The site's public address (PUBLIC_URL), or a refusal: with federation off nothing can be sent. */
function actorUrls(site: string | undefined) {
  if (site === undefined) {
    throw new FollowerRefused('off', 'Federation is off (PUBLIC_URL is not set): nothing can be sent to followers.');
  }
  return federationUrls(site);
}

/** Why a decision found no row to change: there is none, or it is accepted already. */
async function refusal(tx: Tx, id: number): Promise<Error> {
  const rows = await tx.$queryRaw<
    { accepted: boolean }[]
  >`SELECT accepted FROM federation_followers WHERE id = ${id}::int`;
  if (!rows.length) return new NotFound('follower', id);
  return new FollowerRefused('accepted', `The follower ${id} is accepted already.`);
}

/** Accepts a waiting follow and queues the Accept; answers the follower, accepted. */
export async function approveFollower(ctx: ServiceContext, id: number, site: string | undefined) {
  const urls = actorUrls(site);
  return ctx.db.$transaction(async (tx) => {
    const row = (
      await tx.$queryRaw<StoredFollower[]>`
      UPDATE federation_followers SET accepted = true WHERE id = ${id}::int AND NOT accepted
      RETURNING id, actor_id, inbox, shared_inbox, follow_id, accepted, created_at`
    ).at(0);
    if (!row) throw await refusal(tx, id);
    await queueFollowAnswer(tx, 'Accept', row, urls);
    return row;
  });
}

/** Forgets a waiting follow and queues a Reject; answers the follower as it was. */
export async function rejectFollower(ctx: ServiceContext, id: number, site: string | undefined) {
  const urls = actorUrls(site);
  return ctx.db.$transaction(async (tx) => {
    const row = (
      await tx.$queryRaw<StoredFollower[]>`
      DELETE FROM federation_followers WHERE id = ${id}::int AND NOT accepted
      RETURNING id, actor_id, inbox, shared_inbox, follow_id, accepted, created_at`
    ).at(0);
    if (!row) throw await refusal(tx, id);
    await queueFollowAnswer(tx, 'Reject', row, urls);
    return row;
  });
}

/** Removes a follower, waiting or accepted, and queues a Reject; answers it as it was. */
export async function deleteFollower(ctx: ServiceContext, id: number, site: string | undefined) {
  const urls = actorUrls(site);
  return ctx.db.$transaction(async (tx) => {
    const row = (
      await tx.$queryRaw<StoredFollower[]>`
      DELETE FROM federation_followers WHERE id = ${id}::int
      RETURNING id, actor_id, inbox, shared_inbox, follow_id, accepted, created_at`
    ).at(0);
    if (!row) throw new NotFound('follower', id);
    await queueFollowAnswer(tx, 'Reject', row, urls);
    return row;
  });
}
