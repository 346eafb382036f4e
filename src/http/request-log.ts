// One log line per request: method, URL, status, time, client address and request ID. Never
// headers or bodies (credentials!), nor the secrets an RSVP page's link carries in its query
// (pages/rsvp.ts). pino writes it. pino-http, which wrote it before, builds a child
// logger for every request, its bindings serialized each time: a tenth of the CPU of an answer sent
// from memory (docs/performance.md, "Layer by layer"); this line needs none of it.
import { performance } from 'node:perf_hooks';
import type { NextFunction, Request, Response } from 'express';
import type { Logger } from 'pino';

export function requestLog(logger: Logger) {
  return (req: Request, res: Response, next: NextFunction) => {
    const started = performance.now();
    const done = () => {
      res.off('finish', done);
      res.off('close', done);
      const line = {
        req: { method: req.method, url: withoutSecrets(req.originalUrl) },
        res: { status: res.statusCode },
        responseTime: Math.round(performance.now() - started),
        client: req.ip,
        requestId: res.locals.requestId as string,
      };
      if (!res.writableFinished) logger.warn(line, 'request aborted');
      else if (res.statusCode >= 500) logger.error(line, 'request errored');
      else logger.info(line, 'request completed');
    };
    res.once('finish', done);
    res.once('close', done);
    next();
  };
}

/** Query parameters that hold a secret (pages/rsvp.ts): logged as `redacted`. */
const SECRET_PARAMETERS = ['code', 'token'];

export function withoutSecrets(url: string): string {
  const query = url.indexOf('?');
  if (query < 0) return url;
  const params = new URLSearchParams(url.slice(query + 1));
  if (!SECRET_PARAMETERS.some((name) => params.has(name))) return url;
  for (const name of SECRET_PARAMETERS) if (params.has(name)) params.set(name, 'redacted');
  return `${url.slice(0, query)}?${params.toString()}`;
}
