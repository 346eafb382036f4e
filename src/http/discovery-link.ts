// Every response names the API root, as WordPress's do, so that a client holding any response (an
// error, a preflight, a probe's) can find the index of the whole API:
// `Link: <https://example.org/wp-json/>; rel="https://api.w.org/"`. Not a request whose Host is no
// host (http/urls.ts hostCheck answers it 400): no root can be named from it.
import type { NextFunction, Request, Response } from 'express';
import type { Config } from '../config.js';
import type { LocaleInfo } from './locale.js';
import { hasValidHost, requestUrls } from './urls.js';

export const API_ROOT_REL = 'https://api.w.org/';

export function discoveryLink(config: Config) {
  return (req: Request, res: Response, next: NextFunction) => {
    if (hasValidHost(req, config)) {
      const { root } = requestUrls(req, config, (res.locals.locale as LocaleInfo).segment);
      res.append('Link', `<${root}/>; rel="${API_ROOT_REL}"`);
    }
    next();
  };
}
