// The change feed as tests wait for it.
import type { TestServer } from './server.js';

/**
 * Waits until the feed can give every change recorded so far. Transaction IDs are the whole
 * PostgreSQL server's: a transaction of another test file, in another database, holds the feed back
 * until it ends (docs/decisions.md, "Changes"), so a test that expects its own writes waits for that.
 */
export async function settled(s: TestServer) {
  for (let i = 0; i < 1000; i++) {
    const [{ ready }] = await s.db.prisma.$queryRaw<{ ready: boolean }[]>`
      SELECT NOT EXISTS (SELECT 1 FROM changes WHERE xid >= pg_snapshot_xmin(pg_current_snapshot())) AS ready`;
    if (ready) return;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error('the change feed did not catch up in 20 s');
}
