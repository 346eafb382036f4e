// Writes a Reply: the one place a response body, its content type, its ETag and Last-Modified are
// set, where a conditional GET becomes a 304, and where `_fields` and `_envelope` shape the answer.
import type { Request, Response } from 'express';
import { entityTag, noneMatch } from './conditional.js';
import type { Reply } from './handler.js';
import { pickFields, responseOptions } from './wordpress-response.js';

export function sendReply(req: Request, res: Response, reply: Reply) {
  if (res.headersSent) return;
  const options = responseOptions(req.url.includes('?') ? req.url.slice(req.url.indexOf('?') + 1) : '');
  const succeeded = (reply.status ?? 200) >= 200 && (reply.status ?? 200) < 300;
  let data = succeeded && options.fields && !reply.contentType ? pickFields(reply.body, options.fields) : reply.body;
  let status = reply.status ?? 200;
  if (options.envelope && !reply.contentType) {
    data = { body: data, status, headers: envelopeHeaders(res, reply.headers ?? {}) };
    status = 200;
  }
  const body = reply.contentType ? asText(data) : JSON.stringify(data);
  res.status(status);
  res.set('Content-Type', reply.contentType ?? 'application/json; charset=UTF-8');
  // Link may hold more than one value: the API root's (discovery-link.ts) and a list's prev/next.
  for (const [name, value] of Object.entries(reply.headers ?? {})) {
    if (name.toLowerCase() === 'link') res.append('Link', value);
    else res.set(name, value);
  }
  if (status >= 300 && status < 400 && data === undefined) {
    // A redirect (303 to an event's iCalendar URL) says all in its status and Location.
    res.removeHeader('Content-Type');
    res.end();
    return;
  }
  if (succeeded) {
    const etag = reply.etag ?? entityTag(body, reply.version);
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
