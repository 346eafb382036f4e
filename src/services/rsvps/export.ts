// An event's RSVPs for administrators to download (docs/decisions.md, "RSVP"): every RSVP, names and
// addresses included, read a page at a time as the client takes them, so that a big event's export
// is never held whole. Pages are read by ID after the last one sent, each as it is at that moment:
// an RSVP written meanwhile shows its newer state, and none is sent twice or left out for moving.
import type { Prisma } from '../../../generated/prisma/client.js';
import { assertMay } from '../../auth/capabilities.js';
import type { ServiceContext } from '../context.js';
import { readTarget } from './read.js';

/** RSVPs read per statement: about 100 kB of CSV. */
export const EXPORT_PAGE = 500;

export interface RsvpExport {
  slug: string;
  /** Of what the file is made of: the count, the last change and the last ID of the event's RSVPs. */
  version: string;
  rows: AsyncIterable<ExportedRsvp>;
}

/** What the export shows of each RSVP (the document's RsvpCsv). */
const COLUMNS = {
  id: true,
  name: true,
  email: true,
  guests: true,
  answer: true,
  status: true,
  checkInCode: true,
  createdAt: true,
  modifiedAt: true,
} as const satisfies Prisma.RsvpSelect;

export type ExportedRsvp = Prisma.RsvpGetPayload<{ select: typeof COLUMNS }>;

export async function exportRsvps(ctx: ServiceContext, eventId: number): Promise<RsvpExport> {
  assertMay(ctx.caller, 'administer rsvps');
  const event = await readTarget(ctx.db, ctx, eventId);
  const { _count, _max } = await ctx.db.rsvp.aggregate({
    where: { eventId },
    _count: true,
    _max: { id: true, modifiedAt: true },
  });
  return {
    slug: event.slug,
    version: `${_count}-${_max.id ?? 0}-${_max.modifiedAt?.getTime() ?? 0}`,
    rows: pages(ctx, eventId),
  };
}

async function* pages(ctx: ServiceContext, eventId: number): AsyncIterable<ExportedRsvp> {
  let after = 0;
  for (;;) {
    const page = await ctx.db.rsvp.findMany({
      where: { eventId, id: { gt: after } },
      orderBy: { id: 'asc' },
      take: EXPORT_PAGE,
      select: COLUMNS,
    });
    yield* page;
    if (page.length < EXPORT_PAGE) return;
    after = page[page.length - 1].id;
  }
}
