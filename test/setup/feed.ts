// The change feed as tests wait for it.
import type { Role } from '../../src/auth/roles.js';
import type { TestServer } from './server.js';

/**
 * Waits until the feed can give every change recorded so far. Transaction IDs are the whole
 * PostgreSQL server's: a transaction of another test file, in another database, holds the feed back
 * until it ends (docs/decisions.md, "Changes"), so a test that expects its own writes waits for that.
 */
export async function settled(s: Pick<TestServer, 'db'>) {
  for (let i = 0; i < 1000; i++) {
    const [{ ready }] = await s.db.prisma.$queryRaw<{ ready: boolean }[]>`
      SELECT NOT EXISTS (SELECT 1 FROM changes WHERE xid >= pg_snapshot_xmin(pg_current_snapshot())) AS ready`;
    if (ready) return;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error('the change feed did not catch up in 20 s');
}

/** The cursor at the feed's end, to read what follows. */
export async function feedEnd(s: TestServer): Promise<string> {
  await settled(s);
  let r = await s.get('/changes?per_page=500');
  let cursor: string = r.body.next_cursor;
  while (r.body.more) {
    r = await s.get(`/changes?per_page=500&since=${cursor}`);
    cursor = r.body.next_cursor;
  }
  return cursor;
}

export interface FeedChange {
  type: string;
  id: number;
  action: string;
  changed: string[];
  tombstone: boolean;
  object: any;
}

/** The changes after `cursor`, as `as` reads them (the administrator by default). */
export async function changesSince(s: TestServer, cursor: string, as: Role | null = 'administrator') {
  await settled(s);
  const r = await s.get(`/changes?per_page=100&since=${cursor}`, { as });
  if (r.status !== 200) throw new Error(`the feed answered ${r.status}: ${r.text}`);
  return r.body.changes as FeedChange[];
}
