// createApp wires Express, the locale segment, body parsing and openapi-backend together. It never
// listens; server.ts does.
import express, { type NextFunction, type Request, type Response } from 'express';
import type { Context, OpenAPIBackend } from 'openapi-backend';
import type { OpenAPIV3_1 } from 'openapi-types';
import type { Logger } from 'pino';
import { pinoHttp } from 'pino-http';
import type { Config } from './config.js';
import { restRoot } from './discovery/rest-root.js';
import type { Database } from './db/client.js';
import { handlers } from './handlers/index.js';
import { createBackend } from './http/backend.js';
import { callerOfResponse, registerSecurity } from './http/security.js';
import { entityTag, ifMatchPrecondition, noneMatch } from './http/conditional.js';
import { ApiError, invalidParams, noRoute, toApiError } from './http/errors.js';
import { hardening, requestId } from './http/hardening.js';
import { health } from './http/health.js';
import { idempotent } from './http/idempotency.js';
import type { Call, Handler, Reply } from './http/handler.js';
import { type LocaleInfo, localeMiddleware } from './http/locale.js';
import { coerceBodyScalars, illFormedFields, normalizeQuery } from './http/query.js';
import { hostCheck, NAMESPACE, requestUrls } from './http/urls.js';
import { validationError } from './http/validation.js';
import { assertDocumentationBuilt, loadDocument } from './openapi.js';

export const MAX_BODY_BYTES = 1024 * 1024;
const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;
const BODY_METHODS = new Set(['POST', 'PUT', 'PATCH']);

export interface AppOptions {
  config: Config;
  db: Database;
  /** Called with every failure that becomes a 5xx, for logging. */
  onServerError?: (err: unknown, req: Request) => void;
  /** Logs one line per request (method, URL, status, time); never headers or bodies. */
  logger?: Logger;
}

export function createApp({ config, db, onServerError, logger }: AppOptions) {
  assertDocumentationBuilt();
  const api = createBackend(loadDocument());
  registerSecurity(api, { config, db });
  registerHandlers(api, { config, db });
  const probes = health(db);

  const app = express();
  app.disable('x-powered-by');
  // req.ip, which keys the sign-in throttle, comes from X-Forwarded-For only behind a trusted proxy.
  app.set('trust proxy', config.trustProxy);
  app.use(requestId());
  if (logger) app.use(requestLogger(logger));
  app.use(hardening(config));
  app.use(hostCheck(config));
  app.use(probes.router);
  app.set('etag', false); // Express's weak ETag would hide ours (issue: production HTTP behaviour)
  app.set('query parser', false); // normalizeQuery reads the raw query against the document
  app.use(localeMiddleware(config.restPrefix));
  // Only the methods whose operations take a body read one: a body sent with GET or DELETE is
  // ignored, so that no read answers 413 or 400 for something the document does not describe.
  const withBody =
    (parser: express.RequestHandler): express.RequestHandler =>
    (req, res, next) => {
      if (BODY_METHODS.has(req.method)) parser(req, res, next);
      else next();
    };
  app.use(
    withBody(
      express.json({ limit: MAX_BODY_BYTES, type: ['application/json', 'application/*+json'], verify: refuseDeepJson }),
    ),
  );
  app.use(withBody(express.urlencoded({ limit: MAX_BODY_BYTES, extended: true, parameterLimit: 1000 })));

  // The REST root lies outside the namespace, so outside the document's paths.
  app.all(config.restPrefix, restRoot(config));
  app.use(`${config.restPrefix}/${NAMESPACE}`, (req, res, next) => {
    dispatch(api, req, res).catch(next);
  });
  app.use((_req, _res, next) => {
    next(noRoute());
  });
  app.use((err: unknown, req: Request, res: Response, _next: NextFunction) => {
    const error = bodyParserError(err) ?? toApiError(err);
    if (error.status >= 500 && !(err instanceof ApiError)) onServerError?.(err, req);
    sendReply(res, { status: error.status, body: error.toBody(), headers: error.headers });
  });
  return Object.assign(app, { drain: probes.drain });
}

async function dispatch(api: OpenAPIBackend, req: Request, res: Response): Promise<void> {
  const method = req.method === 'HEAD' ? 'GET' : req.method;
  const path = req.path || '/';
  // Percent-escapes that are not UTF-8 (`%ED%A0%80`) name no route; decoding them later would throw.
  if (!decodes(path)) throw noRoute();
  const search = req.url.includes('?') ? req.url.slice(req.url.indexOf('?') + 1) : '';
  const operation = api.router.matchOperation({ method, path, headers: {} });
  if (!operation) {
    const allowed = METHODS.filter((m) => api.router.matchOperation({ method: m, path, headers: {} }));
    if (!allowed.length) throw noRoute();
    if (req.method === 'OPTIONS') {
      // Not a CORS preflight (the cors middleware answers those): say what the route allows.
      res
        .status(204)
        .set('Allow', ['OPTIONS', ...allowed, ...(allowed.includes('GET') ? ['HEAD'] : [])].join(', '))
        .end();
      return;
    }
    throw new ApiError(
      405,
      'rest_method_not_allowed',
      `Method ${req.method} is not allowed here.`,
      {},
      { Allow: allowed.join(', ') },
    );
  }
  let body: unknown;
  if (operation.requestBody) {
    if (req.body === undefined && hasBody(req)) {
      throw new ApiError(
        415,
        'rest_unsupported_media_type',
        'Send the body as application/json or application/x-www-form-urlencoded.',
      );
    }
    body = req.body ?? {};
    const illFormed = illFormedFields(body);
    if (illFormed.length) {
      throw invalidParams(
        Object.fromEntries(illFormed.map((name) => [name, `${name} contains text that is not valid Unicode.`])),
      );
    }
    // Partial: a body may be declared in other media types only.
    const content: Partial<Record<string, OpenAPIV3_1.MediaTypeObject>> = (
      operation.requestBody as OpenAPIV3_1.RequestBodyObject
    ).content;
    const schema = content['application/json']?.schema;
    if (body && typeof body === 'object' && !Array.isArray(body)) {
      coerceBodyScalars(body as Record<string, unknown>, schema);
    }
  }
  const reply = (await api.handleRequest(
    {
      method,
      path,
      query: normalizeQuery(search, operation.parameters as OpenAPIV3_1.ParameterObject[]),
      body,
      headers: req.headers as Record<string, string>,
    },
    req,
    res,
  )) as Reply;
  sendReply(res, reply, req);
}

function registerHandlers(api: OpenAPIBackend, deps: { config: Config; db: Database }) {
  // The one place where openapi-backend's untyped context becomes the typed Call of the operation:
  // validation has checked it against the document the types are generated from.
  const toCall = (c: Context, req: Request, res: Response): Call => {
    const locale = res.locals.locale as LocaleInfo;
    const coerced = c.validation.coerced as Partial<Pick<Call, 'params' | 'query'>> | undefined;
    return {
      // Validation coerced the values ("2" to 2); re-parsing the path would undo that.
      params: coerced?.params ?? (c.request.params as Call['params']),
      query: coerced?.query ?? (c.request.query as Call['query']),
      body: c.request.requestBody as Call['body'],
      urls: requestUrls(req, deps.config, locale.segment),
      locale: locale.tag,
      accepts: (types: string[]) => req.accepts(types),
      context: {
        db: deps.db.prisma,
        caller: callerOfResponse(res),
        siteZone: deps.config.siteTimezone,
        now: new Date(),
        precondition: ifMatchPrecondition(req.headers['if-match']),
      },
      config: deps.config,
    };
  };
  const wrapped = Object.fromEntries(
    Object.entries(handlers).map(([operationId, plain]) => {
      // Each handler takes its own operation's Call; toCall builds the Call of the operation matched.
      const handler = plain as Handler;
      // Creates take an Idempotency-Key; every other operation is a read or idempotent already.
      const create = operationId.startsWith('create') ? idempotent(operationId, handler) : undefined;
      return [
        operationId,
        (c: Context, req: Request, res: Response) =>
          create ? create(toCall(c, req, res), req.get('idempotency-key')) : handler(toCall(c, req, res)),
      ];
    }),
  );
  api.register({
    ...wrapped,
    validationFail: (c: Context) => {
      throw validationError(c.validation.errors ?? []);
    },
    notFound: () => {
      throw noRoute();
    },
  });
}

// Only what an operator needs: headers (credentials!) and bodies never reach the log.
function requestLogger(logger: Logger) {
  return pinoHttp({
    logger,
    serializers: {
      req: (req: { method: string; url: string }) => ({ method: req.method, url: req.url }),
      res: (res: { statusCode: number }) => ({ status: res.statusCode }),
    },
    genReqId: (_req, res) => (res as Response).locals.requestId as string,
    customProps: (req, res) => ({
      client: (req as Request).ip,
      requestId: (res as Response).locals.requestId as string,
    }),
  });
}

function decodes(path: string): boolean {
  try {
    decodeURIComponent(path);
    return true;
  } catch {
    return false;
  }
}

function hasBody(req: Request): boolean {
  return Number(req.headers['content-length'] ?? 0) > 0 || req.headers['transfer-encoding'] !== undefined;
}

/** body-parser's failures, in the error shape. */
function bodyParserError(err: unknown): ApiError | undefined {
  if (err instanceof ApiError) return undefined;
  const type = (err as { type?: string } | null | undefined)?.type;
  switch (type) {
    case 'entity.parse.failed':
      return new ApiError(400, 'rest_invalid_json', 'The body is not valid JSON.', {
        json_error_message: (err as Error).message,
      });
    case 'entity.too.deep':
      return new ApiError(400, 'rest_invalid_json', `The body is nested deeper than ${MAX_JSON_DEPTH} levels.`);
    case 'entity.too.large':
      return new ApiError(413, 'rest_payload_too_large', `The body is larger than ${MAX_BODY_BYTES} bytes.`);
    case 'encoding.unsupported':
    case 'charset.unsupported':
      return new ApiError(
        415,
        'rest_unsupported_media_type',
        'The body uses an encoding or character set that is not supported.',
      );
    case 'querystring.parse.rangeError':
      // body-parser's own limit on `a[b][c]=...` (32 levels), which @types/body-parser cannot set.
      return new ApiError(400, 'rest_invalid_body', 'The form is nested too deep.');
    case 'parameters.too.many':
      return new ApiError(413, 'rest_payload_too_large', 'The form has too many fields.');
    case 'request.aborted':
    case 'request.size.invalid':
    case 'stream.encoding.set':
      return new ApiError(400, 'rest_invalid_body', 'The body could not be read.');
    default: {
      // Anything else body-parser refuses as the client's fault: a body that does not decompress
      // as its Content-Encoding says (zlib's error, given status 400).
      const status = (err as { status?: unknown } | null | undefined)?.status;
      if (typeof status === 'number' && status >= 400 && status < 500) {
        return new ApiError(
          400,
          'rest_invalid_body',
          'The body could not be read: it is not what its Content-Encoding and Content-Type say.',
        );
      }
      return undefined;
    }
  }
}

export const MAX_JSON_DEPTH = 64;

/**
 * Refuses JSON nested deeper than MAX_JSON_DEPTH before it is parsed: the validators and our own
 * walks over a body recurse, and 5,000 nested arrays overflowed the stack. One pass over the bytes,
 * counting brackets outside strings.
 *
 * The bytes are read as UTF-8, the one encoding the JSON standard allows between systems, so any
 * other charset body-parser would decode is refused (415): in UTF-16 an escaped quote (`\`, NUL,
 * `"`) fooled the scan into counting the brackets after it as text, and nesting got through again.
 */
function refuseDeepJson(_req: unknown, _res: unknown, body: Buffer, charset: string) {
  if (charset !== 'utf-8') throw Object.assign(new Error('not UTF-8'), { type: 'charset.unsupported' });
  let depth = 0;
  let inString = false;
  for (let i = 0; i < body.length; i++) {
    const byte = body[i];
    if (inString) {
      if (byte === 0x5c)
        i++; // backslash: the next byte is escaped
      else if (byte === 0x22) inString = false;
    } else if (byte === 0x22) {
      inString = true;
    } else if (byte === 0x5b || byte === 0x7b) {
      if (++depth > MAX_JSON_DEPTH) throw Object.assign(new Error('too deep'), { type: 'entity.too.deep' });
    } else if (byte === 0x5d || byte === 0x7d) {
      depth--;
    }
  }
}

function sendReply(res: Response, reply: Reply, req?: Request) {
  if (res.headersSent) return;
  const status = reply.status ?? 200;
  const body = reply.contentType ? String(reply.body) : JSON.stringify(reply.body);
  res.status(status);
  res.set('Content-Type', reply.contentType ?? 'application/json; charset=UTF-8');
  if (reply.headers) res.set(reply.headers);
  if (req && status >= 200 && status < 300) {
    const etag = entityTag(body, reply.version);
    res.set('ETag', etag);
    if (reply.lastModified) res.set('Last-Modified', reply.lastModified.toUTCString());
    const read = req.method === 'GET' || req.method === 'HEAD';
    if (read && status === 200 && !noneMatch(req.headers['if-none-match'], etag)) {
      res.status(304).removeHeader('Content-Type');
      res.end();
      return;
    }
  }
  res.send(body);
}
