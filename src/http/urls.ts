// The URLs a response refers to, built from the request that came in (scheme, host, locale segment
// and REST prefix), so that links work behind any host name and in every locale.
import type { Request } from 'express';
import type { Config } from '../config.js';

export const NAMESPACE = 'calendar/events/v1';

export interface Urls {
  /** Scheme and host, e.g. `https://example.org`: the site, for permalinks. */
  site: string;
  /** The REST root, e.g. `https://example.org/fr/wp-json`. */
  root: string;
  /** The namespace base, e.g. `https://example.org/wp-json/calendar/events/v1`. */
  base: string;
}

export function requestUrls(req: Request, config: Config, localeSegment: string | undefined): Urls {
  // Forwarded headers count only when the peer that sent them is a proxy we trust.
  const fromProxy = config.trustProxy !== false && (req.app.get('trust proxy fn') as (address: string, hop: number) => boolean)(req.socket.remoteAddress ?? '', 0);
  const forwarded = (name: string) => (fromProxy ? String(req.headers[name] ?? '').split(',')[0].trim() || undefined : undefined);
  const proto = forwarded('x-forwarded-proto') ?? (req.socket && 'encrypted' in req.socket ? 'https' : 'http');
  const host = forwarded('x-forwarded-host') ?? req.headers.host ?? `${config.host}:${config.port}`;
  const site = `${proto}://${host}`;
  const root = `${site}${localeSegment ? `/${localeSegment}` : ''}${config.restPrefix}`;
  return { site, root, base: `${root}/${NAMESPACE}` };
}
