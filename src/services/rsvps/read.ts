// Reading RSVPs: an event's organisers read them all, anyone else its own only (access.ts); names
// and e-mail addresses go nowhere else (the event's JSON shows counts: queries/event-rows.ts).
import type { Prisma, Rsvp } from '../../../generated/prisma/client.js';
import { NotFound } from '../../domain/errors.js';
import type { PrismaClient } from '../../db/client.js';
import type { RsvpEvent } from '../../queries/rsvps.js';
import type { ServiceContext } from '../context.js';
import { assertRsvpTarget, isOrganiser, ownsRsvp } from './access.js';
import { matches } from '../secrets.js';

/** The event as reading its RSVPs needs it, not locked. */
export async function readTarget(
  db: PrismaClient,
  ctx: ServiceContext,
  id: number,
): Promise<RsvpEvent & { slug: string }> {
  const row = await db.event.findUnique({ where: { id } });
  const event = row && {
    ...row,
    series: row.recurrence.length > 0,
    open: row.rsvpOpen,
    capacity: row.rsvpCapacity,
    guestsMax: row.rsvpGuestsMax,
    approval: row.rsvpApproval,
    anonymous: row.rsvpAnonymous,
    closesBefore: row.rsvpClosesBefore,
  };
  return assertRsvpTarget(ctx.caller, id, event ?? undefined);
}

/** A page of the event's RSVPs in the order they came, and how many there are. */
export async function listRsvps(
  ctx: ServiceContext,
  eventId: number,
  page: { take: number; skip: number },
): Promise<{ items: Rsvp[]; total: number }> {
  const event = await readTarget(ctx.db, ctx, eventId);
  if (!isOrganiser(ctx.caller, event) && ctx.caller === null) return { items: [], total: 0 };
  const where: Prisma.RsvpWhereInput = isOrganiser(ctx.caller, event)
    ? { eventId }
    : { eventId, accountId: ctx.caller?.id };
  const [items, total] = await Promise.all([
    ctx.db.rsvp.findMany({ where, orderBy: [{ createdAt: 'asc' }, { id: 'asc' }], ...page }),
    ctx.db.rsvp.count({ where }),
  ]);
  return { items, total };
}

/** One RSVP, for the event's organisers and its owner (by its account, or its `token`: secrets.ts). */
export async function getRsvp(ctx: ServiceContext, eventId: number, rsvpId: number, token?: string): Promise<Rsvp> {
  const event = await readTarget(ctx.db, ctx, eventId);
  const rsvp = await ctx.db.rsvp.findFirst({ where: { id: rsvpId, eventId } });
  const may = rsvp && (isOrganiser(ctx.caller, event) || ownsRsvp(ctx.caller, rsvp) || matches(token, rsvp.tokenHash));
  if (!may) throw new NotFound('rsvp', rsvpId);
  return rsvp;
}
