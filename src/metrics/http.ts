// The HTTP side of the metrics: timing every request, and serving `/metrics` where the settings say
// (config/network.ts MetricsSettings): on a port of its own, or on the public port to holders of a token.
import { createHash, timingSafeEqual } from 'node:crypto';
import http from 'node:http';
import { performance } from 'node:perf_hooks';
import type { NextFunction, Request, Response } from 'express';
import type { MetricsSettings } from '../config/network.js';
import { registry, requestDuration, requestsInFlight } from './registry.js';

/** Where the operationId of the operation a request reached is kept (http/rest-pipeline.ts dispatch sets it). */
export const OPERATION_LOCAL = 'operationId';

/**
 * Times each request from its arrival to the end of its answer (or the client going away), labelled
 * by the operation it reached: an operationId of the document, `probe` for /healthz and /readyz,
 * `other` for the rest (pages, the REST root, no route). Labels stay few: never the URL.
 */
export function measureRequests() {
  return (req: Request, res: Response, next: NextFunction) => {
    const started = performance.now();
    requestsInFlight.inc();
    let done = false;
    const end = () => {
      if (done) return;
      done = true;
      requestsInFlight.dec();
      const operation =
        (res.locals[OPERATION_LOCAL] as string | undefined) ??
        (req.path === '/healthz' || req.path === '/readyz' ? 'probe' : 'other');
      // A client that went away before the answer was sent: no status reached it.
      const status = res.writableFinished ? String(res.statusCode) : 'aborted';
      requestDuration.observe({ operation, method: req.method, status }, (performance.now() - started) / 1000);
    };
    res.once('finish', end);
    res.once('close', end);
    next();
  };
}

async function sendMetrics(res: http.ServerResponse): Promise<void> {
  try {
    const text = await registry.metrics();
    res.writeHead(200, { 'Content-Type': registry.contentType, 'Cache-Control': 'no-store' }).end(text);
  } catch {
    res.writeHead(500, { 'Content-Type': 'text/plain' }).end('metrics could not be collected\n');
  }
}

const digest = (text: string) => createHash('sha256').update(text).digest();

/**
 * `GET /metrics` on the public port, for callers sending `Authorization: Bearer <METRICS_TOKEN>`;
 * compared in constant time. Without a token configured it is not mounted at all.
 */
export function protectedMetrics(token: string) {
  const expected = digest(token);
  return (req: Request, res: Response, next: NextFunction) => {
    if (req.path !== '/metrics' || (req.method !== 'GET' && req.method !== 'HEAD')) {
      next();
      return;
    }
    const sent = /^Bearer\s+(\S+)\s*$/i.exec(req.headers.authorization ?? '')?.[1] ?? '';
    if (!timingSafeEqual(digest(sent), expected)) {
      res.status(401).set('WWW-Authenticate', 'Bearer realm="metrics"').type('text/plain').send('a token is needed\n');
      return;
    }
    void sendMetrics(res);
  };
}

/** `/metrics` alone, on a port of its own (METRICS_PORT): for a network only Prometheus reaches. */
export function startMetricsServer(settings: MetricsSettings & { port: number }): Promise<http.Server> {
  const server = http.createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    if (path === '/metrics' && (req.method === 'GET' || req.method === 'HEAD')) void sendMetrics(res);
    else res.writeHead(404, { 'Content-Type': 'text/plain' }).end('only /metrics is here\n');
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(settings.port, settings.host, () => {
      server.off('error', reject);
      resolve(server);
    });
  });
}
