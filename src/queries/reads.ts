// The service's hottest reads (event pages, single events, venue and organizer lists) are single
// statements built with Prisma.sql. Through `$queryRaw`, Prisma passes each one through its query
// compiler and its driver adapter: 0.3 ms of CPU per statement, a third of what a whole single-event
// read costs (docs/performance.md). On a client outside a transaction they run on the driver
// beneath the adapter instead (the same pool, or the same PGlite); inside a transaction they stay
// with Prisma, so that they see its writes.
import type { Prisma as PrismaNS } from '../../generated/prisma/client.js';
import type { Prisma, Tx } from '../db/client.js';
import { driverOf } from '../db/driver.js';

/** The rows of a read-only statement whose columns are text, integers or booleans (as every caller's are). */
export async function selectRows<T>(db: Prisma | Tx, statement: PrismaNS.Sql): Promise<T[]> {
  const driver = driverOf(db);
  return (driver ? await driver(statement.text, statement.values) : await db.$queryRaw<T[]>(statement)) as T[];
}
