// Writes a Reply: the one place a response body, its content type, its ETag and Last-Modified are
// set, and where a conditional GET becomes a 304.
import type { Request, Response } from 'express';
import { entityTag, noneMatch } from './conditional.js';
import type { Reply } from './handler.js';

export function sendReply(res: Response, reply: Reply, req?: Request) {
  if (res.headersSent) return;
  const status = reply.status ?? 200;
  const body = reply.contentType ? String(reply.body) : JSON.stringify(reply.body);
  res.status(status);
  res.set('Content-Type', reply.contentType ?? 'application/json; charset=UTF-8');
  // Link may hold more than one value: the API root's (discovery-link.ts) and a list's prev/next.
  for (const [name, value] of Object.entries(reply.headers ?? {})) {
    if (name.toLowerCase() === 'link') res.append('Link', value);
    else res.set(name, value);
  }
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
