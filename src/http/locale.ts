// The optional locale segment before the REST prefix (`/fr/wp-json/...`, `/pt-br/...`, `/pt_BR/...`).
// It is taken off the URL before routing, so every route behaves the same in every locale.
import type { NextFunction, Request, Response } from 'express';

const LOCALE_SEGMENT = /^\/([a-zA-Z]{2,3}(?:[-_][a-zA-Z0-9]{2,8})?)(?=\/)/;

export interface LocaleInfo {
  /** The segment as written in the URL, kept in the links we build. */
  segment?: string;
  /** Normalized language tag, e.g. `pt-BR`; `en` when there is no segment. */
  tag: string;
}

export function localeMiddleware(restPrefix: string) {
  return (req: Request, res: Response, next: NextFunction) => {
    const match = LOCALE_SEGMENT.exec(req.url);
    const rest = match ? req.url.slice(match[0].length) : '';
    const underPrefix = rest === restPrefix || rest.startsWith(`${restPrefix}/`) || rest.startsWith(`${restPrefix}?`);
    // `/fr/?rest_route=/...`: the same route without pretty URLs (http/wordpress-request.ts). The
    // REST prefix itself looks like a segment (`/wp-json/?_fields=...`) and is none.
    const plainRoute =
      (rest.startsWith('/?') || rest.startsWith('/index.php?')) &&
      match?.[0] !== restPrefix &&
      new URLSearchParams(rest.slice(rest.indexOf('?') + 1)).has('rest_route');
    if (match && (underPrefix || plainRoute)) {
      req.url = rest || '/';
      const [language, region] = match[1].split(/[-_]/);
      res.locals.locale = {
        segment: match[1],
        tag: region ? `${language.toLowerCase()}-${region.toUpperCase()}` : language.toLowerCase(),
      } satisfies LocaleInfo;
    } else {
      res.locals.locale = { tag: 'en' } satisfies LocaleInfo;
    }
    next();
  };
}
