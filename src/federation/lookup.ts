// Finding the actor an administrator asks to follow (services' followFederationSource): a handle
// (`@name@host`) through WebFinger, or a URL: the actor's own, or a server's, whose NodeInfo names
// its application actor (FEP-2677, which Mobilizon follows to find another instance's relay).
// Every document comes through remote-documents.ts.
import { fetchDocument, type RemoteAccess, RemoteUnreadable } from './remote-documents.js';

/** The actor types ActivityStreams defines; Mobilizon follows only Groups and Applications, any is taken here. */
const ACTOR_TYPES = new Set(['Application', 'Group', 'Organization', 'Person', 'Service']);

/** What is kept of a remote actor. */
export interface RemoteActor {
  id: string;
  type: string;
  name: string;
  /** `@name@host`, when it has a preferred user name. */
  handle: string | null;
  inbox: string;
  outbox: string | null;
}

/** `@name@host` or `name@host` (no `/`, one `@` between): linear, the two parts cannot overlap. */
const HANDLE = /^@?([^@\s/]+)@([^@\s/]+)$/;

const APPLICATION_REL = 'https://www.w3.org/ns/activitystreams#Application';

const text = (value: unknown) => (typeof value === 'string' ? value : '');

/** A URL of http(s), or undefined. */
function urlOf(value: unknown): string | undefined {
  const given = typeof value === 'object' && value !== null ? (value as { id?: unknown }).id : value;
  if (typeof given !== 'string') return undefined;
  try {
    const url = new URL(given);
    return url.protocol === 'https:' || url.protocol === 'http:' ? url.href : undefined;
  } catch {
    return undefined;
  }
}

/** The actor named by a handle or a URL; throws RemoteUnreadable with why not. */
export async function lookupActor(given: string, access: RemoteAccess): Promise<RemoteActor> {
  const trimmed = given.trim();
  const handle = HANDLE.exec(trimmed);
  if (handle) return actorAt(await webFinger(handle[1], handle[2], access), access);
  const url = urlOf(trimmed);
  if (!url) throw new RemoteUnreadable(`"${trimmed}" is neither a handle (@name@host) nor an http(s) URL`);
  const document = await fetchDocument(url, access);
  if (ACTOR_TYPES.has(text(document.type))) return actorOf(document, url);
  // A server's address: its application actor, if its NodeInfo names one.
  return actorAt(await applicationActor(new URL(url).origin, access), access);
}

async function actorAt(url: string, access: RemoteAccess): Promise<RemoteActor> {
  return actorOf(await fetchDocument(url, access), url);
}

/**
 * The actor as the document at `url` describes it. Its id must be on the server that answered,
 * and so must its inbox and outbox: a document cannot make the calendar follow, or send to,
 * another server's actor.
 */
export function actorOf(document: Record<string, unknown>, url: string): RemoteActor {
  const origin = new URL(url).origin;
  const id = urlOf(document.id);
  const type = text(document.type);
  if (!ACTOR_TYPES.has(type)) throw new RemoteUnreadable(`${url} is a ${type || 'document'}, not an actor`);
  if (!id || new URL(id).origin !== origin) throw new RemoteUnreadable(`${url}: the actor's id is not on its server`);
  const inbox = urlOf(document.inbox);
  if (!inbox || new URL(inbox).origin !== origin)
    throw new RemoteUnreadable(`${url}: the actor has no inbox on its server`);
  const outbox = urlOf(document.outbox);
  const username = text(document.preferredUsername);
  return {
    id,
    type,
    name: text(document.name) || username,
    handle: username ? `@${username}@${new URL(id).host}` : null,
    inbox,
    outbox: outbox && new URL(outbox).origin === origin ? outbox : null,
  };
}

/**
 * The actor's URL from WebFinger (RFC 7033), over HTTPS as every server answers it; on a closed
 * network (FEDERATION_ALLOW_PRIVATE_ADDRESSES), over plain HTTP when HTTPS does not answer.
 */
async function webFinger(name: string, host: string, access: RemoteAccess): Promise<string> {
  const path = `/.well-known/webfinger?resource=${encodeURIComponent(`acct:${name}@${host}`)}`;
  let document: Record<string, unknown>;
  try {
    document = await fetchDocument(`https://${host}${path}`, access, 'application/jrd+json, application/json');
  } catch (err) {
    if (!access.allowPrivateAddresses) throw err;
    document = await fetchDocument(`http://${host}${path}`, access, 'application/jrd+json, application/json');
  }
  const links = Array.isArray(document.links) ? (document.links as Record<string, unknown>[]) : [];
  const self = links.find(
    (link) =>
      link.rel === 'self' &&
      ['application/activity+json', 'application/ld+json'].some((type) => text(link.type).startsWith(type)),
  );
  const href = urlOf(self?.href);
  if (!href) throw new RemoteUnreadable(`@${name}@${host}: WebFinger names no ActivityPub actor`);
  return href;
}

/** The application actor a server's NodeInfo links to (FEP-2677). */
async function applicationActor(origin: string, access: RemoteAccess): Promise<string> {
  const index = await fetchDocument(`${origin}/.well-known/nodeinfo`, access, 'application/json');
  const links = Array.isArray(index.links) ? (index.links as Record<string, unknown>[]) : [];
  const href = urlOf(links.find((link) => link.rel === APPLICATION_REL)?.href);
  if (!href) throw new RemoteUnreadable(`${origin} is not an actor, and its NodeInfo names no application actor`);
  return href;
}
