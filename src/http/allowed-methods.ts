// What every answer of a route says in Allow, as WordPress does: the methods of the route that this
// caller may use, by the role each operation asks for (the objects' own rules are in `_links`).
import type { Operation, OpenAPIBackend } from 'openapi-backend';
import type { Caller } from '../auth/roles.js';
import { METHODS } from './backend.js';
import { mayCall } from './security.js';

/** The operations of each route (path template), found once: every answer's Allow lists them. */
export type RouteOperations = Map<string, Operation[]>;

export function operationsByRoute(api: OpenAPIBackend): RouteOperations {
  const routes: RouteOperations = new Map();
  for (const operation of api.router.getOperations()) {
    routes.set(operation.path, [...(routes.get(operation.path) ?? []), operation]);
  }
  return routes;
}

/** The methods of a route (by its operations) that this caller may use, in METHODS order. */
export function usableMethods(operations: Operation[], caller: Caller): string[] {
  const usable = new Set(
    operations
      .filter((candidate) => mayCall(caller, candidate.operationId ?? ''))
      .map((candidate) => candidate.method.toUpperCase()),
  );
  return METHODS.filter((m) => usable.has(m));
}
