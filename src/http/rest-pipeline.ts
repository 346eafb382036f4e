// The REST pipeline: a request under the namespace (or the batch route) matched to its operation,
// answered from the kept answers or run through openapi-backend (security, validation, the
// handler: http/operation-handlers.ts), then rendered with what `_embed` asks for.
import type { NextFunction, Request, Response } from 'express';
import type { OpenAPIBackend, Operation } from 'openapi-backend';
import type { OpenAPIV3_1 } from 'openapi-types';
import { OPERATION_LOCAL } from '../metrics/http.js';
import { operationsByRoute, type RouteOperations, usableMethods } from './allowed-methods.js';
import type { AnswerCache, KeptAnswer } from './answer-cache.js';
import { requestBody } from './body.js';
import { noneMatch } from '../domain/entity-tags.js';
import { embedLinks, followThrough, wantedRelations } from './embed.js';
import { noRoute } from './errors.js';
import type { Reply } from './handler.js';
import { mayKeep, sendKept } from './kept-answers.js';
import type { LocaleInfo } from './locale.js';
import { normalizeQuery } from './query.js';
import { renderReply, sendRendered } from './reply.js';
import { callerOfResponse } from './security.js';
import { answerUnmatched, type UnmatchedDeps } from './unmatched-requests.js';
import { decodes, requestUrls, type Urls } from './urls.js';

export interface PipelineDeps extends UnmatchedDeps {
  /** Answers to anonymous reads, unless RESPONSE_CACHE_MB is 0 (http/kept-answers.ts). */
  answers?: AnswerCache;
}

/** The middleware that answers a request with the document's operations. */
export function restPipeline(api: OpenAPIBackend, deps: PipelineDeps) {
  const routes = operationsByRoute(api);
  return (req: Request, res: Response, next: NextFunction) => {
    dispatch(api, routes, deps, req, res).catch(next);
  };
}

async function dispatch(
  api: OpenAPIBackend,
  routes: RouteOperations,
  deps: PipelineDeps,
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
  const cached = mayKeep(operation) ? await deps.answers?.lookup(req, urls) : undefined;
  if (cached && 'kept' in cached) {
    await sendKept(deps.rateLimits, routes.get(operation.path) ?? [], req, res, cached.kept);
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
  deps: PipelineDeps,
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

/** Embeds in a successful JSON reply the linked objects `_embed` asks for; answers how many it charged. */
async function embedWanted(
  api: OpenAPIBackend,
  { rateLimits }: PipelineDeps,
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
