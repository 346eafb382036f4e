// The calendars the calendar follows (docs/federation.md, "Following other calendars"), as the
// administrator's operations see them: follow an actor (found by handle or URL: federation/lookup.ts),
// which sends it a signed Follow and keeps it `pending` until its Accept; trust it or not; unfollow
// it, which sends an Undo. What it sends goes through the delivery table (federation/deliveries.ts),
// written in the transaction that writes the source, so that a source is never kept without its
// Follow sent, nor a Follow sent for a source not kept.
import { randomUUID } from 'node:crypto';
import { assertMay } from '../auth/capabilities.js';
import type { FederationSettings } from '../config/federation.js';
import { FederationRefused, NotFound } from '../domain/errors.js';
import { CONTEXT, federationUrls } from '../federation/activity-streams.js';
import { enqueueDelivery } from '../federation/deliveries.js';
import { lookupActor, type RemoteActor } from '../federation/lookup.js';
import { isBlocked, RemoteUnreadable } from '../federation/remote-documents.js';
import { insertSource, sourceById, sourcesPage, type SourceRow } from '../federation/sources.js';
import type { ServiceContext } from './context.js';
import { inTransaction } from './retry.js';

/** The host of a handle (`@name@host`): linear, as lookup.ts's. */
const HANDLE_HOST = /^@?[^@\s/]+@([^@\s/]+)$/;

/** The federation's settings, or a 409 where it is off (no PUBLIC_URL). */
function federationOn(settings: FederationSettings | undefined): FederationSettings {
  if (!settings) {
    throw new FederationRefused('off', 'Federation is off here: set PUBLIC_URL to follow other calendars.');
  }
  return settings;
}

export async function listFederationSources(ctx: ServiceContext, page: { take: number; skip: number }) {
  assertMay(ctx.caller, 'manage federation sources');
  return sourcesPage(ctx.db, page.take, page.skip);
}

export async function getFederationSource(ctx: ServiceContext, id: number): Promise<SourceRow> {
  assertMay(ctx.caller, 'manage federation sources');
  const source = await sourceById(ctx.db, id);
  if (!source) throw new NotFound('federation_source', id);
  return source;
}

/** The Follow of `actor` by the calendar, with the id the source keeps to match its answer. */
function followActivity(site: string, followId: string, actor: string) {
  const urls = federationUrls(site);
  return { '@context': CONTEXT, id: followId, type: 'Follow', actor: urls.actor, object: actor, to: [actor] };
}

/**
 * Follows the actor: found first (outside any transaction: the network is slow), then kept and its
 * Follow queued in one transaction. Two follows of one actor at once make one source: the unique
 * actor_id refuses the second, which answers 409.
 */
export async function followFederationSource(
  ctx: ServiceContext,
  settings: FederationSettings | undefined,
  input: { actor: string; trusted?: boolean },
): Promise<SourceRow> {
  assertMay(ctx.caller, 'manage federation sources');
  const on = federationOn(settings);
  // A blocked host is said as such before anything is asked of it.
  const given = input.actor.trim();
  const host = HANDLE_HOST.exec(given)?.[1] ?? (URL.canParse(given) ? new URL(given).host : undefined);
  if (host !== undefined && isBlocked(`https://${host}`, on.blockedHosts)) {
    throw new FederationRefused('blocked', `${host} is blocked here (FEDERATION_BLOCKED_HOSTS).`);
  }
  let actor: RemoteActor;
  try {
    actor = await lookupActor(input.actor, on);
  } catch (err) {
    if (!(err instanceof RemoteUnreadable)) throw err;
    throw new FederationRefused('lookup', `No actor could be read: ${err.message}`);
  }
  if (isBlocked(actor.id, on.blockedHosts)) {
    throw new FederationRefused('blocked', `${new URL(actor.id).host} is blocked here (FEDERATION_BLOCKED_HOSTS).`);
  }
  if (new URL(actor.id).origin === on.site) throw new FederationRefused('self', 'This is the calendar itself.');
  const followId = `${federationUrls(on.site).actor}#follows/${randomUUID()}`;
  const id = await inTransaction(ctx, async (tx) => {
    const made = await insertSource(tx, {
      ...actor,
      actorId: actor.id,
      actorType: actor.type,
      followId,
      trusted: input.trusted ?? false,
    });
    if (made === undefined) throw new FederationRefused('exists', `${actor.id} is followed already.`);
    // To the actor's own inbox: the Follow concerns it alone.
    await enqueueDelivery(tx, {
      activityId: followId,
      objectId: actor.id,
      inbox: actor.inbox,
      payload: followActivity(on.site, followId, actor.id),
    });
    return made;
  });
  return getFederationSource(ctx, id);
}

/** Trusts the source or not; events it sends from then on are published at once, or wait in the queue. */
export async function updateFederationSource(
  ctx: ServiceContext,
  id: number,
  input: { trusted?: boolean },
): Promise<SourceRow> {
  assertMay(ctx.caller, 'manage federation sources');
  if (input.trusted !== undefined) {
    // One conditional statement: nothing to read first.
    const changed = await ctx.db.$executeRaw`
      UPDATE federation_sources SET trusted = ${input.trusted}, modified_at = now() WHERE id = ${id}::int`;
    if (!changed) throw new NotFound('federation_source', id);
  }
  return getFederationSource(ctx, id);
}

/**
 * Unfollows the source: its row deleted and an Undo of its Follow queued, in one transaction that
 * locks the row first, so that of two unfollows at once the second finds it gone (404). The events
 * it brought stay, as imported events stay when their source is gone.
 */
export async function unfollowFederationSource(
  ctx: ServiceContext,
  settings: FederationSettings | undefined,
  id: number,
): Promise<SourceRow> {
  assertMay(ctx.caller, 'manage federation sources');
  return inTransaction(ctx, async (tx) => {
    const source = await sourceById(tx, id, true);
    if (!source) throw new NotFound('federation_source', id);
    await tx.$executeRaw`DELETE FROM federation_sources WHERE id = ${id}::int`;
    if (settings && source.state !== 'rejected') {
      const follow = followActivity(settings.site, source.followId, source.actorId);
      const undoId = `${source.followId}/undo`;
      await enqueueDelivery(tx, {
        activityId: undoId,
        objectId: source.actorId,
        inbox: source.inbox,
        payload: {
          '@context': CONTEXT,
          id: undoId,
          type: 'Undo',
          actor: follow.actor,
          object: { id: follow.id, type: 'Follow', actor: follow.actor, object: follow.object },
          to: [source.actorId],
        },
      });
    }
    return source;
  });
}
