// What an operation handler receives and returns. Handlers are thin: they read the validated
// request, call a service and return a Reply; `respond` in app.ts is the one place that writes it.
import type { operations } from '../../generated/api.js';
import type { Caller } from '../auth/roles.js';
import type { Config } from '../config.js';
import type { Database } from '../db/client.js';
import type { Precondition } from './conditional.js';
import type { Urls } from './urls.js';

export type OperationId = keyof operations;

type Params<K extends OperationId, In extends 'query' | 'path'> = operations[K]['parameters'] extends infer P
  ? P extends Partial<Record<In, infer V>>
    ? NonNullable<V>
    : Record<string, never>
  : never;

type Body<K extends OperationId> = operations[K] extends { requestBody: { content: { 'application/json': infer B } } }
  ? B
  : operations[K] extends { requestBody?: { content: { 'application/json': infer B } } }
    ? B
    : undefined;

export interface Call<K extends OperationId = OperationId> {
  /** Path parameters, validated and typed by the document. */
  params: Params<K, 'path'>;
  /** Query parameters, validated, coerced and with the document's defaults filled in. */
  query: Params<K, 'query'>;
  body: Body<K>;
  urls: Urls;
  /** The language tag of the locale segment, or `en`. */
  locale: string;
  /** Who is calling: a signed-in user, or null when anonymous. */
  caller: Caller;
  /** Content negotiation: the best of `types` for the request's Accept header, or false. */
  accepts: (types: string[]) => string | false;
  /** What `If-Match` requires of the object a write changes, when the client sent it. */
  precondition?: Precondition;
  db: Database;
  config: Config;
}

export interface Reply {
  status?: number;
  /** Serialized as JSON, unless `contentType` says the body is already text of that type. */
  body: unknown;
  contentType?: string;
  /** The version of the object answered (events, venues, organizers): leads its ETag. */
  version?: string;
  /** When the object last changed: `Last-Modified`. */
  lastModified?: Date;
  headers?: Record<string, string>;
}

export type Handler<K extends OperationId = OperationId> = (call: Call<K>) => Promise<Reply>;

export type HandlerMap = { [K in OperationId]: Handler<K> };
