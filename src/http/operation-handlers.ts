// The handlers registered with openapi-backend: each operation's handler (handlers/index.ts) given
// its typed Call, creates that take an Idempotency-Key wrapped by http/idempotency.ts, the batch
// route, and what a request that fails validation or matches nothing becomes.
import type { RequestListener } from 'node:http';
import type { Request, Response } from 'express';
import type { Context, OpenAPIBackend } from 'openapi-backend';
import type { OpenAPIV3_1 } from 'openapi-types';
import type { Config } from '../config.js';
import type { Database } from '../db/client.js';
import { handlers } from '../handlers/index.js';
import { documentLanguages } from '../openapi.js';
import { serviceContext } from '../services/context.js';
import { requestTime } from './answer-cache.js';
import { innerOf, runBatch } from './batch.js';
import { ifMatchPrecondition } from './conditional.js';
import { noRoute } from './errors.js';
import type { Call, Handler } from './handler.js';
import { idempotent, takesIdempotencyKey } from './idempotency.js';
import type { LocaleInfo } from './locale.js';
import { decodeFlags } from './query.js';
import { callerOfResponse } from './security.js';
import { requestUrls } from './urls.js';
import { validationError } from './validation.js';

export interface HandlerDeps {
  config: Config;
  db: Database;
  /** The whole app, which the batch route answers each of its requests with (http/batch.ts). */
  app: RequestListener;
  onServerError?: (err: unknown, req: Request) => void;
}

export function registerHandlers(api: OpenAPIBackend, deps: HandlerDeps) {
  const toCall = callOf(deps);
  const idempotentOnes = takesIdempotencyKey(api);
  const wrapped = Object.fromEntries(
    Object.entries(handlers).map(([operationId, plain]) => {
      // Each handler takes its own operation's Call; toCall builds the Call of the operation matched.
      const handler = plain as Handler;
      const create = idempotentOnes.has(operationId) ? idempotent(operationId, handler) : undefined;
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

/**
 * The one place where openapi-backend's untyped context becomes the typed Call of the operation:
 * validation has checked it against the document the types are generated from.
 */
function callOf({ config, db }: HandlerDeps) {
  return (c: Context, req: Request, res: Response): Call => {
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
      urls: requestUrls(req, config, locale.segment),
      // The locale segment decides; without one, the languages the client accepts (Accept-Language).
      locale: locale.segment ? locale.tag : req.acceptsLanguages(documentLanguages()) || 'en',
      localeFromPath: locale.segment !== undefined,
      accepts: (types: string[]) => req.accepts(types),
      header: (name: string) => req.get(name),
      address: req.ip,
      context: serviceContext(config, {
        // A batch's request with `require-all-validate` writes in the batch's transaction.
        db: innerOf(req)?.db ?? db.prisma,
        caller: callerOfResponse(res),
        now: () => requestTime(res),
        precondition: ifMatchPrecondition(req.headers['if-match']),
      }),
      config,
    };
  };
}
