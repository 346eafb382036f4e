// Writing an event that exists: its own row and links, then, for a series, its occurrences
// (services/series/sync.ts). Writes
// are true partial updates: a field that is not sent keeps its value (docs/decisions.md, "Writes are
// partial updates"). Every function runs in the caller's transaction with the event locked
// (scope.ts lockTarget).
import { effectiveAuthor, effectiveStatus } from '../../auth/permissions.js';
import type { Tx } from '../../db/client.js';
import type { ServiceContext } from '../context.js';
import { slugForUpdate } from '../post-writes.js';
import { publicationDate, userExists } from '../posts.js';
import { recurrenceFor } from '../series/lines.js';
import { followSeriesWrite } from '../series/sync.js';
import { type EventInput, columns, times } from './input.js';
import type { EventRow } from './scope.js';
import { writeLinks, takenSlugs } from './links-and-slugs.js';
import { imageColumns } from '../media.js';

/** Writes the event's own row and links; answers the row before and after. */
export async function writeEvent(
  tx: Tx,
  ctx: ServiceContext,
  current: EventRow,
  input: EventInput,
  extra: { isException?: boolean } = {},
) {
  const { caller, siteZone } = ctx;
  const title = input.title?.trim() ?? current.title;
  const publishedAt = publicationDate(input, siteZone);
  const when = times(input, current, siteZone);
  const after = await tx.event.update({
    where: { id: current.id },
    data: {
      ...columns(input, when, current),
      ...(await imageColumns(input.image, tx, caller)),
      ...when,
      recurrence: recurrenceFor(input, current, when),
      title,
      slug: await slugForUpdate(input.slug, current, title, 'event', (base) => takenSlugs(tx, base, current.id)),
      status: effectiveStatus(caller, input.status, current.status),
      authorId: await effectiveAuthor(caller, input.author, current.authorId, (user) => userExists(tx, user)),
      modifiedAt: new Date(),
      ...(publishedAt ? { publishedAt } : {}),
      ...extra,
    },
  });
  await writeLinks(tx, ctx, current.id, input);
  return after;
}

/** A write of a single event or a series, then of the series' occurrences. */
export async function writeEventAndOccurrences(
  tx: Tx,
  ctx: ServiceContext,
  current: EventRow,
  input: EventInput,
): Promise<void> {
  const after = await writeEvent(tx, ctx, current, input);
  const links = [input.venue, input.organizer, input.categories, input.tags].some((v) => v !== undefined);
  await followSeriesWrite(tx, ctx, current, after, { lines: input.recurrence !== undefined, links });
}
