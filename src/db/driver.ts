// The driver beneath a Prisma client (pg's pool, or the PGlite instance), recorded when the
// database opens, so that the hot statements (selectRows below) and creates go past Prisma.
import type { Prisma } from '../../generated/prisma/client.js';
import type { PrismaClient } from '../../generated/prisma/client.js';
import type { Tx } from './tx.js';

/**
 * Runs one statement. `prepare` asks for a statement that runs often with the same text to be
 * prepared once per connection (PostgreSQL: a named statement, planned once instead of on every
 * run); drivers that cannot ignore it.
 */
export type Driver = (text: string, values: unknown[], options?: StatementOptions) => Promise<unknown[]>;

export interface StatementOptions {
  prepare?: boolean;
}

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
export async function selectRows<T>(
  db: PrismaClient | Tx,
  statement: Prisma.Sql,
  options?: StatementOptions,
): Promise<T[]> {
  const driver = driverOf(db);
  return (driver ? await driver(statement.text, statement.values, options) : await db.$queryRaw<T[]>(statement)) as T[];
}

/**
 * The name a statement is prepared under on PostgreSQL (pg keeps it per connection, the server per
 * session), or undefined once MAX_PREPARED texts have one: the texts asked for are built from a
 * few fixed parts (an insert's columns vary with the fields sent), and this bounds what a
 * connection holds should that ever stop being so.
 */
export function preparedName(text: string): string | undefined {
  const known = prepared.get(text);
  if (known || prepared.size >= MAX_PREPARED) return known;
  const name = `s${prepared.size + 1}`;
  prepared.set(text, name);
  return name;
}

const MAX_PREPARED = 200;
const prepared = new Map<string, string>();
