// The driver beneath a Prisma client (pg's pool, or the PGlite instance), recorded when the
// database opens, so that the hot statements (selectRows below) and creates go past Prisma.
import type { Prisma } from '../../generated/prisma/client.js';
import type { PrismaClient, Tx } from './client.js';

export type Driver = (text: string, values: unknown[]) => Promise<unknown[]>;

/** Runs `work` in one transaction on one connection of the driver: committed if it resolves, else rolled back. */
export type TransactionDriver = <T>(work: (query: Driver) => Promise<T>) => Promise<T>;

const drivers = new WeakMap<object, Driver>();
const transactions = new WeakMap<object, TransactionDriver>();

/** Lets reads on `client` run on `driver` (and hot writes in `transaction`), which must reach the same database. */
export function registerDriver(client: PrismaClient, driver: Driver, transaction?: TransactionDriver): void {
  drivers.set(client, driver);
  if (transaction) transactions.set(client, transaction);
}

/** The transaction runner of a client outside a transaction, if it has one. */
export const transactionDriverOf = (db: PrismaClient | Tx): TransactionDriver | undefined => transactions.get(db);

/** A Prisma transaction's statements as a driver runs them: the same text runs in either (queries/event-storage.ts). */
export const statementsOf =
  (tx: Tx): Driver =>
  (text, values) =>
    tx.$queryRawUnsafe<unknown[]>(text, ...values);

/** The driver of a client outside a transaction; none for a transaction, whose reads must see its writes. */
export const driverOf = (db: PrismaClient | Tx): Driver | undefined => drivers.get(db);

/**
 * The rows of a read-only statement whose columns are text, integers or booleans (as every caller's
 * are). The hottest reads (event pages, single events, venue and organizer lists, the credentials of
 * each request) are single statements built with Prisma.sql. Through `$queryRaw`, Prisma passes each
 * one through its query compiler and its driver adapter: 0.3 ms of CPU per statement, a third of what
 * a whole single-event read costs (docs/performance.md). On a client outside a transaction they run
 * on the driver beneath the adapter instead (the same pool, or the same PGlite); inside a
 * transaction they stay with Prisma, so that they see its writes.
 */
export async function selectRows<T>(db: PrismaClient | Tx, statement: Prisma.Sql): Promise<T[]> {
  const driver = driverOf(db);
  return (driver ? await driver(statement.text, statement.values) : await db.$queryRaw<T[]>(statement)) as T[];
}
