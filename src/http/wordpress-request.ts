// Two ways WordPress lets a client reach a route that its own server makes hard to reach, which
// clients of the modelled service use:
// - `?rest_route=/calendar/events/v1/events` on the site root, for sites without pretty URLs;
// - `_method=DELETE` (query) or `X-HTTP-Method-Override: DELETE` on a POST, for clients and proxies
//   that only send GET and POST. Without it `POST ?_method=DELETE` was taken as an update, and a
//   client believed it had deleted what it had changed. A method no route has (`_method=delte`) is
//   that method too, so it finds no route (404), as in WordPress, rather than passing as the POST.
//   Only a POST is overridden: a GET that deletes could be sent by any link or prefetcher.
import type { NextFunction, Request, Response } from 'express';
import { innerOf } from './batch.js';
import { noRoute } from './errors.js';

const ROUTED = new Set(['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);

/** Routes `/?rest_route=/x` and `/index.php?rest_route=/x` as `{restPrefix}/x`. */
export function restRoute(restPrefix: string) {
  return (req: Request, _res: Response, next: NextFunction) => {
    const [path, search = ''] = splitUrl(req.url);
    if (path === '/' || path === '/index.php') {
      const route = new URLSearchParams(search).get('rest_route');
      if (route !== null) {
        const rest = without(search, 'rest_route');
        // The route arrives decoded: each segment is encoded again, so that a `?` or `%` in it stays
        // part of the path, as it is in WordPress, instead of starting a query or an escape.
        const encoded = route
          .split('/')
          .filter((segment, i) => i > 0 || segment !== '')
          .map(encodeURIComponent)
          .join('/');
        req.url = `${restPrefix}/${encoded}${rest ? `?${rest}` : ''}`;
      }
    }
    next();
  };
}

/** A POST that names another method (`_method` or X-HTTP-Method-Override) is that method. */
export function methodOverride() {
  return (req: Request, _res: Response, next: NextFunction) => {
    // A batch's request has the method its item names, nothing else (http/batch.ts).
    if (req.method === 'POST' && !innerOf(req)) {
      const [path, search = ''] = splitUrl(req.url);
      const wanted = (new URLSearchParams(search).get('_method') ?? req.get('x-http-method-override'))?.toUpperCase();
      if (wanted !== undefined) {
        // HEAD would end the answer without the body that the POST's framing promised: a GET it is.
        const method = wanted === 'HEAD' ? 'GET' : wanted;
        if (!ROUTED.has(method)) {
          next(noRoute());
          return;
        }
        req.method = method;
        const rest = without(search, '_method');
        req.url = `${path}${rest ? `?${rest}` : ''}`;
      }
    }
    next();
  };
}

function splitUrl(url: string): [string, string?] {
  const at = url.indexOf('?');
  return at < 0 ? [url] : [url.slice(0, at), url.slice(at + 1)];
}

/** The query string without one parameter, the others exactly as they were written. */
function without(search: string, name: string): string {
  return search
    .split('&')
    .filter((pair) => new URLSearchParams(pair).keys().next().value !== name)
    .join('&');
}
