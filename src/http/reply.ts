// Writes a Reply: the one place a response body, its content type, its ETag and Last-Modified are
// set, where a conditional GET becomes a 304, and where `_fields` and `_envelope` shape the answer.
import { pipeline, type Readable } from 'node:stream';
import type { Request, Response } from 'express';
import { noneMatch } from '../domain/entity-tags.js';
import { entityTag } from './conditional.js';
import type { Reply } from './handler.js';
import { innerOf } from './batch.js';
import { ApiError } from './errors.js';
import { AnswerTooLarge, answerBudget, jsonWithin } from './json-within.js';
import { pickFields, responseOptions } from './wordpress-response.js';

export function sendReply(req: Request, res: Response, reply: Reply) {
  if (res.headersSent) return;
  sendRendered(req, res, renderReply(req, res, reply));
}

/** A reply made into what goes on the wire: the same for every request whose answer it is (http/answer-cache.ts). */
export interface Rendered {
  status: number;
  /** Undefined for a redirect, which says all in its status and Location (303 to an event's iCalendar URL). */
  body?: string | Buffer;
  /** A body written as it is read (Reply.stream). */
  stream?: Readable;
  contentType?: string;
  /** The reply's own headers. */
  headers: Record<string, string>;
  /** A successful answer's validators. */
  etag?: string;
  lastModified?: string;
}

export function renderReply(req: Request, res: Response, reply: Reply): Rendered {
  const { status, data, succeeded } = shapedAnswer(req, res, reply);
  const headers = reply.headers ?? {};
  if (status >= 300 && status < 400 && data === undefined) return { status, headers };
  if (reply.stream) return { status, stream: reply.stream, contentType: reply.contentType, headers, etag: reply.etag };
  const body = reply.contentType ? asText(data) : jsonOf(req, data);
  const contentType = reply.contentType ?? 'application/json; charset=UTF-8';
  if (!succeeded) return { status, body, contentType, headers };
  return {
    status,
    body,
    contentType,
    headers,
    etag: reply.etag ?? entityTag(body, reply.version),
    lastModified: reply.lastModified?.toUTCString(),
  };
}

/**
 * A JSON answer's text, within what one answer holds (json-within.ts; a batch's requests share one).
 * A read past it is refused, with what to ask instead. A write was done: its answer is sent without
 * what `_embed` added, and else as it is (one item's representation, which the document bounds).
 */
function jsonOf(req: Request, data: unknown): string {
  const room = innerOf(req)?.room.left ?? answerBudget(req);
  try {
    return jsonWithin(data, room);
  } catch (err) {
    if (!(err instanceof AnswerTooLarge)) throw err;
    if (req.method === 'GET' || req.method === 'HEAD') throw answerTooLarge(room);
    if (data && typeof data === 'object' && '_embedded' in data) {
      const { _embedded: _, ...plain } = data as Record<string, unknown>;
      return jsonOf(req, plain);
    }
    return JSON.stringify(data);
  }
}

const answerTooLarge = (bytes: number) =>
  new ApiError(
    400,
    'rest_answer_too_large',
    `The answer would pass ${Math.round(bytes / 1024 / 1024)} MB, the most one answer holds: ask for fewer items (per_page), fewer fields (_fields) or without _embed.`,
  );

/** Writes a rendered reply; a conditional read whose If-None-Match holds its ETag becomes a 304. */
export function sendRendered(req: Request, res: Response, rendered: Rendered) {
  if (res.headersSent) return;
  const { status, body, stream, contentType, headers, etag, lastModified } = rendered;
  res.status(status);
  if (contentType) res.set('Content-Type', contentType);
  setReplyHeaders(res, headers);
  if (body === undefined && !stream) {
    res.end();
    return;
  }
  if (etag) {
    res.set('ETag', etag);
    if (lastModified) res.set('Last-Modified', lastModified);
    if (readerIsCurrent(req, status, etag)) {
      stream?.destroy();
      res.status(304).removeHeader('Content-Type');
      res.end();
      return;
    }
  }
  if (stream) {
    // Once the first bytes are sent the status cannot change: a failure after that (the database
    // gone mid-export) cuts the answer short, which the client sees as an incomplete response.
    pipeline(stream, res, (err) => {
      if (err) res.destroy();
    });
    return;
  }
  res.send(body);
}

/**
 * The status and data to send: the reply's, the fields `_fields` names picked from a JSON answer
 * that succeeded, and with `_envelope` the JSON answer wrapped in a 200. `succeeded` is the reply's.
 */
function shapedAnswer(
  req: Request,
  res: Response,
  reply: Reply,
): { status: number; data: unknown; succeeded: boolean } {
  const options = responseOptions(req.url.includes('?') ? req.url.slice(req.url.indexOf('?') + 1) : '');
  const status = reply.status ?? 200;
  const succeeded = status >= 200 && status < 300;
  const json = !reply.contentType;
  const data = succeeded && options.fields && json ? pickFields(reply.body, options.fields) : reply.body;
  if (options.envelope && json) {
    const envelope = { body: data, status, headers: envelopeHeaders(res, reply.headers ?? {}) };
    return { status: 200, data: envelope, succeeded };
  }
  return { status, data, succeeded };
}

/** Sets the reply's own headers. */
function setReplyHeaders(res: Response, headers: Record<string, string>) {
  // Link may hold more than one value: the API root's (discovery-link.ts) and a list's prev/next.
  for (const [name, value] of Object.entries(headers)) {
    if (name.toLowerCase() === 'link') res.append('Link', value);
    else res.set(name, value);
  }
}

/** Whether a conditional read's If-None-Match holds the answer's ETag, which makes it a 304. */
function readerIsCurrent(req: Request, status: number, etag: string): boolean {
  const read = req.method === 'GET' || req.method === 'HEAD';
  return read && status === 200 && !noneMatch(req.headers['if-none-match'], etag);
}

/** A body already in its content type: text, or its bytes (ical/write-calendar.ts writes a feed's). */
const asText = (data: unknown) => (Buffer.isBuffer(data) ? data : String(data));

/**
 * The headers an enveloped answer reports: the reply's, and those every answer of the route carries
 * (the API root's Link, Allow), as WordPress puts all of its headers in the envelope.
 */
function envelopeHeaders(res: Response, own: Record<string, string>): Record<string, string> {
  const headers: Record<string, string> = {};
  const allow = res.get('Allow');
  if (allow) headers.Allow = allow;
  const links = [res.getHeader('Link'), own.Link].flat().filter((link) => typeof link === 'string');
  for (const [name, value] of Object.entries(own)) if (name !== 'Link') headers[name] = value;
  if (links.length) headers.Link = links.join(', ');
  return headers;
}
