// A request under the namespace that no operation takes: OPTIONS describes the route, another
// method of a route is 405, anything else 404.
import type { Request, Response } from 'express';
import type { OpenAPIBackend } from 'openapi-backend';
import type { Caller } from '../auth/roles.js';
import type { Config } from '../config.js';
import { routeOfPath } from '../discovery/namespace-index.js';
import { documentLanguage, localizedDocument } from '../openapi.js';
import { type RouteOperations, usableMethods } from './allowed-methods.js';
import { requestTime } from './answer-cache.js';
import { methodsOfPath } from './backend.js';
import { methodNotAllowed, noRoute } from './errors.js';
import type { LocaleInfo } from './locale.js';
import type { RateLimits } from './rate-limits.js';
import { sendReply } from './reply.js';
import { requestUrls } from './urls.js';

export interface UnmatchedDeps {
  config: Config;
  rateLimits: RateLimits;
  /** The caller of a request no operation answers (http/security.ts registerSecurity). */
  identify: (req: Request, res: Response) => Promise<Caller>;
}

export async function answerUnmatched(
  api: OpenAPIBackend,
  routes: RouteOperations,
  deps: UnmatchedDeps,
  req: Request,
  res: Response,
  path: string,
): Promise<void> {
  const allowed = methodsOfPath(api, path);
  if (!allowed.length) throw noRoute();
  if (req.method === 'OPTIONS') {
    await describeRoute(api, routes, deps, req, res, { path, method: allowed[0] });
    return;
  }
  throw methodNotAllowed(req.method, allowed);
}

/**
 * Answers an OPTIONS request that is not a CORS preflight (the cors middleware answers those):
 * describes the route, its endpoints and their arguments, as WordPress does, and says in Allow what
 * it allows. `method` is one the route has. A path whose variables do not validate (`/events/abc`)
 * is no route, as for every other method.
 */
async function describeRoute(
  api: OpenAPIBackend,
  routes: RouteOperations,
  { config, rateLimits, identify }: UnmatchedDeps,
  req: Request,
  res: Response,
  { path, method }: { path: string; method: string },
): Promise<void> {
  const described = api.router.matchOperation({ method, path, headers: {} });
  const checked = described && api.validator.validateRequest({ method, path, headers: {} }, described);
  if (checked?.errors?.some((e) => e.instancePath.startsWith('/path'))) throw noRoute();
  const template = described?.path ?? path;
  const locale = res.locals.locale as LocaleInfo;
  const document = localizedDocument(documentLanguage(locale.tag));
  const urls = requestUrls(req, config, locale.segment);
  const route = routeOfPath(document, template, urls, config.siteTimezone, requestTime(res));
  // No security handler runs for it: it finds its caller itself, and counts as a read. The body
  // describes every endpoint, Allow only what this caller may use, as WordPress does.
  const caller = await identify(req, res);
  await rateLimits.take('reads', { caller, address: req.ip }, res);
  const usable = usableMethods(routes.get(template) ?? [], caller);
  const allow = ['OPTIONS', ...usable, ...(usable.includes('GET') ? ['HEAD'] : [])].join(', ');
  sendReply(req, res, { body: route, headers: { Allow: allow } });
}
