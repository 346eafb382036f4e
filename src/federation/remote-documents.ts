// What the calendar reads from other servers to follow them and take their events: actors,
// WebFinger and NodeInfo documents, outboxes, events. Every request goes through the service's
// guarded fetcher (lib/guarded-fetch.ts: no private addresses unless
// FEDERATION_ALLOW_PRIVATE_ADDRESSES, one time limit, a size limit), never to a blocked host
// (FEDERATION_BLOCKED_HOSTS), and answers JSON or nothing. Fedify fetches the keys that sign
// activities itself, through its own loader with the same rule on private addresses.
import { guardedFetch } from '../lib/guarded-fetch.js';

/** The settings every request to another server keeps. */
export interface RemoteAccess {
  allowPrivateAddresses: boolean;
  timeoutSeconds: number;
  blockedHosts: string[];
}

/** The largest document read: the same limit as an activity sent to the inbox (routes.ts). */
export const MAX_DOCUMENT_BYTES = 1024 * 1024;

export const AS_ACCEPT =
  'application/activity+json, application/ld+json; profile="https://www.w3.org/ns/activitystreams"';

/**
 * The URL's host in lower case, without IPv6's brackets nor the trailing dot of a fully qualified
 * name (`evil.example.` is `evil.example`, which a blocklist names).
 */
export const hostName = (url: URL) =>
  url.hostname
    .toLowerCase()
    .replace(/^\[(.*)\]$/, '$1')
    .replace(/\.$/, '');

/** Whether the URL's host is blocked: a blocked name blocks its subdomains too. */
export function isBlocked(url: string | URL, blocked: string[]): boolean {
  let host: string;
  try {
    host = hostName(new URL(url));
  } catch {
    return true;
  }
  return blocked.some((b) => host === b.replace(/^\[(.*)\]$/, '$1') || host.endsWith(`.${b}`));
}

/** A document that could not be read: why, in words an administrator reads. */
export class RemoteUnreadable extends Error {}

export interface RemoteAnswer {
  status: number;
  /** The body as JSON, when the answer was a 2xx with a JSON body. */
  json?: Record<string, unknown>;
}

/** GETs the URL; throws RemoteUnreadable when it may not be asked or does not answer. */
export async function fetchRemote(url: string, access: RemoteAccess, accept = AS_ACCEPT): Promise<RemoteAnswer> {
  if (isBlocked(url, access.blockedHosts)) throw new RemoteUnreadable(`${url}: its host is blocked`);
  let answer;
  try {
    answer = await guardedFetch(url, {
      headers: { accept, 'user-agent': 'calendar-events-service (federation)' },
      allowPrivate: access.allowPrivateAddresses,
      maxBytes: MAX_DOCUMENT_BYTES,
      timeoutMs: access.timeoutSeconds * 1000,
      // Redirects stay on the document's own origin (checked below), as an id must.
      maxRedirects: 3,
    });
  } catch (err) {
    throw new RemoteUnreadable(`${url}: ${(err as Error).message}`, { cause: err });
  }
  if (answer.url.origin !== new URL(url).origin) {
    throw new RemoteUnreadable(`${url} redirected to another server (${answer.url.origin})`);
  }
  if (answer.status < 200 || answer.status >= 300) return { status: answer.status };
  try {
    const json: unknown = JSON.parse(new TextDecoder().decode(answer.bytes));
    return json && typeof json === 'object' && !Array.isArray(json)
      ? { status: answer.status, json: json as Record<string, unknown> }
      : { status: answer.status };
  } catch {
    return { status: answer.status };
  }
}

/** The document at the URL, which must be JSON; throws RemoteUnreadable otherwise. */
export async function fetchDocument(url: string, access: RemoteAccess, accept = AS_ACCEPT) {
  const answer = await fetchRemote(url, access, accept);
  if (!answer.json) throw new RemoteUnreadable(`${url} answered ${answer.status}, not a JSON document`);
  return answer.json;
}
