// The HTTP server, with deliberate limits on slow clients. Node's defaults let a client take a
// minute to send its headers and five minutes for a request: a few hundred such connections hold
// the process's sockets. Headers must arrive within HTTP_HEADERS_TIMEOUT_SECONDS (10 s) and the whole
// request within HTTP_REQUEST_TIMEOUT_SECONDS (30 s; bodies are at most 1 MiB), else the connection
// is closed (408). An idle kept-alive connection closes after HTTP_KEEP_ALIVE_TIMEOUT_SECONDS (5 s,
// Node's default); behind a balancer that reuses connections, set it above the balancer's idle timeout.
import http from 'node:http';
import type { RequestListener } from 'node:http';
import type { HttpTimeouts } from '../config/network.js';

export function createHttpServer(app: RequestListener, timeouts: HttpTimeouts): http.Server {
  const headersTimeout = timeouts.headersTimeoutSeconds * 1000;
  const server = http.createServer(
    {
      headersTimeout,
      requestTimeout: Math.max(timeouts.requestTimeoutSeconds * 1000, headersTimeout),
      // How often Node looks for connections over those limits (30 s by default, longer than the limits).
      connectionsCheckingInterval: Math.min(1000, headersTimeout),
    },
    app,
  );
  server.keepAliveTimeout = timeouts.keepAliveTimeoutSeconds * 1000;
  return server;
}
