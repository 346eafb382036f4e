// The URLs a response refers to. Links into the API are built from the request that came in (scheme,
// host, locale segment and REST prefix), so that they work behind any host name and in every locale.
// Identities and permalinks are not: they come from the configured public address (PUBLIC_URL), else
// the address the service listens on, so that the same event has the same global ID, iCalendar UID
// and page whether a client called it localhost or 127.0.0.1 (a calendar subscribed under both shows
// one event, not two).
import type { NextFunction, Request, Response } from 'express';
import type { Config } from '../config.js';
import { ApiError } from './errors.js';

export const NAMESPACE = 'calendar/events/v1';

export interface Urls {
  /** The site's public address, e.g. `https://example.org`: for identities and permalinks. */
  site: string;
  /** The REST root, e.g. `https://example.org/fr/wp-json`. */
  root: string;
  /** The namespace base, e.g. `https://example.org/wp-json/calendar/events/v1`. */
  base: string;
}

/** A host name, IPv4 address or bracketed IPv6 address, with an optional port. */
const HOST = /^(?:[A-Za-z0-9.-]{1,253}|\[[0-9A-Fa-f:.]{2,45}\])(?::\d{1,5})?$/;

/** The scheme and host a request was made to, as the client or a trusted proxy says. */
function origin(req: Request, config: Config): { proto: string; host: string } {
  // Forwarded headers count only when the peer that sent them is a proxy we trust.
  const fromProxy =
    config.trustProxy !== false &&
    (req.app.get('trust proxy fn') as (address: string, hop: number) => boolean)(req.socket.remoteAddress ?? '', 0);
  const forwarded = (name: string) =>
    fromProxy
      ? String(req.headers[name] ?? '')
          .split(',')[0]
          .trim() || undefined
      : undefined;
  // Typed as always there; a request built without a connection has none.
  const socket = req.socket as Request['socket'] | null | undefined;
  const proto = forwarded('x-forwarded-proto') ?? (socket && 'encrypted' in socket ? 'https' : 'http');
  // Without a Host (HTTP/1.0), the address we listen on; an IPv6 one in brackets.
  const listening = config.host.includes(':') ? `[${config.host}]` : config.host;
  const host = forwarded('x-forwarded-host') ?? req.headers.host ?? `${listening}:${config.port}`;
  return { proto, host };
}

/** Whether the request names a host its links can be built from (hostCheck refuses the others). */
export function hasValidHost(req: Request, config: Config): boolean {
  const { proto, host } = origin(req, config);
  return HOST.test(host) && (proto === 'http' || proto === 'https') && URL.canParse(`${proto}://${host}`);
}

/**
 * 400 for a request whose Host (or trusted X-Forwarded-Host/-Proto) is no host: every link into the
 * API is built from it, and `[::1` made URL parsing throw deep inside a handler. HOST keeps out what
 * would change the URL's meaning (`@`, `/`, `?`); the URL parser must accept the rest: it refuses
 * hosts of HOST's shape such as `256.1.1.1`, `[1:2]` or a port above 65535.
 */
export function hostCheck(config: Config) {
  return (req: Request, _res: Response, next: NextFunction) => {
    if (!hasValidHost(req, config)) {
      next(
        new ApiError(
          400,
          'rest_invalid_host',
          'The Host header (or X-Forwarded-Host/-Proto from a trusted proxy) is not a valid host.',
        ),
      );
      return;
    }
    next();
  };
}

export function requestUrls(req: Request, config: Config, localeSegment: string | undefined): Urls {
  const { proto, host } = origin(req, config);
  const root = `${proto}://${host}${localeSegment ? `/${localeSegment}` : ''}${config.restPrefix}`;
  return { site: config.publicUrl ?? listeningAddress(req, config), root, base: `${root}/${NAMESPACE}` };
}

/** The URLs of what the service sends outside any request (webhook messages): all from the site's address. */
export function configuredUrls(config: Config, port: number): Urls {
  const site = config.publicUrl ?? `http://${listeningHost(config)}:${port}`;
  const root = `${site}${config.restPrefix}`;
  return { site, root, base: `${root}/${NAMESPACE}` };
}

/**
 * `http://` and the address the service listens on: `HOST` (`localhost` when it is every interface,
 * which names none) and the port it got (`PORT=0` picks one).
 */
function listeningAddress(req: Request, config: Config): string {
  const host = listeningHost(config);
  // Typed as always there; a request built without a connection has none.
  const port = (req.socket as Request['socket'] | null | undefined)?.localPort ?? config.port;
  return `http://${host}:${port}`;
}

/** `HOST` as a URL's host: `localhost` when it is every interface (which names none), an IPv6 address in brackets. */
export function listeningHost(config: Config): string {
  const everywhere = config.host === '0.0.0.0' || config.host === '::' || config.host === '';
  if (everywhere) return 'localhost';
  return config.host.includes(':') ? `[${config.host}]` : config.host;
}

/** Whether a path's percent-escapes are UTF-8 (`%ED%A0%80` is not): one that is not names no route. */
export function decodes(path: string): boolean {
  try {
    decodeURIComponent(path);
    return true;
  } catch {
    return false;
  }
}
