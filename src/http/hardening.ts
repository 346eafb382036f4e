// What every response gets, whatever route answers it: a request ID (kept from a well-formed
// `X-Request-Id`, else made here) that also tags every log line, security headers, CORS for browser
// clients with the headers they need to read exposed, and compression of large bodies.
import { randomUUID } from 'node:crypto';
import compression from 'compression';
import cors from 'cors';
import type { NextFunction, Request, Response } from 'express';
import helmet from 'helmet';
import type { Config } from '../config.js';

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

export function requestId() {
  return (req: Request, res: Response, next: NextFunction) => {
    const given = req.headers['x-request-id'];
    const id = typeof given === 'string' && REQUEST_ID.test(given) ? given : randomUUID();
    res.locals.requestId = id;
    res.set('X-Request-Id', id);
    next();
  };
}

/** Headers a browser script may read from our responses (pagination, validators, IDs). */
export const EXPOSED_HEADERS = [
  'X-TEC-Total',
  'X-TEC-TotalPages',
  'X-WP-Total',
  'X-WP-TotalPages',
  'Link',
  'Location',
  'ETag',
  'Last-Modified',
  'Retry-After',
  'RateLimit',
  'RateLimit-Policy',
  'X-Request-Id',
  'Content-Language',
  'Idempotent-Replayed',
];
const ALLOWED = [
  'Authorization',
  'Content-Type',
  'If-Match',
  'If-None-Match',
  'Idempotency-Key',
  'X-Request-Id',
  // An RSVP's owner's token (services/secrets.ts): a site's page may manage its visitor's RSVP.
  'RSVP-Token',
  // A submission's token: a site's page may show its visitor's submission's state.
  'Submission-Token',
];

export function hardening(config: Config) {
  return [
    // JSON needs no content policy of its own beyond "load nothing"; the documentation page sets its own.
    helmet({
      contentSecurityPolicy: { useDefaults: false, directives: { defaultSrc: ["'none'"], frameAncestors: ["'none'"] } },
    }),
    corsExceptPlainOptions(config),
    compression({ threshold: 1024 }),
  ];
}

/**
 * CORS, where the cors package would answer every OPTIONS as a preflight: an OPTIONS that is not one
 * (no Access-Control-Request-Method) goes on to the route, which lists its methods.
 */
function corsExceptPlainOptions(config: Config) {
  const handle = cors({
    origin: config.corsOrigins === '*' ? '*' : config.corsOrigins,
    methods: ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'],
    allowedHeaders: ALLOWED,
    exposedHeaders: EXPOSED_HEADERS,
    maxAge: 600,
  });
  return (req: Request, res: Response, next: NextFunction) => {
    if (req.method === 'OPTIONS' && !req.headers['access-control-request-method']) next();
    else handle(req, res, next);
  };
}
