// A list's scope (auth/permissions.ts listScope) as a condition of hand-written SQL, or of a Prisma query.
import { Prisma } from '../../generated/prisma/client.js';
import type { ListScope } from '../auth/permissions.js';

/** Published items only: what anonymous callers and subscribers see, and the lists worth making fast. */
export const isPublic = (scope: ListScope) =>
  scope.ownerId === undefined && scope.statuses.length === 1 && scope.statuses[0] === 'publish';

/**
 * The scope as a condition on the table named `alias`. The public one is written out as a literal so
 * that the planner can use the partial indexes made for it.
 */
export function inScope(scope: ListScope, alias: string): Prisma.Sql {
  const table = Prisma.raw(alias);
  if (isPublic(scope)) return Prisma.sql`${table}.status = 'publish'`;
  const statuses = Prisma.sql`${table}.status::text = ANY(${scope.statuses}::text[])`;
  return scope.ownerId === undefined
    ? statuses
    : Prisma.sql`${statuses} AND (${table}.status = 'publish' OR ${table}.author_id = ${scope.ownerId}::int)`;
}

/** The scope as a Prisma `where` on a post table (events, venues, organizers). */
export function scopeWhere(scope: ListScope) {
  return {
    status: { in: scope.statuses },
    ...(scope.ownerId === undefined ? {} : { OR: [{ status: 'publish' as const }, { authorId: scope.ownerId }] }),
  };
}
