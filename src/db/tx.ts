// The client a `$transaction` callback receives. A module of its own, so that the driver beneath
// Prisma (driver.ts) names it without importing client.ts, which imports the driver; the rest of the
// code takes it from client.ts, beside PrismaClient.
import type { PrismaClient } from '../../generated/prisma/client.js';

export type Tx = Omit<PrismaClient, '$connect' | '$disconnect' | '$on' | '$transaction' | '$extends'>;
