// The moderation queue (docs/decisions.md, "Public submissions"): editors read submissions oldest
// first, and approve or reject each once. A decision locks the submission's row (FOR UPDATE) and
// decides only one still undecided, so that two editors deciding at once decide once: the second
// waits for the first's commit, then finds it decided (409). The event, and the venue and organizer
// that came with it, are written by their own writers in the decision's transaction.
import { Prisma } from '../../../generated/prisma/client.js';
import { assertMay } from '../../auth/capabilities.js';
import type { Tx } from '../../db/client.js';
import { statementsOf } from '../../db/driver.js';
import { InvalidInput, NotFound, SubmissionRefused } from '../../domain/errors.js';
import { ORGANIZER, VENUE } from '../../domain/records.js';
import type { SubmissionRecord, SubmissionRow, SubmissionState } from '../../domain/submissions.js';
import { sendsMail } from '../../mail/outbox.js';
import { selectEvents } from '../../queries/event-rows.js';
import type { ServiceContext } from '../context.js';
import { changeEvent } from '../events/update.js';
import { inTransaction } from '../retry.js';
import { changeVenueOrOrganizer, tableOf } from '../venues-and-organizers.js';
import { queueSubmissionMail } from './mail.js';

const COLUMNS = Prisma.sql`s.id, s.event_id AS "eventId", s.state, s.submitter_name AS "submitterName",
  s.submitter_email AS "submitterEmail", s.account_id AS "accountId", s.new_venue_id AS "newVenueId",
  s.new_organizer_id AS "newOrganizerId", s.new_image_id AS "newImageId", s.suggested_categories AS "suggestedCategories", s.links,
  s.spam_reasons AS "spamReasons", s.reason, s.submitted_at AS "submittedAt", s.decided_at AS "decidedAt",
  s.federation_source_id AS "federationSourceId", s.source_url AS "sourceUrl",
  (SELECT f.actor_id FROM federation_sources f WHERE f.id = s.federation_source_id) AS "sourceActor"`;

/** The submissions with their events, as editors read them. */
async function withEvents(db: ServiceContext['db'] | Tx, rows: SubmissionRow[]): Promise<SubmissionRecord[]> {
  if (!rows.length) return [];
  const ids = rows.map((row) => row.eventId);
  const events = new Map(
    (await selectEvents(db, { where: Prisma.sql`e.id = ANY(${ids}::int[])` })).map((event) => [event.id, event]),
  );
  return rows.flatMap((row) => {
    const event = events.get(row.eventId);
    return event ? [{ ...row, event }] : [];
  });
}

/** One state's submissions, oldest first, and how many there are. */
export async function listSubmissions(
  ctx: ServiceContext,
  state: SubmissionState,
  page: { take: number; skip: number },
): Promise<{ items: SubmissionRecord[]; total: number }> {
  assertMay(ctx.caller, 'moderate submissions');
  const [rows, [{ total }]] = await Promise.all([
    ctx.db.$queryRaw<SubmissionRow[]>`SELECT ${COLUMNS} FROM submissions s WHERE s.state = ${state}
      ORDER BY s.submitted_at, s.id LIMIT ${page.take}::int OFFSET ${page.skip}::int`,
    ctx.db.$queryRaw<{ total: number }[]>`SELECT count(*)::int AS total FROM submissions WHERE state = ${state}`,
  ]);
  return { items: await withEvents(ctx.db, rows), total };
}

export async function getSubmission(ctx: ServiceContext, id: number): Promise<SubmissionRecord> {
  assertMay(ctx.caller, 'moderate submissions');
  return readSubmission(ctx.db, id);
}

async function readSubmission(db: ServiceContext['db'] | Tx, id: number, lock = false): Promise<SubmissionRecord> {
  const rows = lock
    ? await db.$queryRaw<SubmissionRow[]>`SELECT ${COLUMNS} FROM submissions s WHERE s.id = ${id}::int FOR UPDATE`
    : await db.$queryRaw<SubmissionRow[]>`SELECT ${COLUMNS} FROM submissions s WHERE s.id = ${id}::int`;
  const found = (await withEvents(db, rows)).at(0);
  if (!found) throw new NotFound('submission', id);
  return found;
}

/** The submission locked for its decision, or a 409 when it was decided already. */
async function undecided(tx: Tx, id: number): Promise<SubmissionRecord> {
  const found = await readSubmission(tx, id, true);
  if (found.state === 'approved' || found.state === 'rejected') {
    throw new SubmissionRefused('decided', `This submission was ${found.state} already.`);
  }
  return found;
}

async function decide(tx: Tx, ctx: ServiceContext, id: number, state: 'approved' | 'rejected', reason: string | null) {
  await tx.$executeRaw`UPDATE submissions SET state = ${state}, reason = ${reason}, decided_at = now(),
    decided_by = ${ctx.caller?.id ?? null}::int WHERE id = ${id}::int`;
  if (sendsMail(ctx)) await queueSubmissionMail(statementsOf(tx), `submission-${state}`, id);
}

/**
 * Publishes the submission's event, with the venue and organizer it brought, or links the event to
 * those named instead (the new ones are deleted: nothing else links to them, as only their own
 * submission can name an unpublished one).
 */
export async function approveSubmission(
  ctx: ServiceContext,
  id: number,
  merge: { venue?: number; organizer?: number },
): Promise<SubmissionRecord> {
  assertMay(ctx.caller, 'moderate submissions');
  await inTransaction(ctx, async (tx) => {
    const found = await undecided(tx, id);
    for (const kind of [VENUE, ORGANIZER]) {
      const target = kind === VENUE ? merge.venue : merge.organizer;
      const fresh = kind === VENUE ? found.newVenueId : found.newOrganizerId;
      if (target !== undefined) {
        const exists = await tableOf(kind, tx).findFirst({ where: { id: target, status: { not: 'trash' } } });
        if (!exists) throw new InvalidInput({ [kind.type]: `There is no ${kind.type} with ID ${target}.` });
      } else if (fresh !== null) {
        await changeVenueOrOrganizer(tx, ctx, kind, { id: fresh }, { status: 'publish' });
      }
    }
    await changeEvent(
      tx,
      ctx,
      { id: found.eventId },
      {
        status: 'publish',
        ...(merge.venue !== undefined ? { venue: merge.venue } : {}),
        ...(merge.organizer !== undefined ? { organizer: merge.organizer } : {}),
      },
    );
    if (merge.venue !== undefined && found.newVenueId !== null && found.newVenueId !== merge.venue) {
      await tx.venue.delete({ where: { id: found.newVenueId } });
    }
    if (merge.organizer !== undefined && found.newOrganizerId !== null && found.newOrganizerId !== merge.organizer) {
      await tx.organizer.delete({ where: { id: found.newOrganizerId } });
    }
    await decide(tx, ctx, id, 'approved', null);
  });
  return readSubmission(ctx.db, id);
}

/**
 * The image a rejected submission sent is deleted at once: it was never shown, and may be why it
 * was rejected. Its row is locked first, so that an editor's write naming it (whose foreign key
 * check takes a key share lock on it) waits for this to end and then finds it gone; one that named
 * it before keeps it: it is deleted only while the rejected event alone shows it.
 */
async function dropPendingImage(tx: Tx, eventId: number, imageId: number): Promise<void> {
  await tx.$executeRaw`UPDATE events SET image_id = NULL WHERE id = ${eventId}::int AND image_id = ${imageId}::int`;
  await tx.$executeRaw`SELECT id FROM media WHERE id = ${imageId}::int AND pending FOR UPDATE`;
  await tx.$executeRaw`DELETE FROM media m WHERE m.id = ${imageId}::int AND m.pending
    AND NOT EXISTS (SELECT 1 FROM events e WHERE e.image_id = m.id)
    AND NOT EXISTS (SELECT 1 FROM venues v WHERE v.image_id = m.id)
    AND NOT EXISTS (SELECT 1 FROM organizers o WHERE o.image_id = m.id)`;
}

/** Moves the submission's event, and the venue and organizer it brought, to the trash; deletes the image it sent. */
export async function rejectSubmission(ctx: ServiceContext, id: number, reason: string): Promise<SubmissionRecord> {
  assertMay(ctx.caller, 'moderate submissions');
  await inTransaction(ctx, async (tx) => {
    const found = await undecided(tx, id);
    const modifiedAt = new Date();
    await tx.event.update({ where: { id: found.eventId }, data: { status: 'trash', modifiedAt } });
    if (found.newVenueId !== null) {
      await tx.venue.updateMany({
        where: { id: found.newVenueId, status: { not: 'publish' } },
        data: { status: 'trash', modifiedAt },
      });
    }
    if (found.newOrganizerId !== null) {
      await tx.organizer.updateMany({
        where: { id: found.newOrganizerId, status: { not: 'publish' } },
        data: { status: 'trash', modifiedAt },
      });
    }
    if (found.newImageId !== null) await dropPendingImage(tx, found.eventId, found.newImageId);
    await decide(tx, ctx, id, 'rejected', reason.trim());
  });
  return readSubmission(ctx.db, id);
}
