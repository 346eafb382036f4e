// The service's hottest reads (event pages, single events, venue and organizer lists) are single
// statements built with Prisma.sql. Through `$queryRaw`, Prisma passes each one through its query
// compiler and its driver adapter: 0.3 ms of CPU per statement, a third of what a whole single-event
// read costs. On a client outside a transaction they run on the driver beneath the adapter
// instead (the same pool, or the same PGlite); inside a transaction they stay with Prisma, so that
// they see its writes.
import type { Prisma as PrismaNS } from '../../generated/prisma/client.js';
import type { Prisma, Tx } from './client.js';

export type Driver = (text: string, values: unknown[]) => Promise<unknown[]>;

const drivers = new WeakMap<object, Driver>();

/** Lets `selectRows` on `client` run on `driver`, which must reach the same database. */
export function registerDriver(client: Prisma, driver: Driver): void {
  drivers.set(client, driver);
}

/** The rows of a read-only statement whose columns are text, integers or booleans (as every caller's are). */
export async function selectRows<T>(db: Prisma | Tx, statement: PrismaNS.Sql): Promise<T[]> {
  const driver = drivers.get(db);
  return (driver ? await driver(statement.text, statement.values) : await db.$queryRaw<T[]>(statement)) as T[];
}
