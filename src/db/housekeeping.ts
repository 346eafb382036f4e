// Rows that only matter for a while: sign-in failures, rate limit windows and hours of creates per account that have ended, RSVPs never confirmed, submissions' counts, proofs and spam, idempotency keys
// older than a day, changes older than the feed's retention, and webhook messages sent, given up or
// waiting on a disabled subscription that long ago (with their attempts); the data versions of
// connections that are gone are folded into one row; uploads nothing shows are counted. Each instance purges now and then;
// running it on several at once is harmless (each delete is a condition on age, and the feed's
// retention mark only moves forward).
import { mediaLibraryBytes, unreferencedImages } from '../metrics/registry.js';
import { Prisma } from '../../generated/prisma/client.js';
import type { Database, PrismaClient } from './client.js';
import { isForeignKeyViolation } from './errors.js';

export interface Retention {
  authWindowSeconds: number;
  idempotencyHours: number;
  changesRetentionDays: number;
  /** How long submissions suspected of spam are kept (config/submissions.ts); none: 30 days. */
  spamDays?: number;
}

export async function purgeExpired(db: Database, retention: Retention): Promise<void> {
  const now = Date.now();
  await db.prisma.authFailure.deleteMany({
    where: { windowStart: { lt: new Date(now - retention.authWindowSeconds * 1000) } },
  });
  await db.prisma.idempotencyKey.deleteMany({
    where: { createdAt: { lt: new Date(now - retention.idempotencyHours * 3600_000) } },
  });
  // Rate limit counters (http/rate-limits.ts) of windows that ended a minute ago or more.
  await db.prisma.rateLimit.deleteMany({ where: { expire: { lt: BigInt(now - 60_000) } } });
  // Accounts' sign-ins from an address, remembered for 30 days (auth/throttle.ts).
  await db.prisma
    .$executeRaw`DELETE FROM auth_known_clients WHERE last_sign_in < ${new Date(now - 30 * 86_400_000)}::timestamptz`;
  // Creates per account of hours that have passed (services/quotas.ts).
  await db.prisma.$executeRaw`DELETE FROM account_creates WHERE hour < ${new Date(now - 3_600_000)}::timestamptz`;
  // RSVPs without an account whose confirmation link expired unused: they never counted, and the
  // address they name is let go (services/rsvps/anonymous.ts). A link used meanwhile set
  // `confirmed`, which this condition reads again once the row is free: no confirmed RSVP goes.
  // Looked for first: a DELETE of no row would still move the data version (rsvps_data_changed is a
  // statement trigger) and drop every kept answer at each round.
  const [expired] = await db.prisma.$queryRaw<{ any: boolean }[]>`
    SELECT EXISTS (SELECT 1 FROM rsvps WHERE NOT confirmed AND confirm_expires < now()) AS any`;
  // Their events' rows are locked first, in ID order, as every RSVP write locks its event before
  // reading its RSVPs (services/rsvps/seats.ts): a write that read such a row finishes first, and
  // the delete then reads it again.
  if (expired.any) {
    await db.prisma.$executeRaw`
      DELETE FROM rsvps r USING (
        SELECT id FROM events WHERE id IN (
          SELECT event_id FROM rsvps WHERE NOT confirmed AND confirm_expires < now())
        ORDER BY id FOR UPDATE) e
      WHERE r.event_id = e.id AND NOT r.confirmed AND r.confirm_expires < now()`;
  }
  // Confirmation messages counted per address and day, of days that have passed.
  await db.prisma.$executeRaw`DELETE FROM mail_requests WHERE day < current_date`;
  await purgeSubmissions(db.prisma, new Date(now - (retention.spamDays ?? 30) * 86_400_000));
  const kept = new Date(now - retention.changesRetentionDays * 86_400_000);
  await pruneChanges(db.prisma, kept);
  await pruneDeliveries(db.prisma, kept);
  // Federation (migration federation): Fedify's cache entries past their time, and activities
  // delivered or given up on since before the changes kept (their rows only; nothing waits on them).
  await db.prisma.$executeRaw`DELETE FROM federation_kv WHERE expires_at < now()`;
  await db.prisma
    .$executeRaw`DELETE FROM federation_deliveries WHERE state <> 'pending' AND created_at < ${kept}::timestamptz`;
  await foldDataVersions(db.prisma);
  await countMediaLibrary(db.prisma);
  if (db.kind === 'pglite') await maintainEmbedded(db);
}

/**
 * Submissions counted per address and day of days that have passed, proofs of work that expired
 * (a used one can no longer be sent again), and submissions suspected of spam for longer than
 * editors keep them, with their events and the venue and organizer that came with them (none of
 * them published: spam never is), so that an open form cannot grow the database without end. An
 * editor approving such a submission meanwhile holds its row (services/submissions/moderate.ts):
 * the delete waits, then reads its state again and leaves it.
 */
async function purgeSubmissions(db: PrismaClient, spamBefore: Date): Promise<void> {
  await db.$executeRaw`DELETE FROM submission_requests WHERE day < current_date`;
  await db.$executeRaw`DELETE FROM submission_challenges WHERE expires_at < now()`;
  // Looked for first, as for RSVPs above: a delete of events moves the data version.
  const [old] = await db.$queryRaw<{ any: boolean }[]>`
    SELECT EXISTS (SELECT 1 FROM submissions WHERE state = 'spam' AND submitted_at < ${spamBefore}::timestamptz) AS any`;
  if (old.any) {
    await db.$executeRaw`
    WITH gone AS (
      DELETE FROM submissions WHERE state = 'spam' AND submitted_at < ${spamBefore}::timestamptz
      RETURNING event_id, new_venue_id, new_organizer_id),
    events_gone AS (DELETE FROM events WHERE id IN (SELECT event_id FROM gone) AND status <> 'publish'),
    venues_gone AS (DELETE FROM venues WHERE id IN (SELECT new_venue_id FROM gone) AND status <> 'publish')
    DELETE FROM organizers WHERE id IN (SELECT new_organizer_id FROM gone) AND status <> 'publish'`;
  }
  await purgeOrphanImages(db);
}

/**
 * Images sent with submissions that nothing shows any more, a day after they were last written: a
 * spam submission's, deleted above with its event, or one whose event an editor gave another image.
 * (A rejection deletes its own at once: services/submissions/moderate.ts.) Rows are locked first,
 * skipping those an editor's write holds (its foreign key check locks the row it names), a few
 * hundred a round; one named between the look and the delete fails the foreign key, and is left
 * for the next round rather than stopping this one.
 */
async function purgeOrphanImages(db: PrismaClient): Promise<void> {
  const orphans = Prisma.sql`m.pending AND m.modified_at < now() - interval '1 day'
    AND NOT EXISTS (SELECT 1 FROM events e WHERE e.image_id = m.id)
    AND NOT EXISTS (SELECT 1 FROM venues v WHERE v.image_id = m.id)
    AND NOT EXISTS (SELECT 1 FROM organizers o WHERE o.image_id = m.id)`;
  // Looked for first, as above.
  const [found] = await db.$queryRaw<{ any: boolean }[]>`SELECT EXISTS (SELECT 1 FROM media m WHERE ${orphans}) AS any`;
  if (!found.any) return;
  try {
    await db.$executeRaw`DELETE FROM media WHERE id IN (
      SELECT m.id FROM media m WHERE ${orphans} ORDER BY m.id LIMIT ${ORPHANS_A_ROUND}::int FOR UPDATE SKIP LOCKED)`;
  } catch (err) {
    if (!isForeignKeyViolation(err)) throw err;
  }
}

const ORPHANS_A_ROUND = 500;

/**
 * Finds the uploads nothing shows any more (an event deleted for good leaves its image in the
 * library, as WordPress does, since another item or a later one may use it): reported, not
 * deleted, as an image uploaded for an event not written yet is one too. Each test is an index
 * lookup (migration media_library).
 */
export async function countMediaLibrary(db: PrismaClient): Promise<void> {
  const [row] = await db.$queryRaw<{ unreferenced: number; bytes: bigint }[]>`
    SELECT
      (SELECT count(*)::int FROM media m
        WHERE NOT EXISTS (SELECT 1 FROM events e WHERE e.image_id = m.id)
          AND NOT EXISTS (SELECT 1 FROM venues v WHERE v.image_id = m.id)
          AND NOT EXISTS (SELECT 1 FROM organizers o WHERE o.image_id = m.id)) AS unreferenced,
      (SELECT coalesce(sum(octet_length(bytes)), 0)::bigint FROM media_files) AS bytes`;
  unreferencedImages.set(row.unreferenced);
  mediaLibraryBytes.set(Number(row.bytes));
}

/**
 * The tables whose statistics the planner needs and whose dead rows pile up: the events and what
 * lists join to them, and the tables housekeeping deletes from.
 */
const MAINTAINED = [
  'events',
  'event_venues',
  'event_organizers',
  'event_terms',
  'venues',
  'organizers',
  'terms',
  'listed_events_per_day',
  'changes',
  'idempotency_keys',
  'auth_failures',
  'webhook_deliveries',
  'webhook_attempts',
  'federation_kv',
  'federation_deliveries',
  'account_creates',
  'auth_known_clients',
];

/**
 * What PostgreSQL's autovacuum does on a server, which the embedded database (single-user, no
 * background workers) never does by itself: statistics for the planner (without them a list of a
 * venue's events took 200 ms instead of 15 on a thousand events, test/http/event-loop.test.ts), and
 * the space of deleted rows made free for new ones. With autovacuum's own thresholds: a table is
 * analyzed once a tenth of it has changed, vacuumed once a fifth of it is dead rows, so that most
 * rounds do nothing. One table per statement, so that the event loop gets a turn between them
 * (db/client.ts TurnTakingPGlite); a statement itself holds it, about half a second for a table of
 * 100,000 events (docs/performance.md).
 */
export async function maintainEmbedded(db: Database): Promise<void> {
  const due = await db.withConnection(async (sql) => {
    // The counters this process has not reported yet, reported: single-user, no one else does.
    await sql.exec('SELECT pg_stat_force_next_flush()');
    return sql.query<{ relname: string; vacuum: boolean; analyze: boolean }>(
      `SELECT relname,
         n_dead_tup > 50 + 0.2 * n_live_tup AS vacuum,
         n_mod_since_analyze > 50 + 0.1 * n_live_tup AS analyze
       FROM pg_stat_user_tables WHERE relname = ANY($1::text[])`,
      [MAINTAINED],
    );
  });
  for (const table of due) {
    const work = maintenanceDue(table);
    if (work) await db.withConnection((sql) => sql.exec(`${work} "${table.relname}"`));
  }
}

/** The statement a table is due: VACUUM (which analyzes as well), ANALYZE, or none. */
function maintenanceDue(table: { vacuum: boolean; analyze: boolean }): string | undefined {
  if (table.vacuum) return 'VACUUM (ANALYZE)';
  return table.analyze ? 'ANALYZE' : undefined;
}

/** Rows one statement of a purge deletes at most, so that it stays well within the statement timeout after a big import. */
const CHUNK = 5000;

/** Purges every `intervalMs` until the returned function is called; failures wait for the next round. */
export function startHousekeeping(
  db: Database,
  retention: Retention,
  intervalMs = 10 * 60_000,
  onError?: (err: unknown) => void,
  // Further rounds of work of the services' own (recurring series extended to the horizon).
  also: (() => Promise<unknown>)[] = [],
) {
  const timer = setInterval(() => {
    purgeExpired(db, retention).catch((err: unknown) => onError?.(err));
    for (const work of also) work().catch((err: unknown) => onError?.(err));
  }, intervalMs);
  timer.unref();
  return () => {
    clearInterval(timer);
  };
}

/**
 * Deletes the changes recorded before `before` and moves the feed's retention mark (migration
 * change_feed) past them: a cursor before the mark answers 410 (queries/changes.ts).
 */
export async function pruneChanges(db: PrismaClient, before: Date): Promise<void> {
  for (;;) {
    const [{ n }] = await db.$queryRaw<{ n: number }[]>`
      WITH gone AS (
        DELETE FROM changes WHERE seq IN (
          SELECT seq FROM changes WHERE recorded_at < ${before}::timestamptz ORDER BY xid, seq LIMIT ${CHUNK}::int)
        RETURNING xid, seq),
      last AS (SELECT xid, seq FROM gone ORDER BY xid DESC, seq DESC LIMIT 1),
      moved AS (
        UPDATE changes_pruned p SET xid = last.xid, seq = last.seq FROM last WHERE (last.xid, last.seq) > (p.xid, p.seq))
      SELECT count(*)::int AS n FROM gone`;
    if (n < CHUNK) return;
  }
}

/**
 * Folds the data versions of database connections that are gone into row 0, in one statement:
 * their sum, which answers are kept by (db/data-version.ts), stays the same. A connection that
 * raises its row meanwhile waits for this statement, or this one for it; either way the sum holds.
 */
async function foldDataVersions(db: PrismaClient): Promise<void> {
  await db.$executeRaw`
    WITH gone AS (
      DELETE FROM data_versions WHERE backend <> 0 AND backend NOT IN (SELECT pid FROM pg_stat_activity WHERE pid IS NOT NULL)
      RETURNING version)
    UPDATE data_versions SET version = version + (SELECT coalesce(sum(version), 0) FROM gone) WHERE backend = 0`;
}

/** Deletes, with their attempts, the webhook messages sent, given up or waiting on a disabled subscription since before `before`. */
async function pruneDeliveries(db: PrismaClient, before: Date): Promise<void> {
  for (;;) {
    const n = await db.$executeRaw`
      DELETE FROM webhook_deliveries WHERE id IN (
        SELECT d.id FROM webhook_deliveries d JOIN webhook_subscriptions s ON s.id = d.subscription_id
        WHERE d.created_at < ${before}::timestamptz AND (d.state <> 'pending' OR NOT s.enabled)
        LIMIT ${CHUNK}::int)`;
    if (n < CHUNK) return;
  }
}
