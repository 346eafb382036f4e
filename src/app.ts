// createApp wires Express, the locale segment, body parsing and openapi-backend together. It never
// listens; server.ts does.
import type { RequestListener } from 'node:http';
import express, { type NextFunction, type Request, type Response } from 'express';
import type { Context, OpenAPIBackend, Operation } from 'openapi-backend';
import type { OpenAPIV3_1 } from 'openapi-types';
import type { Logger } from 'pino';
import type { Config } from './config.js';
import { restRoot } from './discovery/rest-root.js';
import { siteRoot } from './discovery/site-root.js';
import { publicPages } from './pages/routes.js';
import { mediaFiles } from './http/media-files.js';
import { uploadBody } from './http/upload-body.js';
import type { Database } from './db/client.js';
import { handlers } from './handlers/index.js';
import { compileValidators, createBackend, METHODS, methodsOfPath } from './http/backend.js';
import { mayCall } from './auth/permissions.js';
import type { Caller } from './auth/roles.js';
import { callerOfResponse, COUNTED, registerSecurity } from './http/security.js';
import { busy as imagesBusy } from './media/images.js';
import { MediaRefused } from './domain/errors.js';
import { ifMatchPrecondition, noneMatch } from './http/conditional.js';
import { bodyParserError, bodyParsers, requestBody } from './http/body.js';
import { discoveryLink } from './http/discovery-link.js';
import { embedLinks, followThrough, wantedRelations } from './http/embed.js';
import { methodOverride, restRoute } from './http/wordpress-request.js';
import { renderReply, sendRendered, sendReply } from './http/reply.js';
import { setAnswerBudget } from './http/json-within.js';
import { AnswerCache, type KeptAnswer, requestTime } from './http/answer-cache.js';
import { dataVersions } from './db/data-version.js';
import { ApiError, methodNotAllowed, noRoute, toApiError } from './http/errors.js';
import { hardening, requestId } from './http/hardening.js';
import { requestLog } from './http/request-log.js';
import { health } from './http/health.js';
import { idempotent } from './http/idempotency.js';
import { BATCH_PATH, innerOf, runBatch } from './http/batch.js';
import { davRoutes } from './caldav/routes.js';
import type { Call, Handler, Reply } from './http/handler.js';
import { type LocaleInfo, localeMiddleware } from './http/locale.js';
import { decodeFlags, normalizeQuery } from './http/query.js';
import { decodes, hostCheck, NAMESPACE, requestUrls, type Urls } from './http/urls.js';
import { countOtherReads, createRateLimits, type RateLimits } from './http/rate-limits.js';
import { validationError } from './http/validation.js';
import {
  assertDocumentationBuilt,
  documentLanguage,
  documentLanguages,
  loadDocument,
  localizedDocument,
} from './openapi.js';
import { routeOfPath } from './discovery/namespace-index.js';
import { sampleLoopDelay } from './metrics/event-loop.js';
import { trackFeedLag } from './metrics/registry.js';
import { selectFeedLag } from './queries/changes.js';
import { measureRequests, OPERATION_LOCAL, protectedMetrics } from './metrics/http.js';

export interface AppOptions {
  config: Config;
  db: Database;
  /** Called with every failure that becomes a 5xx, for logging. */
  onServerError?: (err: unknown, req: Request) => void;
  /** Logs one line per request (method, URL, status, time); never headers or bodies. */
  logger?: Logger;
  /** Called after each write that succeeded (webhooks look for new changes at once). */
  afterWrite?: () => void;
}

export function createApp({ config, db, onServerError, logger, afterWrite }: AppOptions) {
  assertDocumentationBuilt();
  const api = createBackend(loadDocument());
  const rateLimits = createRateLimits(config.rateLimits, db.connectionString);
  const identify = registerSecurity(api, { config, db, rateLimits });
  const feedLag = () => selectFeedLag(db.prisma);
  const probes = health(db, feedLag);
  const untrackFeedLag = trackFeedLag(feedLag);
  const routes = operationsByRoute(api);
  const answers =
    config.responseCacheMegabytes > 0
      ? new AnswerCache(dataVersions(db.prisma), config.responseCacheMegabytes)
      : undefined;

  sampleLoopDelay();
  const app = express();
  // The batch route answers each of its requests with this whole app (http/batch.ts).
  registerHandlers(api, { config, db, app, onServerError });
  app.disable('x-powered-by');
  // req.ip, which keys the sign-in throttle, comes from X-Forwarded-For only behind a trusted proxy.
  app.set('trust proxy', config.trustProxy);
  app.use(requestId());
  app.use(measureRequests());
  if (logger) app.use(requestLog(logger));
  if (afterWrite) app.use(notifyWrites(afterWrite));
  app.use(localeMiddleware(config.restPrefix));
  app.use(discoveryLink(config));
  app.use(hardening(config));
  app.use(hostCheck(config));
  app.use(probes.router);
  if (config.metrics.token) app.use(protectedMetrics(config.metrics.token));
  // CalDAV reads its own bodies (XML, iCalendar), before the API's parsers (caldav/routes.ts).
  app.use(davRoutes({ config, db, identify, rateLimits, onServerError }));
  setAnswerBudget(app, config.answerMaxBytes);
  app.set('etag', false); // Express's weak ETag would hide our strong one (http/conditional.ts)
  app.set('query parser', false); // normalizeQuery reads the raw query against the document
  app.use(restRoute(config.restPrefix));
  app.use(methodOverride());
  // An upload's body is the image, read before (and instead of) the JSON and form parsers.
  app.use(
    uploadBody(`${config.restPrefix}/${NAMESPACE}/media`, config.media.maxBytes, async (req, res) => {
      const caller = await identify(req, res);
      await rateLimits.take('writes', { caller, address: req.ip }, res);
      res.locals[COUNTED] = true;
      if (!mayCall(caller, 'uploadMedia')) return false;
      if (imagesBusy())
        throw new MediaRefused('busy', 'This instance is making as many images as it takes; try again in a moment.');
      return true;
    }),
  );
  app.use(bodyParsers());

  // What lies outside the document's operations costs a read too (they count their own).
  app.use(countOtherReads(rateLimits, `${config.restPrefix}/${NAMESPACE}`));
  // The REST root and the site root lie outside the namespace, so outside the document's paths.
  app.all(config.restPrefix, restRoot(config));
  app.get('/', siteRoot(config));
  // The public pages that `url`s name (/event/<slug>/, /venue/<slug>/, /organizer/<slug>/).
  app.use(publicPages(config, db.prisma));
  // The media library's files (/uploads/<id>/<name>), which items' `image` objects name.
  app.use(mediaFiles(db.prisma));
  const dispatching = { config, rateLimits, identify, answers };
  // WordPress's batch route lies beside the namespace, under the REST prefix, where the document's
  // path-level server puts it (openapi/paths/batch_v1.yaml). Tools that read only the document's
  // top-level server (Postman's converter) send it under the namespace, where it is answered too.
  app.use(config.restPrefix, (req, res, next) => {
    if (req.path === BATCH_PATH) dispatch(api, routes, dispatching, req, res).catch(next);
    else next();
  });
  app.use(`${config.restPrefix}/${NAMESPACE}`, (req, res, next) => {
    dispatch(api, routes, dispatching, req, res).catch(next);
  });
  app.use((_req, _res, next) => {
    next(noRoute());
  });
  app.use((err: unknown, req: Request, res: Response, _next: NextFunction) => {
    const error = bodyParserError(err) ?? toApiError(err);
    if (error.status >= 500 && !(err instanceof ApiError)) onServerError?.(err, req);
    sendReply(req, res, { status: error.status, body: error.toBody(), headers: error.headers });
  });
  return Object.assign(app, {
    drain: probes.drain,
    ready: () => rateLimits.ready(),
    close: () => {
      untrackFeedLag();
      return rateLimits.close();
    },
    /** Prepares what the first request of each operation would otherwise prepare. */
    warmUp: () => compileValidators(api),
  });
}

/** The operations of each route (path template), found once: every answer's Allow lists them. */
function operationsByRoute(api: OpenAPIBackend): Map<string, Operation[]> {
  const routes = new Map<string, Operation[]>();
  for (const operation of api.router.getOperations()) {
    routes.set(operation.path, [...(routes.get(operation.path) ?? []), operation]);
  }
  return routes;
}

interface DispatchDeps {
  config: Config;
  rateLimits: RateLimits;
  /** The caller of a request no operation answers (OPTIONS). */
  identify: (req: Request, res: Response) => Promise<Caller>;
  /** Answers to anonymous reads, unless RESPONSE_CACHE_MB is 0. */
  answers?: AnswerCache;
}

/** The methods of a route (by its operations) that this caller may use, in METHODS order. */
function usableMethods(operations: Operation[], caller: Caller): string[] {
  const usable = new Set(
    operations
      .filter((candidate) => mayCall(caller, candidate.operationId ?? ''))
      .map((candidate) => candidate.method.toUpperCase()),
  );
  return METHODS.filter((m) => usable.has(m));
}

async function dispatch(
  api: OpenAPIBackend,
  routes: Map<string, Operation[]>,
  deps: DispatchDeps,
  req: Request,
  res: Response,
): Promise<void> {
  const method = req.method === 'HEAD' ? 'GET' : req.method;
  const path = req.path || '/';
  // Percent-escapes that are not UTF-8 (`%ED%A0%80`) name no route; decoding them later would throw.
  if (!decodes(path)) throw noRoute();
  const search = req.url.includes('?') ? req.url.slice(req.url.indexOf('?') + 1) : '';
  const operation = api.router.matchOperation({ method, path, headers: {} });
  if (!operation) {
    await answerUnmatched(api, routes, deps, req, res, path);
    return;
  }
  res.locals[OPERATION_LOCAL] = operation.operationId;
  const urls = requestUrls(req, deps.config, (res.locals.locale as LocaleInfo).segment);
  const cached = await deps.answers?.lookup(req, urls);
  if (cached && 'kept' in cached) {
    await sendKept(deps, routes.get(operation.path) ?? [], req, res, cached.kept);
    return;
  }
  const asked = { req, res, operation, method, path, search, urls };
  try {
    const answer = await buildAnswer(api, deps, routes.get(operation.path) ?? [], asked);
    if (cached) cached.keep(answer, res);
    sendRendered(req, res, answer.rendered);
  } catch (err) {
    if (cached) cached.abandon();
    throw err;
  }
}

interface Asked {
  req: Request;
  res: Response;
  operation: Operation;
  method: string;
  path: string;
  search: string;
  urls: Urls;
}

/** Runs the operation and renders its reply, with what `_embed` asks for. */
async function buildAnswer(
  api: OpenAPIBackend,
  deps: DispatchDeps,
  routeOperations: Operation[],
  { req, res, operation, method, path, search, urls }: Asked,
): Promise<KeptAnswer> {
  let reply: Reply;
  try {
    reply = (await api.handleRequest(
      {
        method,
        path,
        query: normalizeQuery(search, operation.parameters as OpenAPIV3_1.ParameterObject[]),
        body: requestBody(req, operation),
        headers: req.headers as Record<string, string>,
      },
      req,
      res,
    )) as Reply;
  } finally {
    // As WordPress: every answer of a route, errors included, says which of its methods this caller
    // may use (by the role each operation asks for; the objects' own rules are in `_links`).
    res.set('Allow', usableMethods(routeOperations, callerOfResponse(res)).join(', '));
  }
  // A body that takes work to build is built only for a client that does not hold it already. Such
  // an answer is a 304 to this client and nothing to anyone else: it is never kept.
  let whole = true;
  if (reply.build) {
    whole = !reply.etag || noneMatch(req.headers['if-none-match'], reply.etag);
    if (whole) reply.body = await reply.build();
  }
  const embedded = await embedWanted(api, deps, { req, res, search, urls }, reply);
  const unkept = reply.unkept ?? (whole ? undefined : true);
  return { rendered: renderReply(req, res, reply), embedded, unkept };
}

/** A request no operation takes: OPTIONS describes the route, another method of a route is 405, else 404. */
async function answerUnmatched(
  api: OpenAPIBackend,
  routes: Map<string, Operation[]>,
  deps: DispatchDeps,
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
 * Sends an anonymous read the answer kept for it, as it would have been built: counted as a read
 * (and each object it embeds as another), with the methods an anonymous caller may use.
 */
async function sendKept(
  { rateLimits }: DispatchDeps,
  operations: Operation[],
  req: Request,
  res: Response,
  kept: KeptAnswer,
): Promise<void> {
  const anonymous = { caller: null, address: req.ip };
  res.set('Allow', usableMethods(operations, null).join(', '));
  await rateLimits.take('reads', anonymous, res);
  if (kept.embedded) await rateLimits.charge('reads', anonymous, res, kept.embedded);
  sendRendered(req, res, kept.rendered);
}

/**
 * Answers an OPTIONS request that is not a CORS preflight (the cors middleware answers those):
 * describes the route, its endpoints and their arguments, as WordPress does, and says in Allow what
 * it allows. `method` is one the route has. A path whose variables do not validate (`/events/abc`)
 * is no route, as for every other method.
 */
async function describeRoute(
  api: OpenAPIBackend,
  routes: Map<string, Operation[]>,
  { config, rateLimits, identify }: DispatchDeps,
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

/** Embeds in a successful JSON reply the linked objects `_embed` asks for; answers how many it charged. */
async function embedWanted(
  api: OpenAPIBackend,
  { rateLimits }: DispatchDeps,
  { req, res, search, urls }: { req: Request; res: Response; search: string; urls: Urls },
  reply: Reply,
): Promise<number> {
  const wanted = wantedRelations(search);
  let charged = 0;
  if (wanted && !reply.contentType && (reply.status ?? 200) < 300) {
    // Each link followed is a read of the caller's, charged before any is followed.
    const charge = (links: number) => {
      charged += links;
      return rateLimits.charge('reads', { caller: callerOfResponse(res), address: req.ip }, res, links);
    };
    reply.body = await embedLinks(reply.body, wanted, followThrough(api, urls.base, req, res), charge);
  }
  return charged;
}

function registerHandlers(
  api: OpenAPIBackend,
  deps: { config: Config; db: Database; app: RequestListener; onServerError?: AppOptions['onServerError'] },
) {
  // The one place where openapi-backend's untyped context becomes the typed Call of the operation:
  // validation has checked it against the document the types are generated from.
  const toCall = (c: Context, req: Request, res: Response): Call => {
    const locale = res.locals.locale as LocaleInfo;
    const coerced = c.validation.coerced as Partial<Pick<Call, 'params' | 'query'>> | undefined;
    return {
      // Validation coerced the values ("2" to 2); re-parsing the path would undo that.
      params: coerced?.params ?? (c.request.params as Call['params']),
      query: decodeFlags(
        coerced?.query ?? (c.request.query as Call['query']),
        c.operation.parameters as OpenAPIV3_1.ParameterObject[],
      ),
      body: c.request.requestBody as Call['body'],
      search: req.url.includes('?') ? req.url.slice(req.url.indexOf('?') + 1) : '',
      urls: requestUrls(req, deps.config, locale.segment),
      // The locale segment decides; without one, the languages the client accepts (Accept-Language).
      locale: locale.segment ? locale.tag : req.acceptsLanguages(documentLanguages()) || 'en',
      localeFromPath: locale.segment !== undefined,
      accepts: (types: string[]) => req.accepts(types),
      context: {
        // A batch's request with `require-all-validate` writes in the batch's transaction.
        db: innerOf(req)?.db ?? deps.db.prisma,
        caller: callerOfResponse(res),
        siteZone: deps.config.siteTimezone,
        get now() {
          return requestTime(res);
        },
        precondition: ifMatchPrecondition(req.headers['if-match']),
        recurrence: deps.config.recurrence,
        quotas: deps.config.quotas,
      },
      config: deps.config,
    };
  };
  const takesIdempotencyKey = new Set(
    api.router
      .getOperations()
      .filter((operation) =>
        (operation.parameters as OpenAPIV3_1.ParameterObject[] | undefined)?.some(
          (parameter) => parameter.in === 'header' && parameter.name.toLowerCase() === 'idempotency-key',
        ),
      )
      .map((operation) => operation.operationId),
  );
  const wrapped = Object.fromEntries(
    Object.entries(handlers).map(([operationId, plain]) => {
      // Each handler takes its own operation's Call; toCall builds the Call of the operation matched.
      const handler = plain as Handler;
      // The operations whose document takes an Idempotency-Key (the creates; every other operation
      // is a read or idempotent already; not a webhook subscription, whose answer holds a secret
      // shown once, which a replay would store in the clear and show again).
      const create = takesIdempotencyKey.has(operationId) ? idempotent(operationId, handler) : undefined;
      return [
        operationId,
        (c: Context, req: Request, res: Response) =>
          create ? create(toCall(c, req, res), req.get('idempotency-key')) : handler(toCall(c, req, res)),
      ];
    }),
  );
  const batchRequests = (c: Context, req: Request, res: Response) => {
    const call = toCall(c, req, res) as Call<'batchRequests'>;
    const outer = {
      req,
      caller: call.context.caller,
      api,
      app: deps.app,
      db: deps.db,
      restPrefix: deps.config.restPrefix,
      onError: (err: unknown) => deps.onServerError?.(err, req),
    };
    return runBatch(outer, call.body);
  };
  api.register({
    ...wrapped,
    batchRequests,
    validationFail: (c: Context) => {
      throw validationError(c.validation.errors ?? []);
    },
    notFound: () => {
      throw noRoute();
    },
  });
}

/** Calls `afterWrite` when a request that may write (not GET, HEAD or OPTIONS) has been answered with success. */
/** Methods that write nothing: the REST API's reads, and CalDAV's (caldav/routes.ts). */
const READ_METHODS = new Set(['GET', 'HEAD', 'OPTIONS', 'PROPFIND', 'REPORT']);

function notifyWrites(afterWrite: () => void) {
  return (req: Request, res: Response, next: NextFunction) => {
    if (!READ_METHODS.has(req.method)) {
      res.once('finish', () => {
        if (res.statusCode < 400) afterWrite();
      });
    }
    next();
  };
}
