// Authentication through openapi-backend's security handlers, one per scheme of the document
// (`basicAuth`, `bearerAuth`), and the role an operation needs (`x-required-role` in the document),
// checked before the request is validated so that callers who may not write learn nothing more.
import type { Request, Response } from 'express';
import type { Context, OpenAPIBackend } from 'openapi-backend';
import { authenticate, parseAuthorization } from '../auth/authenticate.js';
import { forbidden } from '../auth/permissions.js';
import { type Caller, hasRole, isRole } from '../auth/roles.js';
import type { Config } from '../config.js';
import type { Database } from '../db/client.js';

// Both schemes' handlers run for every request; they share one authentication per request.
const callers = new WeakMap<Request, Promise<Caller>>();

function callerOf(req: Request, deps: { config: Config; db: Database }): Promise<Caller> {
  let caller = callers.get(req);
  if (!caller) {
    const limits = { maxFailures: deps.config.authMaxFailures, windowSeconds: deps.config.authWindowSeconds };
    caller = authenticate(deps.db.prisma, parseAuthorization(req.headers.authorization), req.ip ?? 'unknown', limits);
    caller.catch(() => undefined); // awaited below; this only keeps an early rejection from counting as unhandled
    callers.set(req, caller);
  }
  return caller;
}

export function registerSecurity(api: OpenAPIBackend, deps: { config: Config; db: Database }) {
  const scheme = (name: 'basic' | 'bearer') => async (_c: Context, req: Request) =>
    parseAuthorization(req.headers.authorization)?.scheme === name ? ((await callerOf(req, deps)) ?? false) : false;
  api.registerSecurityHandler('basicAuth', scheme('basic'));
  api.registerSecurityHandler('bearerAuth', scheme('bearer'));

  api.register({
    postSecurityHandler: async (c: Context, req: Request, res: Response) => {
      // Wrong credentials are refused on every route, reads included.
      const caller = await callerOf(req, deps);
      const required = (c.operation as { 'x-required-role'?: unknown })['x-required-role'];
      if (required !== undefined && (!isRole(required) || !hasRole(caller, required))) throw forbidden(caller);
      res.locals.caller = caller;
    },
    // Reached only when postSecurityHandler let an anonymous caller through to an operation that
    // needs an account, i.e. an operation without `x-required-role`: refuse all the same.
    unauthorizedHandler: () => {
      throw forbidden(null);
    },
  });
}

/** The caller established by the security handlers for this request. */
export const callerOfResponse = (res: Response): Caller => (res.locals.caller as Caller | undefined) ?? null;
