// Tells the webhook worker of a write as soon as it is answered, so that it looks for new changes
// at once rather than at its next poll (server.ts passes `afterWrite`).
import type { NextFunction, Request, Response } from 'express';

/** Methods that write nothing: the REST API's reads, and CalDAV's (caldav/routes.ts). */
const READ_METHODS = new Set(['GET', 'HEAD', 'OPTIONS', 'PROPFIND', 'REPORT']);

/** Calls `afterWrite` when a request that may write (not a read method) has been answered with success. */
export function notifyWrites(afterWrite: () => void) {
  return (req: Request, res: Response, next: NextFunction) => {
    if (!READ_METHODS.has(req.method)) {
      res.once('finish', () => {
        if (res.statusCode < 400) afterWrite();
      });
    }
    next();
  };
}
