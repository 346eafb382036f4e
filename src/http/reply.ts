// Writes a Reply: the one place a response body, its content type, its ETag and Last-Modified are
// set, where a conditional GET becomes a 304, and where `_fields` and `_envelope` shape the answer.
import type { Request, Response } from 'express';
import { entityTag, noneMatch } from './conditional.js';
import type { Reply } from './handler.js';
import { pickFields, responseOptions } from './wordpress-response.js';

export function sendReply(req: Request, res: Response, reply: Reply) {
  if (res.headersSent) return;
  const { status, data, succeeded } = shapedAnswer(req, res, reply);
  const body = reply.contentType ? asText(data) : JSON.stringify(data);
  res.status(status);
  res.set('Content-Type', reply.contentType ?? 'application/json; charset=UTF-8');
  setReplyHeaders(res, reply.headers ?? {});
  if (status >= 300 && status < 400 && data === undefined) {
    // A redirect (303 to an event's iCalendar URL) says all in its status and Location.
    res.removeHeader('Content-Type');
    res.end();
    return;
  }
  if (succeeded) {
    const etag = setValidators(res, reply, body);
    if (readerIsCurrent(req, status, etag)) {
      res.status(304).removeHeader('Content-Type');
      res.end();
      return;
    }
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

/** Sets ETag and Last-Modified on a successful answer; returns the ETag. */
function setValidators(res: Response, reply: Reply, body: string | Buffer): string {
  const etag = reply.etag ?? entityTag(body, reply.version);
  res.set('ETag', etag);
  if (reply.lastModified) res.set('Last-Modified', reply.lastModified.toUTCString());
  return etag;
}

/** Whether a conditional read's If-None-Match holds the answer's ETag, which makes it a 304. */
function readerIsCurrent(req: Request, status: number, etag: string): boolean {
  const read = req.method === 'GET' || req.method === 'HEAD';
  return read && status === 200 && !noneMatch(req.headers['if-none-match'], etag);
}

/** A body already in its content type: text, or its bytes (serializers/ical.ts writes a feed's). */
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
