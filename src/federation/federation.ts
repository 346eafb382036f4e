// The calendar as an ActivityPub actor, with Fedify (docs/federation.md): WebFinger
// (`acct:events@<host of PUBLIC_URL>`), NodeInfo, the actor document (an Application, as Mobilizon
// follows only Groups and Applications and Gancio's instance actor is one), its outbox of public
// events, its followers, and its inbox, whose activities Fedify takes only when their HTTP
// Signatures (draft-cavage or RFC 9421) verify: follows of the calendar here, and the activities of
// the calendars it follows in inbox.ts. What it sends goes through the delivery table (deliver.ts),
// never straight from a request.
import { createFederation, type Federation, type InboxContext } from '@fedify/fedify';
import {
  Accept,
  Announce,
  Application,
  Create,
  Delete,
  Endpoints,
  Follow,
  Image,
  isActor,
  Reject,
  Undo,
  Update,
} from '@fedify/vocab';
import type { Config } from '../config.js';
import type { PrismaClient } from '../db/client.js';
import { pageOf } from '../domain/paging.js';
import { serializeEvent } from '../serializers/events.js';
import { anonymousReading } from './reading.js';
import { serviceContext } from '../services/context.js';
import { listEvents } from '../services/event-list.js';
import { ACTOR, eventActivity, eventObject, federationUrls } from './activity-streams.js';
import { countFollowers, followersPage, queueFollowAnswer, removeFollower, saveFollower } from './followers.js';
import { keyPairsOnce } from './keys.js';
import { DatabaseKvStore } from './kv-store.js';
import type { FederationSettings } from '../config/federation.js';
import { createInbox, type Inbox } from './inbox.js';
import { federationWriter, remoteEventIds } from './remote-events.js';

/** Outbox and followers pages hold this many items. */
const PAGE_SIZE = 20;

export interface CalendarFederation {
  federation: Federation<undefined>;
  settings: FederationSettings;
  /** The site's public address (PUBLIC_URL), every id's origin. */
  site: string;
  /** What the inbox does with the sources' activities (inbox.ts). */
  inbox: Inbox;
}

export function createCalendarFederation(
  config: Config,
  db: PrismaClient,
  settings: FederationSettings,
  report: (err: unknown) => void = () => undefined,
): CalendarFederation {
  const site = settings.site;
  const inbox = createInbox(config, db, settings, federationWriter(config, db), report);
  const urls = federationUrls(site);
  const keyPairs = keyPairsOnce(db);
  const federation = createFederation<undefined>({
    kv: new DatabaseKvStore(db),
    origin: new URL(site).origin,
    // Remote documents (actors and their keys) are fetched through Fedify's loader, which refuses
    // private addresses unless FEDERATION_ALLOW_PRIVATE_ADDRESSES is on (tests on loopback).
    allowPrivateAddress: settings.allowPrivateAddresses,
    userAgent: { software: 'calendar-events-service' },
  });

  federation
    .setActorDispatcher('/federation/actors/{identifier}', async (ctx, identifier) => {
      if (identifier !== ACTOR) return null;
      const keys = await ctx.getActorKeyPairs(identifier);
      return new Application({
        id: ctx.getActorUri(identifier),
        preferredUsername: ACTOR,
        name: settings.name,
        summary: settings.summary,
        url: new URL(site),
        icon: settings.iconUrl ? new Image({ url: new URL(settings.iconUrl) }) : null,
        inbox: ctx.getInboxUri(identifier),
        outbox: ctx.getOutboxUri(identifier),
        followers: ctx.getFollowersUri(identifier),
        endpoints: new Endpoints({ sharedInbox: ctx.getInboxUri() }),
        manuallyApprovesFollowers: settings.approveFollows,
        discoverable: true,
        publicKey: keys[0].cryptographicKey,
        assertionMethods: keys.map((k) => k.multikey),
      });
    })
    .setKeyPairsDispatcher(async (_ctx, identifier) => (identifier === ACTOR ? keyPairs() : []))
    .mapHandle((_ctx, username) => (username === ACTOR ? ACTOR : null));

  federation
    .setFollowersDispatcher('/federation/actors/{identifier}/followers', async (_ctx, identifier, cursor) => {
      if (identifier !== ACTOR) return null;
      const offset = cursorNumber(cursor, 0);
      const rows = await followersPage(db, offset, PAGE_SIZE + 1);
      return {
        items: rows.slice(0, PAGE_SIZE).map((f) => ({
          id: new URL(f.actor_id),
          inboxId: new URL(f.inbox),
          endpoints: f.shared_inbox ? { sharedInbox: new URL(f.shared_inbox) } : null,
        })),
        nextCursor: rows.length > PAGE_SIZE ? String(offset + PAGE_SIZE) : null,
      };
    })
    .setFirstCursor(() => '0')
    .setCounter(async (_ctx, identifier) => (identifier === ACTOR ? countFollowers(db) : null));

  // The events to come, nearest first, each as the Create that brought it (a new follower, such as
  // Mobilizon after a follow, reads them here).
  const anonymous = () => serviceContext(config, { db, caller: null });
  const serialized = anonymousReading(config);
  federation
    .setOutboxDispatcher('/federation/actors/{identifier}/outbox', async (ctx, identifier, cursor) => {
      if (identifier !== ACTOR || cursor === null) return null;
      const page = Math.max(1, cursorNumber(cursor, 1));
      const { items, total } = await listEvents(
        anonymous(),
        { strict_dates: false, orderby: 'start_date', order: 'asc' },
        pageOf(page, PAGE_SIZE),
      );
      // Events from other servers are theirs to send (dispatch.ts): a page may hold fewer.
      const remote = await remoteEventIds(
        db,
        items.map((row) => row.id),
      );
      const activities = await Promise.all(
        items
          .filter((row) => !remote.has(row.id))
          .map(async (row) => {
            const event = serializeEvent(row, serialized);
            const json = eventActivity('Create', eventObject(event, urls), urls, Date.parse(`${event.date_utc}Z`));
            return Create.fromJsonLd(json, { contextLoader: ctx.contextLoader, documentLoader: ctx.documentLoader });
          }),
      );
      return { items: activities, nextCursor: page * PAGE_SIZE < total ? String(page + 1) : null };
    })
    .setFirstCursor(() => '1')
    .setCounter(async () => (await listEvents(anonymous(), { strict_dates: false }, pageOf(1, 1))).total);

  federation.setNodeInfoDispatcher('/nodeinfo/2.1', () => ({
    software: { name: 'calendar-events-service', version: '1.1.0' },
    protocols: ['activitypub'],
    usage: { users: { total: 1, activeHalfyear: 1, activeMonth: 1 }, localPosts: 0, localComments: 0 },
    openRegistrations: false,
  }));

  federation
    .setInboxListeners('/federation/actors/{identifier}/inbox', '/federation/inbox')
    .on(Follow, async (ctx, follow) => onFollow(ctx, follow, db, settings, urls))
    .on(Undo, async (ctx, undo) => {
      const object = await undo.getObject({ contextLoader: ctx.contextLoader, documentLoader: ctx.documentLoader });
      if (!(object instanceof Follow) || !undo.actorId || object.actorId?.href !== undo.actorId.href) return;
      await removeFollower(db, undo.actorId.href);
    })
    // The sources the calendar follows (inbox.ts); Fedify gives each listener the verified actor.
    .on(Accept, async (_ctx, activity) => withActor(activity, inbox.accepted))
    .on(Reject, async (_ctx, activity) => withActor(activity, inbox.rejected))
    .on(Create, async (_ctx, activity) => withActor(activity, inbox.created))
    .on(Update, async (_ctx, activity) => withActor(activity, inbox.created))
    .on(Announce, async (_ctx, activity) => withActor(activity, inbox.announced))
    .on(Delete, async (_ctx, activity) => withActor(activity, inbox.deleted))
    .onError((_ctx, err) => {
      report(err);
    })
    // Mobilizon gives a Create and every Update of an event one activity id: Updates are never
    // taken for repeats (the writer keeps the newest by the source's `updated`), the rest once per
    // id and actor, so that another server naming a source's next id cannot spend it.
    .withIdempotency((ctx, activity) =>
      activity instanceof Update ? null : `${ctx.origin}\n${activity.actorId?.href}\n${activity.id?.href}`,
    );
  return { federation, settings, site, inbox };
}

/**
 * Calls the inbox with the activity's actor, which Fedify checked owns the key that signed it. An
 * activity naming a document its server does not give (a JSON-LD context that answers 404) is
 * left, as one that cannot be read: the sender's to mend, not this service's failure (a 500).
 */
async function withActor(activity: { actorId: URL | null }, listener: (actorId: string) => Promise<void>) {
  if (!activity.actorId) return;
  try {
    await listener(activity.actorId.href);
  } catch (err) {
    if (!causedByFetch(err)) throw err;
  }
}

/** Whether the error, or one of its causes (JSON-LD's loader wraps it), is a failed fetch of Fedify's. */
export function causedByFetch(err: unknown): boolean {
  let e: unknown = err;
  for (let depth = 0; typeof e === 'object' && e !== null && depth < 5; depth++) {
    const error = e as { name?: unknown; cause?: unknown; details?: { cause?: unknown } };
    if (error.name === 'FetchError') return true;
    // jsonld's errors keep theirs in `details`.
    e = error.cause ?? error.details?.cause;
  }
  return false;
}

/**
 * A page cursor as a number: the cursors given are small decimal numbers; anything else a client
 * sends (a query string is anyone's) reads as the first page rather than failing a statement.
 */
const cursorNumber = (cursor: string | null, first: number) =>
  cursor !== null && /^\d{1,6}$/.test(cursor) ? Number(cursor) : first;

/**
 * The actor of a Follow with its inboxes, if it has them on its own server: an actor naming an
 * inbox elsewhere would have the calendar send every public event to a third party (many such
 * actors, many times).
 */
async function followingActor(ctx: InboxContext<undefined>, follow: Follow) {
  const follower = await follow.getActor({ contextLoader: ctx.contextLoader, documentLoader: ctx.documentLoader });
  if (!follower || !isActor(follower) || !follower.id || !follower.inboxId) return undefined;
  const sharedInbox = follower.endpoints?.sharedInbox?.href ?? null;
  const home = follower.id.origin;
  if (follower.inboxId.origin !== home || (sharedInbox !== null && new URL(sharedInbox).origin !== home))
    return undefined;
  return { id: follower.id, inboxId: follower.inboxId, sharedInbox };
}

/**
 * A Follow of the calendar: the follower kept (accepted at once, or waiting for approval with
 * FEDERATION_APPROVE_FOLLOWS), and an Accept queued for it once accepted. Only the actor who signed the Follow
 * may follow as itself: Fedify checks that the signing key belongs to the activity's actor.
 */
async function onFollow(
  ctx: InboxContext<undefined>,
  follow: Follow,
  db: PrismaClient,
  settings: FederationSettings,
  urls: ReturnType<typeof federationUrls>,
) {
  if (!follow.id || !follow.actorId || !follow.objectId) return;
  const parsed = ctx.parseUri(follow.objectId);
  if (parsed?.type !== 'actor' || parsed.identifier !== ACTOR) return;
  const follower = await followingActor(ctx, follow);
  if (!follower) return;
  const { sharedInbox } = follower;
  const accepted = await saveFollower(db, {
    actorId: follower.id.href,
    inbox: follower.inboxId.href,
    sharedInbox,
    followId: follow.id.href,
    accepted: !settings.approveFollows,
  });
  // Waiting for an administrator (services/followers.ts approves it); one accepted before (a
  // follow sent again) is answered again, with this Follow's id.
  if (!accepted) return;
  await queueFollowAnswer(
    db,
    'Accept',
    { follow_id: follow.id.href, actor_id: follower.id.href, inbox: follower.inboxId.href },
    urls,
  );
}
