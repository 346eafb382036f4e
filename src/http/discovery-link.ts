// Every REST response names the API root, as WordPress's do, so that a client holding any response
// can find the index of the whole API: `Link: <https://example.org/wp-json/>; rel="https://api.w.org/"`.
import type { NextFunction, Request, Response } from 'express';
import type { Config } from '../config.js';
import type { LocaleInfo } from './locale.js';
import { requestUrls } from './urls.js';

export const API_ROOT_REL = 'https://api.w.org/';

export function discoveryLink(config: Config) {
  return (req: Request, res: Response, next: NextFunction) => {
    const { root } = requestUrls(req, config, (res.locals.locale as LocaleInfo).segment);
    res.append('Link', `<${root}/>; rel="${API_ROOT_REL}"`);
    next();
  };
}
