// The driver beneath a Prisma client (pg's pool, or the PGlite instance), recorded when the
// database opens, so that queries/reads.ts can send its hot statements past Prisma.
import type { Prisma, Tx } from './client.js';

export type Driver = (text: string, values: unknown[]) => Promise<unknown[]>;

const drivers = new WeakMap<object, Driver>();

/** Lets reads on `client` run on `driver`, which must reach the same database. */
export function registerDriver(client: Prisma, driver: Driver): void {
  drivers.set(client, driver);
}

/** The driver of a client outside a transaction; none for a transaction, whose reads must see its writes. */
export const driverOf = (db: Prisma | Tx): Driver | undefined => drivers.get(db);
