// Authentication through openapi-backend's security handlers, one per scheme of the document
// (`basicAuth`, `bearerAuth`), and the role an operation needs (`x-required-role` in the document),
// checked before the request is validated so that callers who may not write learn nothing more.
import type { Request, Response } from 'express';
import type { Context, OpenAPIBackend } from 'openapi-backend';
import { authenticate, parseAuthorization } from '../auth/authenticate.js';
import { forbidden } from '../auth/permissions.js';
import { type Caller, hasRole, isRole } from '../auth/roles.js';
import type { Config } from '../config.js';
import { requiredRole } from '../openapi.js';
import type { Database } from '../db/client.js';
import { InvalidCredentials, Throttled } from '../domain/errors.js';
import { signInFailures, signInThrottled } from '../metrics/registry.js';
import type { RateLimits } from './rate-limits.js';
import { innerOf } from './batch.js';

interface Deps {
  config: Config;
  db: Database;
  rateLimits: RateLimits;
}

// Both schemes' handlers run for every request; they share one authentication per request.
const callers = new WeakMap<Request, Promise<Caller>>();

function callerOf(req: Request, res: Response, deps: Deps): Promise<Caller> {
  let caller = callers.get(req);
  // A batch's request is its batch's caller's, authenticated once for all of them (http/batch.ts).
  const inner = innerOf(req);
  if (!caller && inner) caller = Promise.resolve(inner.caller);
  if (!caller) {
    const limits = {
      maxFailures: deps.config.authMaxFailures,
      maxAddressFailures: deps.config.authMaxAddressFailures,
      windowSeconds: deps.config.authWindowSeconds,
    };
    const credentials = parseAuthorization(req.headers.authorization);
    // A check that costs a password hash is a sign-in, limited per address; the same credentials
    // in parallel share one check, and count as one.
    caller = authenticate(deps.db.prisma, credentials, req.ip ?? 'unknown', limits, () =>
      deps.rateLimits.take('sign-in', { caller: null, address: req.ip }, res),
    );
    caller.catch((err: unknown) => {
      if (err instanceof InvalidCredentials) signInFailures.inc();
      else if (err instanceof Throttled) signInThrottled.inc();
    });
    callers.set(req, caller);
  }
  return caller;
}

/**
 * Registers the security handlers, and gives the caller of a request that no operation answers
 * (OPTIONS, which describes a route): wrong credentials are refused there too.
 */
export function registerSecurity(api: OpenAPIBackend, deps: Deps): (req: Request, res: Response) => Promise<Caller> {
  const scheme = (name: 'basic' | 'bearer') => async (_c: Context, req: Request, res: Response) =>
    parseAuthorization(req.headers.authorization)?.scheme === name
      ? ((await callerOf(req, res, deps)) ?? false)
      : false;
  api.registerSecurityHandler('basicAuth', scheme('basic'));
  api.registerSecurityHandler('bearerAuth', scheme('bearer'));
  // An RSVP's owner's token opens that RSVP alone: the service checks it against the RSVP
  // (services/rsvps/secrets.ts); here it only lets the request reach it.
  api.registerSecurityHandler('rsvpToken', (_c: Context, req: Request) => Boolean(req.get('RSVP-Token')));
  api.registerSecurityHandler('submissionToken', (_c: Context, req: Request) => Boolean(req.get('Submission-Token')));

  api.register({
    postSecurityHandler: async (c: Context, req: Request, res: Response) => {
      // Wrong credentials are refused on every route, reads included.
      const caller = await callerOf(req, res, deps);
      // Counted before the role check, so that refused attempts count too; an upload was counted
      // before its body was read (http/upload-body.ts).
      if (!res.locals[COUNTED]) {
        // An operation counts as what its method says, unless the document says otherwise
        // (`x-counts-as`: a batch is one read, and each of its requests counts as itself).
        const countsAs = (c.operation as { 'x-counts-as'?: 'read' | 'write' })['x-counts-as'];
        const read = countsAs ? countsAs === 'read' : c.operation.method === 'get';
        await deps.rateLimits.take(read ? 'reads' : 'writes', { caller, address: req.ip }, res);
      }
      if (!mayCall(caller, c.operation.operationId ?? '')) throw forbidden(caller);
      res.locals.caller = caller;
    },
    // Reached only when postSecurityHandler let an anonymous caller through to an operation that
    // needs an account, i.e. an operation without `x-required-role`: refuse all the same.
    unauthorizedHandler: () => {
      throw forbidden(null);
    },
  });
  return (req, res) => callerOf(req, res, deps);
}

/**
 * The caller has the role the document asks of the operation (`x-required-role`; none asked:
 * anyone): REST's early exit, and what Allow lists (allowed-methods.ts). The services assert the
 * same rules as capabilities at every door (auth/capabilities.ts).
 */
export function mayCall(caller: Caller, operationId: string): boolean {
  const role = requiredRole(operationId);
  return role === undefined || (isRole(role) && hasRole(caller, role));
}

/** Set on a request whose read or write was counted before dispatch. */
export const COUNTED = 'countedBeforeDispatch';

/** The caller established by the security handlers for this request. */
export const callerOfResponse = (res: Response): Caller => (res.locals.caller as Caller | undefined) ?? null;
