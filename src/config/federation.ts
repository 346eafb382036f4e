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
  };
}
