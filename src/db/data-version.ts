// What the database holds, named by a number: the sum of `data_versions.version`, which every
// transaction that writes a table answers are built from raises when it commits, in the same commit
// as its rows (migration 20261126170000_data_versions). Two requests that read the same sum see the
// same rows, whichever instance asked and whatever wrote them, so an answer built after reading it
// is still right for any request that reads it again (http/answer-cache.ts). Rate limits, sign-in
// throttles and the other bookkeeping tables do not move it; nor do other databases on the server.
import { Prisma } from '../../generated/prisma/client.js';
import type { PrismaClient } from './client.js';
import { selectRows } from './driver.js';

export type DataVersion = string;

/**
 * The current snapshot, asked for at most once at a time: requests that arrive while a question is
 * out wait for the next one, and share it.
 *
 * Why not share the question already out: it may have been answered before a write was acknowledged
 * to a client whose next request arrives now; that request must see the write. So every request
 * gets the answer of a question asked after it arrived (`current` never joins one that started
 * before it was called). Under load, one question serves every request that arrived during the
 * previous one.
 */
export class DataVersions {
  readonly #ask: () => Promise<DataVersion>;
  #asking?: Promise<DataVersion>;
  #next?: Promise<DataVersion>;

  constructor(ask: () => Promise<DataVersion>) {
    this.#ask = ask;
  }

  current(): Promise<DataVersion> {
    const asking = this.#asking;
    if (!asking) return this.#start();
    this.#next ??= asking
      .catch(() => undefined)
      .then(() => {
        this.#next = undefined;
        return this.#start();
      });
    return this.#next;
  }

  #start(): Promise<DataVersion> {
    const asking = this.#ask();
    this.#asking = asking;
    const done = () => {
      if (this.#asking === asking) this.#asking = undefined;
    };
    asking.then(done, done);
    return asking;
  }
}

/** The versions of `db`'s data. */
export function dataVersions(db: PrismaClient): DataVersions {
  return new DataVersions(async () => {
    const [row] = await selectRows<{ version: string }>(
      db,
      Prisma.sql`SELECT sum(version)::text AS version FROM data_versions`,
    );
    return row.version;
  });
}
