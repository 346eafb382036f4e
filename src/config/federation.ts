// Federation over ActivityPub (src/federation/, docs/federation.md): on only when PUBLIC_URL says
// where the service is reached, since every ActivityPub id is built from it and must never change.
import { ConfigError, flag, positiveInteger, positiveSeconds } from './read.js';

export interface FederationSettings {
  /** The site's public address (PUBLIC_URL), from which every id is built. */
  site: string;
  /** The actor's display name and summary, and its icon (an image's URL, from the media library). */
  name: string;
  summary: string;
  iconUrl?: string;
  /** Follows wait for an administrator's approval instead of being accepted at once. */
  approveFollows: boolean;
  /** Fetches and deliveries may reach private and loopback addresses (tests on loopback only). */
  allowPrivateAddresses: boolean;
  /** One delivery attempt's time limit. */
  timeoutSeconds: number;
  /** The first retry's delay; later ones grow from it (deliver.ts RETRY_STEPS). */
  retryBaseMs: number;
  /** Hosts whose activities are refused and whose actors are not followed; each blocks its subdomains too. */
  blockedHosts: string[];
  /** The most events one followed source may bring: past it, new ones are left out (updates go on). */
  maxEventsPerSource: number;
  /** Activities the inboxes take from one remote server (and client address) a minute; more answer 429. */
  inboxPerMinute: number;
}

/**
 * The settings, or undefined (federation off) when PUBLIC_URL is unset, names a path (WebFinger and
 * NodeInfo live at the host's root, /.well-known/, which a service under a path does not answer),
 * or FEDERATION_OFF is set.
 */
export function federationSettings(env: NodeJS.ProcessEnv, site: string | undefined): FederationSettings | undefined {
  if (!site || flag(env, 'FEDERATION_OFF') || !['', '/'].includes(new URL(site).pathname)) return undefined;
  const iconUrl = env.FEDERATION_ICON_URL || undefined;
  if (iconUrl !== undefined && !/^https?:\/\//.test(iconUrl)) {
    throw new ConfigError('FEDERATION_ICON_URL must be an http(s) URL, such as an image of the media library');
  }
  return {
    site: new URL(site).origin,
    name: env.FEDERATION_NAME || 'Events',
    summary: env.FEDERATION_SUMMARY || '',
    iconUrl,
    approveFollows: flag(env, 'FEDERATION_APPROVE_FOLLOWS'),
    allowPrivateAddresses: flag(env, 'FEDERATION_ALLOW_PRIVATE_ADDRESSES'),
    timeoutSeconds: positiveSeconds(env, 'FEDERATION_TIMEOUT_SECONDS', 10),
    retryBaseMs: positiveInteger(env, 'FEDERATION_RETRY_BASE_MS', 5000),
    blockedHosts: blockedHosts(env.FEDERATION_BLOCKED_HOSTS ?? ''),
    maxEventsPerSource: positiveInteger(env, 'FEDERATION_MAX_EVENTS_PER_SOURCE', 2000),
    inboxPerMinute: positiveInteger(env, 'FEDERATION_INBOX_PER_MINUTE', 300),
  };
}

/** FEDERATION_BLOCKED_HOSTS: host names, separated by commas or spaces, lower-cased; a URL or a port is an error. */
function blockedHosts(value: string): string[] {
  const hosts = value
    .split(/[\s,]+/)
    .map((host) => host.trim().toLowerCase())
    .filter(Boolean);
  const wrong = hosts.find((host) => !/^[a-z0-9.-]+$/.test(host) && !/^\[?[0-9a-f:.]+\]?$/.test(host));
  if (wrong !== undefined) {
    throw new ConfigError(
      `FEDERATION_BLOCKED_HOSTS: "${wrong}" is not a host name (write example.org, which blocks its subdomains too)`,
    );
  }
  return hosts;
}
