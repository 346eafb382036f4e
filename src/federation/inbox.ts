// What the inbox takes from the sources the calendar follows (docs/federation.md, "Following other
// calendars"). Fedify has verified the activity's HTTP Signature (draft-cavage or RFC 9421) and that
// the key is its actor's before any of this runs; here:
// - Accept and Reject answer our Follow: only from the actor it was sent to, for that Follow;
// - Create and Update of an Event are taken only from an accepted source (the actor, or the actor
//   of its server the event is attributed to: a Mobilizon group's events are created by members),
//   and only about an object on the actor's own server (its id's origin, and its attributedTo's,
//   are the actor's): a server speaks for its own objects and no one else's;
// - Announce of an Event (or of its Create or Update) from an accepted source is followed to the
//   event, which is read from its own server (the announcer's copy is not trusted);
// - Delete of an event here is taken from the object's own server, or from a source when the
//   object's URL then answers 404 or 410 (Mobilizon's rule);
// - the rest, and everything from actors not followed, is answered 202 and left.
// The activity is read as the JSON that was signed (routes.ts keeps it for the listener).
import { AsyncLocalStorage } from 'node:async_hooks';
import type { Config } from '../config.js';
import type { FederationSettings } from '../config/federation.js';
import type { PrismaClient } from '../db/client.js';
import type { ServiceContext } from '../services/context.js';
import { fetchDocument, fetchRemote, isBlocked, RemoteUnreadable } from './remote-documents.js';
import { objectIdOf, remoteEventItem } from './remote-event.js';
import { takeRemoteEvent, trashRemoteEvent } from './remote-events.js';
import { answerFollow, followedSource, sourceById, type SourceRow } from './sources.js';

type Json = Record<string, unknown>;

/** The activity's body as it was signed, for the listeners (set by routes.ts around Fedify's fetch). */
export const inboundActivity = new AsyncLocalStorage<Json | undefined>();

/** Items of an outbox read after a follow is accepted: its first page, as Mobilizon and Gancio do. */
const OUTBOX_ITEMS = 20;

const isObject = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

const origin = (url: string) => new URL(url).origin;

/** The first id an `attributedTo` names (one or a list, ids or objects). */
function attributedTo(object: Json): string {
  const first = Array.isArray(object.attributedTo) ? (object.attributedTo as unknown[])[0] : object.attributedTo;
  return objectIdOf(first);
}

/** The listeners, each called with the activity's verified actor. */
export interface Inbox {
  accepted: (actorId: string) => Promise<void>;
  rejected: (actorId: string) => Promise<void>;
  created: (actorId: string) => Promise<void>;
  announced: (actorId: string) => Promise<void>;
  deleted: (actorId: string) => Promise<void>;
  /** Reads a source's outbox and takes the events there (after its Accept). */
  readOutbox: (source: SourceRow) => Promise<void>;
}

export function createInbox(
  config: Config,
  db: PrismaClient,
  settings: FederationSettings,
  writer: ServiceContext,
  report: (err: unknown) => void,
): Inbox {
  const site = settings.site;
  const body = () => inboundActivity.getStore() ?? {};

  /** Whether the activity's actor may be heard at all: not blocked, not this calendar. */
  const heard = (actorId: string) => !isBlocked(actorId, settings.blockedHosts) && origin(actorId) !== site;

  /**
   * Takes the event as its server describes it, for the source. The object must be an Event of
   * another server than this calendar's, with its id (and its attributedTo, if any) on `owner`'s
   * origin: the server that sent it or that answered for it.
   */
  async function take(source: SourceRow, object: Json, owner: string) {
    const id = objectIdOf(object);
    if (object.type !== 'Event' || !id || origin(id) !== origin(owner) || origin(id) === site) return;
    const by = attributedTo(object);
    if (by && origin(by) !== origin(id)) return;
    const read = remoteEventItem(object, config.siteTimezone);
    if ('refused' in read) {
      report(new Error(`federation: an event of ${source.actorId} was not taken: ${read.refused}`));
      return;
    }
    const outcome = await takeRemoteEvent(writer, source, read.item, settings.maxEventsPerSource);
    if (outcome.result === 'skipped') {
      report(new Error(`federation: ${id} of ${source.actorId} was not taken: ${outcome.reason}`));
    }
  }

  /** The object at its id, read from its own server; undefined when it cannot be read. */
  async function fetched(id: string): Promise<Json | undefined> {
    if (!id || origin(id) === site) return undefined;
    try {
      const document = await fetchDocument(id, settings);
      return objectIdOf(document) === id ? document : undefined;
    } catch (err) {
      if (!(err instanceof RemoteUnreadable)) throw err;
      report(err);
      return undefined;
    }
  }

  /** The object an activity carries, or names by id alone: then read from the actor's own server, and from no other. */
  async function carried(object: unknown, actorId: string): Promise<Json | undefined> {
    if (isObject(object)) return object;
    const named = objectIdOf(object);
    return named && origin(named) === origin(actorId) ? fetched(named) : undefined;
  }

  /** An event an activity carries, or names: the Event itself, or the object of a Create or Update of it. */
  const eventIn = (value: unknown): unknown =>
    isObject(value) && (value.type === 'Create' || value.type === 'Update') ? value.object : value;

  async function answered(actorId: string, state: 'accepted' | 'rejected') {
    const followId = objectIdOf(body().object);
    if (!followId) return;
    const id = await answerFollow(db, followId, actorId, state);
    if (id === undefined || state !== 'accepted') return;
    const source = await sourceById(db, id);
    // Read after the answer is given: the sender waits for none of it.
    if (source) void inbox.readOutbox(source).catch(report);
  }

  async function deleteOf(actorId: string, object: unknown) {
    const id = objectIdOf(object);
    if (!id || origin(id) === site) return;
    // From the object's own server, the Delete is its word; from a source elsewhere (an Announce of
    // it), its URL must say the object is gone.
    if (origin(id) !== origin(actorId)) {
      let status: number;
      try {
        status = (await fetchRemote(id, settings)).status;
      } catch (err) {
        if (!(err instanceof RemoteUnreadable)) throw err;
        report(err);
        return;
      }
      if (status !== 404 && status !== 410) return;
    }
    await trashRemoteEvent(writer, id);
  }

  const inbox: Inbox = {
    accepted: (actorId) => answered(actorId, 'accepted'),
    rejected: (actorId) => answered(actorId, 'rejected'),

    async created(actorId) {
      if (!heard(actorId)) return;
      const event = await carried(body().object, actorId);
      if (!event) return;
      // The source is the actor, or the followed actor of its server the event is attributed to:
      // a Mobilizon group's events are created by its members (their Create's actor), for the group.
      const by = attributedTo(event);
      const source =
        (await followedSource(db, actorId)) ??
        (by && origin(by) === origin(actorId) ? await followedSource(db, by) : undefined);
      if (source) await take(source, event, actorId);
    },

    async announced(actorId) {
      if (!heard(actorId)) return;
      const source = await followedSource(db, actorId);
      if (!source) return;
      const object = body().object;
      if (isObject(object) && object.type === 'Delete') {
        await deleteOf(actorId, object.object);
        return;
      }
      const id = objectIdOf(eventIn(object));
      const event = await fetched(id);
      if (event) await take(source, event, id);
    },

    async deleted(actorId) {
      if (!heard(actorId)) return;
      // Its own server's word for an object here (a Mobilizon member deleting a group's event), or
      // a followed source's, confirmed by the object's URL.
      const id = objectIdOf(body().object);
      if (id && (origin(id) === origin(actorId) || (await followedSource(db, actorId)))) {
        await deleteOf(actorId, id);
      }
    },

    async readOutbox(source) {
      if (!source.outbox || origin(source.outbox) !== origin(source.actorId)) return;
      try {
        const items = await outboxItems(source.outbox, settings);
        for (const item of items.slice(0, OUTBOX_ITEMS)) {
          if (!isObject(item) || !['Announce', 'Create', 'Update'].includes(String(item.type))) continue;
          // Each event read at its id: an outbox's copy may leave out what the event's own document
          // has (Fedify's, this service's, keeps only ActivityStreams' terms). Created or updated,
          // only the source's own events; announced, anyone's.
          const id = objectIdOf(eventIn(item.type === 'Announce' ? item.object : item));
          if (!id || (item.type !== 'Announce' && origin(id) !== origin(source.actorId))) continue;
          const event = await fetched(id);
          if (event) await take(source, event, id);
        }
      } catch (err) {
        if (!(err instanceof RemoteUnreadable)) throw err;
        report(err);
      }
    },
  };
  return inbox;
}

/**
 * The items of an outbox's first page: embedded (Gancio's, helpers.js getOutbox reads
 * `first.orderedItems`), or at its own URL on the same server (Fedify's, this service's).
 */
async function outboxItems(url: string, access: FederationSettings): Promise<unknown[]> {
  const outbox = await fetchDocument(url, access);
  let page = outbox;
  if (isObject(outbox.first)) page = outbox.first;
  else if (typeof outbox.first === 'string' && origin(outbox.first) === origin(url)) {
    page = await fetchDocument(outbox.first, access);
  }
  return ([page.orderedItems, page.items].find(Array.isArray) as unknown[] | undefined) ?? [];
}
