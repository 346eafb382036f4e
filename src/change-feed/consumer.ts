// A consumer of the change feed that turns changes into deliveries and sends them: what webhooks
// (src/webhooks/) and federation (src/federation/) share. Two parts:
//
// - `dispatchFromCursor`: reads the changes after the consumer's position (a one-row table, such as
//   `webhook_dispatch` of migration webhooks) as the feed does (queries/changes.ts: only changes of
//   transactions older than every one still running), lets the consumer write its deliveries, and
//   moves the position, all in one transaction that holds the position's row lock: a second
//   instance skips the locked row instead of dispatching the same changes again, and a crash before
//   the commit leaves the position where it was. The write that made a change never waits.
// - `startDeliveryLoop`: every `pollMs`, and shortly after a write nudges it, a round dispatches one
//   batch and then fills the free attempt slots with due deliveries, taking more as attempts end,
//   without waiting for slow receivers before it looks again. Several instances may run it at once:
//   leasing (each consumer's deliver.ts) keeps them from taking the same delivery.
import { Prisma } from '../../generated/prisma/client.js';
import type { Database, Tx } from '../db/client.js';
import { type ChangeRow, type FeedPosition, selectChanges } from '../queries/changes.js';

/** Where a consumer keeps its position, and what it reads of the feed. */
export interface FeedCursor {
  /** The one-row table of its position (`xid`, `seq`). */
  table: 'webhook_dispatch' | 'federation_dispatch';
  /** Changes of RSVPs, and submissions received, too (selectChanges). */
  attendeeData?: boolean;
  submissions?: boolean;
  /** What is reported when the position fell behind the feed's retention. */
  fellBehind: string;
}

/**
 * Dispatches up to `limit` changes through `write`; answers how many it read (0: nothing to do, or
 * another instance is at it). Should the position have fallen behind the change feed's retention
 * (dispatch failing for longer than CHANGES_RETENTION_DAYS), the changes pruned are lost to this
 * consumer: it goes on from the retention mark and tells `report`.
 */
export async function dispatchFromCursor(
  db: Database,
  cursor: FeedCursor,
  limit: number,
  write: (tx: Tx, changes: ChangeRow[]) => Promise<void>,
  report: (err: Error) => void,
): Promise<number> {
  const table = Prisma.raw(cursor.table);
  const read = (tx: Tx, after: FeedPosition) =>
    selectChanges(tx, after, limit, cursor.attendeeData ?? false, cursor.submissions ?? false);
  // A generous time limit: a batch reads and serializes up to `limit` objects.
  return db.prisma.$transaction(
    async (tx) => {
      const locked = await tx.$queryRaw<
        FeedPosition[]
      >`SELECT xid::text, seq::text FROM ${table} FOR UPDATE SKIP LOCKED`;
      const held = locked.at(0);
      // Another instance holds the row: it is dispatching these changes.
      if (!held) return 0;
      let position = held;
      let page = await read(tx, position);
      if ('expired' in page) {
        report(new Error(cursor.fellBehind));
        position = page.expired;
        page = await read(tx, position);
      }
      // A position this dispatcher wrote is never ahead, nor (just moved to it) before the retention.
      if (!('changes' in page)) return 0;
      const last = page.changes.at(-1)?.position ?? position;
      if (page.changes.length) await write(tx, page.changes);
      if (last !== held) {
        await tx.$executeRaw`UPDATE ${table} SET xid = ${last.xid}::xid8, seq = ${last.seq}::bigint`;
      }
      return page.changes.length;
    },
    { timeout: 30_000 },
  );
}

/** What a consumer gives the loop. */
export interface DeliveryParts<Leased> {
  /** Turns up to `limit` new changes into deliveries (dispatchFromCursor); answers how many it read. */
  dispatch: (limit: number) => Promise<number>;
  /** Leases up to `limit` due deliveries. */
  lease: (limit: number) => Promise<Leased[]>;
  /** Makes one attempt of a leased delivery and records it. */
  attempt: (delivery: Leased) => Promise<void>;
  /**
   * Asked at each poll, when given: whether there is anyone to deliver to. While not, nudges run no
   * round; the polls go on (webhooks/worker.ts says why nothing is lost).
   */
  active?: () => Promise<boolean>;
  /** Attempts in flight at once, per instance. */
  concurrency: number;
  pollMs: number;
}

export interface DeliveryLoop {
  /** Look for work soon (after a write), instead of at the next poll. */
  nudge: () => void;
  /** Stops polling and waits for the round and the attempts in flight. */
  stop: () => Promise<void>;
}

/** Changes dispatched in one transaction. */
const DISPATCH_BATCH = 200;

/** How long a nudge waits, so that the writes of a busy moment are dispatched together. */
const NUDGE_DELAY_MS = 25;

export function startDeliveryLoop<Leased>(parts: DeliveryParts<Leased>, onError: (err: unknown) => void): DeliveryLoop {
  const inFlight = new Set<Promise<void>>();
  // Sends started when an attempt freed its slot (below), outside any round.
  const refills = new Set<Promise<void>>();
  let running: Promise<void> | undefined;
  // Set when work was asked for while a round ran: the running one goes round once more.
  let again = false;
  const askedAgain = () => again;
  let stopped = false;
  // Read through a function: an attempt's end or a new round may come after stop().
  const isStopped = () => stopped;
  let nudged: NodeJS.Timeout | undefined;

  function round(): Promise<void> {
    if (running) {
      again = true;
      return running;
    }
    running = dispatchAndSend().finally(() => {
      running = undefined;
    });
    return running;
  }

  async function dispatchAndSend() {
    try {
      let more: boolean;
      do {
        again = false;
        // One batch, then sending: under a steady stream of writes there is always more to dispatch,
        // and sending must not wait for the stream to end.
        try {
          more = (await parts.dispatch(DISPATCH_BATCH)) === DISPATCH_BATCH;
        } finally {
          // Retries go out even while dispatching fails.
          await send();
        }
      } while ((more || askedAgain()) && !isStopped());
    } catch (err) {
      onError(err);
    }
  }

  /** Fills the free attempt slots with due deliveries. */
  async function send() {
    if (isStopped()) return;
    const leased = await parts.lease(parts.concurrency - inFlight.size);
    for (const delivery of leased) {
      const sending = parts
        .attempt(delivery)
        .catch(onError)
        .finally(() => {
          inFlight.delete(sending);
          // A free slot: more may be due (a retry, an activity that waited for the one before it,
          // or what did not fit before). Kept among the work stop() waits for: its lease may still
          // be reading when stop() is called.
          if (!isStopped() && !running) {
            const refill = send()
              .catch(onError)
              .finally(() => refills.delete(refill));
            refills.add(refill);
          }
        });
      inFlight.add(sending);
    }
  }

  // Whether anyone was there to deliver to at the last poll; until the first, as if so.
  let active = true;
  let polling: Promise<void> | undefined;
  const poll = () => {
    polling ??= askActive().finally(() => {
      polling = undefined;
    });
  };
  const askActive = async () => {
    if (parts.active) {
      try {
        active = await parts.active();
      } catch {
        // As if so; the round that follows meets the same failure and reports it.
        active = true;
      }
    }
    if (!isStopped()) void round();
  };
  const timer = setInterval(poll, parts.pollMs);
  timer.unref();
  poll();
  return {
    nudge: () => {
      if (stopped || nudged || !active) return;
      nudged = setTimeout(() => {
        nudged = undefined;
        void round();
      }, NUDGE_DELAY_MS);
    },
    stop: async () => {
      stopped = true;
      clearInterval(timer);
      clearTimeout(nudged);
      await polling;
      // An attempt that ends may have been leased by the round still running: wait until both are done.
      while (running || inFlight.size || refills.size) await Promise.allSettled([running, ...inFlight, ...refills]);
    },
  };
}
