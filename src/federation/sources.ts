// The remote actors the calendar follows (federation_sources, migration federation_sources): the
// rows the administrator's operations list and change (services/federation-sources.ts) and the
// inbox reads (inbox.ts). Each write is one statement, or a transaction that locks the row first.
import type { PrismaClient, Tx } from '../db/client.js';

export type SourceState = 'pending' | 'accepted' | 'rejected';

export interface SourceRow {
  id: number;
  actorId: string;
  handle: string | null;
  name: string;
  actorType: string;
  inbox: string;
  outbox: string | null;
  host: string;
  followId: string;
  state: SourceState;
  trusted: boolean;
  createdAt: Date;
  modifiedAt: Date;
  acceptedAt: Date | null;
  /** How many events it brought that are here (not counting those deleted for good). */
  events: number;
}

const COLUMNS = `s.id, s.actor_id AS "actorId", s.handle, s.name, s.actor_type AS "actorType", s.inbox, s.outbox,
  s.host, s.follow_id AS "followId", s.state, s.trusted, s.created_at AS "createdAt", s.modified_at AS "modifiedAt",
  s.accepted_at AS "acceptedAt",
  (SELECT count(*)::int FROM federation_remote_events r WHERE r.source_id = s.id) AS events`;

type Db = PrismaClient | Tx;

/** Every source, oldest first, a page at a time, and how many there are. */
export async function sourcesPage(db: PrismaClient, take: number, skip: number) {
  const [items, [{ total }]] = await Promise.all([
    db.$queryRawUnsafe<SourceRow[]>(
      `SELECT ${COLUMNS} FROM federation_sources s ORDER BY s.id LIMIT $1::int OFFSET $2::int`,
      take,
      skip,
    ),
    db.$queryRaw<{ total: number }[]>`SELECT count(*)::int AS total FROM federation_sources`,
  ]);
  return { items, total };
}

export async function sourceById(db: Db, id: number, lock = false): Promise<SourceRow | undefined> {
  const rows = await db.$queryRawUnsafe<SourceRow[]>(
    `SELECT ${COLUMNS} FROM federation_sources s WHERE s.id = $1::int${lock ? ' FOR UPDATE OF s' : ''}`,
    id,
  );
  return rows.at(0);
}

export async function sourceByActor(db: Db, actorId: string): Promise<SourceRow | undefined> {
  const rows = await db.$queryRawUnsafe<SourceRow[]>(
    `SELECT ${COLUMNS} FROM federation_sources s WHERE s.actor_id = $1`,
    actorId,
  );
  return rows.at(0);
}

/** What following an actor records: the rest of a SourceRow is the database's or comes later. */
export type NewSource = Pick<
  SourceRow,
  'actorId' | 'handle' | 'name' | 'actorType' | 'inbox' | 'outbox' | 'followId' | 'trusted'
>;

/**
 * Inserts the source, or answers undefined when the actor is followed already: the unique
 * actor_id decides between two follows of the same actor sent at once, and the second is told.
 */
export async function insertSource(tx: Tx, s: NewSource): Promise<number | undefined> {
  const rows = await tx.$queryRaw<{ id: number }[]>`
    INSERT INTO federation_sources (actor_id, handle, name, actor_type, inbox, outbox, host, follow_id, trusted)
    VALUES (${s.actorId}, ${s.handle}, ${s.name}, ${s.actorType}, ${s.inbox}, ${s.outbox}, ${new URL(s.actorId).host},
      ${s.followId}, ${s.trusted})
    ON CONFLICT (actor_id) DO NOTHING RETURNING id`;
  return rows.at(0)?.id;
}

/**
 * The answer to our Follow, from the actor it asked: one conditional update on the follow's id and
 * the answering actor, so that another actor cannot accept a follow of someone else, and an answer
 * to a follow since undone finds nothing. Answers the source when it changed.
 */
export async function answerFollow(
  db: PrismaClient,
  followId: string,
  actorId: string,
  state: 'accepted' | 'rejected',
): Promise<number | undefined> {
  const rows = await db.$queryRaw<{ id: number }[]>`
    UPDATE federation_sources SET state = ${state}, modified_at = now(),
      accepted_at = CASE WHEN ${state} = 'accepted' THEN coalesce(accepted_at, now()) END
    WHERE follow_id = ${followId} AND actor_id = ${actorId} AND state <> ${state}
    RETURNING id`;
  return rows.at(0)?.id;
}

/** The accepted source that is this actor, if the calendar follows it. */
export async function followedSource(db: Db, actorId: string): Promise<SourceRow | undefined> {
  const source = await sourceByActor(db, actorId);
  return source?.state === 'accepted' ? source : undefined;
}
