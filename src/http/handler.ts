// What an operation handler receives and returns. Handlers are thin: they read the validated
// request, call a service and return a Reply; http/reply.ts is the one place that writes it.
import type { Readable } from 'node:stream';
import type { operations } from '../../generated/api.js';
import type { Config } from '../config.js';
import type { DecodedQuery } from '../domain/query-flags.js';
import type { ServiceContext } from '../services/context.js';
import type { Urls } from './urls.js';

export type OperationId = keyof operations;

/**
 * Query parameters the document gives a default: validation fills them in, so a handler always has
 * them (test/unit/declared-defaults.test.ts keeps this list equal to the document's).
 */
export const DEFAULTED = [
  'namespace',
  'context',
  'page',
  'per_page',
  'force',
  'only_with_upcoming',
  'order',
  'orderby',
  'hide_empty',
  'strict_dates',
  'single_events',
] as const;
export type Defaulted = (typeof DEFAULTED)[number];

type WithDefaults<Q> = Q & { [P in keyof Q & Defaulted]-?: NonNullable<Q[P]> };

type Params<K extends OperationId, In extends 'query' | 'path'> = operations[K]['parameters'] extends infer P
  ? P extends Partial<Record<In, infer V>>
    ? NonNullable<V>
    : Record<string, never>
  : never;

// Distributed over a union of operations (Call<OperationId>), so that one without a JSON body (an
// upload) does not make the body of every other `undefined`.
type Body<K extends OperationId> = K extends OperationId
  ? operations[K] extends { requestBody: { content: { 'application/json': infer B } } }
    ? B
    : operations[K] extends { requestBody?: { content: { 'application/json': infer B } } }
      ? B
      : undefined
  : never;

export interface Call<K extends OperationId = OperationId> {
  /** Path parameters, validated and typed by the document. */
  params: Params<K, 'path'>;
  /** Query parameters, validated, coerced and with the document's defaults filled in. */
  query: WithDefaults<DecodedQuery<Params<K, 'query'>>>;
  body: Body<K>;
  /** The request's query string as sent, without its `?`: for a redirect that keeps the filters. */
  search: string;
  urls: Urls;
  /** The language tag of the locale segment; without one, the best of Accept-Language we have, or `en`. */
  locale: string;
  /** Whether the locale came from the path (else from Accept-Language, and the answer varies by it). */
  localeFromPath: boolean;
  /** Content negotiation: the best of `types` for the request's Accept header, or false. */
  accepts: (types: string[]) => string | false;
  /** A request header, when the operation reads one the document declares (`RSVP-Token`). */
  header: (name: string) => string | undefined;
  /** The client's address, as the trusted proxies tell it (TRUST_PROXY): what per-address limits count. */
  address: string | undefined;
  /** What services need of the request: database, caller, site zone, now, If-Match. */
  context: ServiceContext;
  config: Config;
}

export interface Reply {
  status?: number;
  /** Serialized as JSON, unless `contentType` says the body is already text of that type (or its bytes). */
  body: unknown;
  contentType?: string;
  /** The version of the object answered (events, venues, organizers): leads its ETag. */
  version?: string;
  /** When the object last changed: `Last-Modified`. */
  lastModified?: Date;
  /**
   * A strong ETag known before the body: of what the body is made of, not of its bytes. With it the
   * body may be left to `build`, which runs only when the client does not hold it already (304).
   */
  etag?: string;
  build?: () => Promise<string | Buffer>;
  /**
   * A body too big to hold whole (an export), written to the client as it is read, with backpressure;
   * `contentType` says its type. With `etag`, a client that holds it already gets a 304 and the
   * stream is never read. Never kept (http/answer-cache.ts).
   */
  stream?: Readable;
  headers?: Record<string, string>;
  /** Depends on more than the data and the time: never sent again from memory (http/answer-cache.ts). */
  unkept?: true;
}

export type Handler<K extends OperationId = OperationId> = (call: Call<K>) => Promise<Reply>;

/** The handlers of the operations; the batch route's is http/operation-handlers.ts's, which answers each request with the whole app. */
export type HandlerMap = { [K in Exclude<OperationId, 'batchRequests'>]: Handler<K> };
