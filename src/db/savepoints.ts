// A transaction that services can take as their database: a service opens its own transaction
// (`db.$transaction`, services/retry.ts) on whatever database it is given, and inside an enclosing
// transaction that becomes a savepoint of it. A service's failed write is then undone to where it
// began, as its own transaction would be, and the enclosing one goes on, still able to commit or
// roll back everything (a batch's `require-all-validate`, http/batch.ts).
import type { PrismaClient, Tx } from './client.js';

export function nestingTransactions(tx: Tx): PrismaClient {
  let opened = 0;
  const nested = async <T>(work: (tx: Tx) => Promise<T>): Promise<T> => {
    // A name of its own, so that a failure undoes this write's statements and no other's.
    const name = `nested_${++opened}`;
    await tx.$executeRawUnsafe(`SAVEPOINT ${name}`);
    try {
      const result = await work(client);
      await tx.$executeRawUnsafe(`RELEASE SAVEPOINT ${name}`);
      return result;
    } catch (err) {
      await tx.$executeRawUnsafe(`ROLLBACK TO SAVEPOINT ${name}`);
      throw err;
    }
  };
  const client = new Proxy(tx, {
    get: (target, key): unknown => (key === '$transaction' ? nested : Reflect.get(target, key)),
  }) as unknown as PrismaClient;
  return client;
}
