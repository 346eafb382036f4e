// WordPress's batch route, `POST {prefix}/batch/v1` (openapi/paths/batch_v1.yaml): up to 25 writes of
// the namespace in one request. Each inner request is real HTTP, written by Node's HTTP client and
// read by Node's HTTP server into this very Express app, over a pair of connected in-memory streams
// rather than a socket: authentication's outcome, permissions, validation, rate limits,
// idempotency, the change feed and every header are what the same request sent alone gets, with no
// second copy of that pipeline and no fake request objects. What differs is marked on the inner
// request's connection (innerOf below): its caller is the batch's, already authenticated, and with
// `require-all-validate` its database is the batch's one transaction.
import type { IncomingMessage, RequestListener } from 'node:http';
import type { Request } from 'express';
import type { Operation, OpenAPIBackend } from 'openapi-backend';
import type { OpenAPIV3_1 } from 'openapi-types';
import type { components } from '../../generated/api.js';
import type { Caller } from '../auth/roles.js';
import type { Database, PrismaClient } from '../db/client.js';
import { nestingTransactions } from '../db/savepoints.js';
import { ApiError, methodNotAllowed, noRoute, toApiError } from './errors.js';
import { EXPOSED_HEADERS } from './hardening.js';
import { exchangeInMemory, type Exchanged, type InMemoryRequest } from './in-memory-exchange.js';
import { answerBudget } from './json-within.js';
import type { LocaleInfo } from './locale.js';
import { normalizeQuery } from './query.js';
import { parsedBody } from './body.js';
import { methodsOfPath } from './backend.js';
import type { Reply } from './handler.js';
import { decodes, NAMESPACE } from './urls.js';
import { validationError } from './validation.js';

type BatchInput = components['schemas']['BatchInput'];
type BatchItem = components['schemas']['BatchRequestItem'];
type BatchAnswer = components['schemas']['BatchResponseItem'];

export const BATCH_OPERATION = 'batchRequests';
/** The batch route's path under the REST prefix, as the document names it. */
export const BATCH_PATH = '/batch/v1';

/** What an injected request carries from its batch. */
interface Inner {
  caller: Caller;
  /** The batch's transaction, with `require-all-validate`; else the request opens its own. */
  db?: PrismaClient;
  /** What is left of the batch's answer (http/json-within.ts): its requests' answers share it. */
  room: { left: number };
}

/** What the inner requests' connections carry, by connection. */
const inners = new WeakMap<object, Inner>();

/** The batch a request belongs to; undefined for a request that came over the network. */
export const innerOf = (req: IncomingMessage): Inner | undefined => inners.get(req.socket);

/** Raised when a batch request is itself refused for being in a batch (a nested batch, an upload). */
export const notInBatch = () =>
  new ApiError(400, 'rest_batch_not_allowed', 'The requested route does not support batch requests.');

// The outer request's headers that every inner request keeps: who the caller is (already checked),
// the host and proxy headers its links are built from, and its language. An inner request's own
// headers cannot replace them, nor the framing headers that the injection sets itself.
const CARRIED = [
  'authorization',
  'host',
  'x-forwarded-for',
  'x-forwarded-host',
  'x-forwarded-proto',
  'accept-language',
];
const NOT_OVERRIDDEN = new Set([
  ...CARRIED.filter((name) => name !== 'accept-language'),
  'cookie',
  'forwarded',
  'connection',
  'keep-alive',
  'content-length',
  'content-type',
  'content-encoding',
  'transfer-encoding',
  'te',
  'trailer',
  'upgrade',
  'expect',
  // Compressed answers would have to be undone to be put in the envelope.
  'accept-encoding',
  // An inner request's method is its item's (http/wordpress-request.ts does not override a batch's).
  'x-http-method-override',
]);
/**
 * An answer's own headers, which the envelope keeps (by their names in lower case): those that
 * browser clients may read, and Allow; not the inner request's own ID, which only its log line shows.
 */
const KEPT = new Map(
  [...EXPOSED_HEADERS.filter((name) => name !== 'X-Request-Id'), 'Allow'].map((name) => [name.toLowerCase(), name]),
);

interface Outer {
  req: Request;
  caller: Caller;
  api: OpenAPIBackend;
  /** The Express app that answers each inner request as it answers the network's. */
  app: RequestListener;
  db: Database;
  restPrefix: string;
  /** Told of an inner request that could not be exchanged at all (logged as a server error). */
  onError?: (err: unknown) => void;
}

/** Runs a batch and answers 207, as WordPress does, with each answer in the order sent. */
export async function runBatch(outer: Outer, { validation, requests }: BatchInput): Promise<Reply> {
  if (innerOf(outer.req)) throw notInBatch();
  const room = { left: answerBudget(outer.req) };
  if (validation !== 'require-all-validate') {
    const responses: BatchAnswer[] = [];
    // One after another, as WordPress runs them: a later request may depend on an earlier one.
    for (const item of requests) {
      const refused = unreachable(outer, item);
      responses.push(refused ? errorAnswer(refused) : await answered(outer, item, { caller: outer.caller, room }));
    }
    return { status: 207, body: { responses } };
  }
  const invalid = requests.map((item) => refusal(outer, item));
  if (invalid.some(Boolean)) {
    return {
      status: 207,
      body: { failed: 'validation', responses: invalid.map((error) => (error ? errorAnswer(error) : null)) },
    };
  }
  return allOrNone(outer, requests, room);
}

/**
 * Runs every request in one transaction, in order, and commits only if all succeeded. Services open
 * their own transactions as savepoints of it (db/savepoints.ts). Other writers see nothing until the
 * commit; a row an inner request locks stays locked until then, so a batch that waits for another
 * batch's rows waits, and two that lock in opposite orders deadlock and PostgreSQL ends one, whose
 * request answers the service's usual 409 and undoes its batch.
 */
async function allOrNone(outer: Outer, requests: BatchItem[], room: Inner['room']): Promise<Reply> {
  let failure: { at: number; answer: BatchAnswer } | undefined;
  const responses = await outer.db.prisma
    .$transaction(async (tx) => {
      const db = nestingTransactions(tx);
      const answers: BatchAnswer[] = [];
      for (const [at, item] of requests.entries()) {
        const answer = await answered(outer, item, { caller: outer.caller, db, room });
        if (answer.status >= 400) {
          failure = { at, answer };
          throw new RolledBack();
        }
        answers.push(answer);
      }
      return answers;
    })
    .catch((err: unknown) => {
      if (err instanceof RolledBack) return undefined;
      throw err;
    });
  if (responses) return { status: 207, body: { responses } };
  const failed = failure as { at: number; answer: BatchAnswer };
  return {
    status: 207,
    body: { failed: 'transaction', responses: requests.map((_, at) => (at === failed.at ? failed.answer : null)) },
  };
}

class RolledBack extends Error {}

/**
 * Why a request would be refused before it runs, as the document decides (its route, method, path
 * variables, query and body), or undefined. Permissions and the data are checked when it runs.
 */
function refusal(outer: Outer, item: BatchItem): ApiError | undefined {
  try {
    const { operation, path, search } = target(outer.api, item);
    const query = normalizeQuery(search, operation.parameters as OpenAPIV3_1.ParameterObject[]);
    // As the request's own body will be read (http/body.ts), and on a copy: validation fills in the
    // document's defaults, and the request sent must be the one written.
    const body = parsedBody(structuredClone(item.body ?? {}), operation);
    const checked = outer.api.validator.validateRequest(
      { method: item.method, path, query, body, headers: innerHeaders(outer, item) },
      operation,
    );
    return checked.errors?.length ? validationError(checked.errors) : undefined;
  } catch (err) {
    return toApiError(err);
  }
}

/** Why an item names no route a batch may reach (http/batch.ts's target), or undefined. */
function unreachable(outer: Outer, item: BatchItem): ApiError | undefined {
  try {
    target(outer.api, item);
    return undefined;
  } catch (err) {
    return toApiError(err);
  }
}

/** The operation an item names, with its path inside the namespace and its query string. */
function target(api: OpenAPIBackend, item: BatchItem): { operation: Operation; path: string; search: string } {
  const url = innerUrl(item.path);
  const at = url.indexOf('?');
  const full = at < 0 ? url : url.slice(0, at);
  const search = at < 0 ? '' : url.slice(at + 1);
  const prefix = `/${NAMESPACE}`;
  if (full === BATCH_PATH || full.startsWith(`${BATCH_PATH}/`)) throw notInBatch();
  if (full !== prefix && !full.startsWith(`${prefix}/`)) throw noRoute();
  const path = full.slice(prefix.length) || '/';
  if (!decodes(path)) throw noRoute();
  const method = item.method;
  const operation = api.router.matchOperation({ method, path, headers: {} });
  if (!operation) {
    const allowed = methodsOfPath(api, path);
    if (!allowed.length) throw noRoute();
    throw methodNotAllowed(method, allowed);
  }
  if (operation.operationId === BATCH_OPERATION) throw notInBatch();
  // A request whose body cannot be JSON (an upload) cannot be one of a batch, whose bodies are.
  const body = operation.requestBody as OpenAPIV3_1.RequestBodyObject | undefined;
  if (body && !('application/json' in body.content)) throw notInBatch();
  return { operation, path, search };
}

/**
 * An item's path as the inner request's URL, and as its route is found: without a fragment, which
 * a URL's reader drops (WordPress parses the path as a URL too), and with every character that may
 * not stand in a request line (a space, `é`) percent-encoded as UTF-8, so that it reaches the route
 * as the same text. (Text that is not Unicode has none; the batch's body was refused for it.)
 */
function innerUrl(path: string): string {
  const hash = path.indexOf('#');
  const url = hash < 0 ? path : path.slice(0, hash);
  return url.replace(/[^\x21-\x7e]/gu, (char) => encodeURIComponent(char));
}

/** An inner request's headers: its own, then those it keeps of the batch's. */
function innerHeaders({ req }: Outer, item: BatchItem): Record<string, string> {
  // A Map, not an object, whose `__proto__` a header of that name would replace.
  const headers = new Map<string, string>();
  for (const [name, value] of Object.entries(item.headers ?? {})) {
    const lower = name.toLowerCase();
    if (!NOT_OVERRIDDEN.has(lower)) headers.set(lower, Array.isArray(value) ? value.join(', ') : value);
  }
  for (const name of CARRIED) {
    const value = req.headers[name];
    if (value !== undefined && !(name === 'accept-language' && headers.has(name))) {
      headers.set(name, Array.isArray(value) ? value.join(', ') : value);
    }
  }
  return Object.fromEntries(headers);
}

/**
 * One request's answer; a failure to exchange it at all (which the checks before should leave
 * none of) is that request's 500, never the batch's, whose other requests may have been applied.
 */
async function answered(outer: Outer, item: BatchItem, inner: Inner): Promise<BatchAnswer> {
  // Once the answers so far fill the batch's answer, the rest are not run (and so not applied).
  if (inner.room.left <= 0) return errorAnswer(batchAnswerFull());
  try {
    return await send(outer, item, inner);
  } catch (err) {
    outer.onError?.(err);
    return errorAnswer(toApiError(err));
  }
}

/** Sends one inner request through the app and answers it as WordPress's envelope does. */
async function send(outer: Outer, item: BatchItem, inner: Inner): Promise<BatchAnswer> {
  const { req } = outer;
  const locale = (req.res?.locals.locale as LocaleInfo | undefined)?.segment;
  const headers = innerHeaders(outer, item);
  const body = item.body === undefined ? undefined : JSON.stringify(item.body);
  if (body !== undefined) headers['content-type'] = 'application/json';
  const response = await exchange(outer, inner, {
    method: item.method,
    path: `${locale ? `/${locale}` : ''}${outer.restPrefix}${innerUrl(item.path)}`,
    headers: { ...headers, connection: 'close' },
    body,
  });
  const kept: Record<string, string> = {};
  for (const [name, value] of Object.entries(response.headers)) {
    const canonical = KEPT.get(name);
    if (canonical && value !== undefined) kept[canonical] = Array.isArray(value) ? value.join(', ') : value;
  }
  inner.room.left -= response.text.length;
  return { body: parsed(response.text, response.headers['content-type']), status: response.status, headers: kept };
}

const batchAnswerFull = () =>
  new ApiError(
    400,
    'rest_answer_too_large',
    `The batch's answers so far fill what one answer holds (RESPONSE_MAX_MB): this request was not run; send it in another batch.`,
  );

/**
 * The headers an inner request may carry, as the document bounds them (BatchRequestItem.yaml: 20
 * headers of up to 10 values of 2,000 characters, each name up to 100), with the batch's own
 * that it keeps (the outer server took those within Node's 16 KiB): every request the document
 * admits is parsed, rather than refused by the inner server's 431 and answered as a 500.
 */
const INNER_MAX_HEADER_BYTES = 20 * (100 + 10 * (2000 + 2)) + 16 * 1024 + 4096;

/** One HTTP exchange with the app (http/in-memory-exchange.ts), its connection marked as the batch's. */
function exchange(outer: Outer, inner: Inner, request: InMemoryRequest): Promise<Exchanged> {
  return exchangeInMemory(outer.app, outer.req.socket, request, {
    connected: (serverEnd) => inners.set(serverEnd, inner),
    maxHeaderSize: INNER_MAX_HEADER_BYTES,
  });
}

/** An answer's body: JSON as its value, anything else (a calendar) as text. */
function parsed(payload: string, type: unknown): unknown {
  if (payload === '') return null;
  const mediaType = typeof type === 'string' ? type.split(';')[0].trim().toLowerCase() : '';
  return mediaType === 'application/json' || mediaType.endsWith('+json') ? JSON.parse(payload) : payload;
}

function errorAnswer(error: ApiError): BatchAnswer {
  return { body: error.toBody(), status: error.status, headers: error.headers };
}
