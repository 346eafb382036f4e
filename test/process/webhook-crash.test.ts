// A crash in the middle of a burst of writes, with a webhook subscribed, on PostgreSQL: the service
// runs as its own process, is killed with SIGKILL while creates are in flight, and is started again
// on the same database. Every acknowledged create must reach the receiver (at least once: a message
// whose attempt was cut off is sent again), and the change feed must hold each exactly once.
import type { ChildProcess } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPostgresDatabase, postgresTitle, postgresUrl } from '../setup/databases.js';
import { freePort, startProcess } from '../setup/process.js';
import { receiver } from '../setup/receiver.js';

describe.runIf(postgresUrl)(postgresTitle('a crash during writes, with webhooks, on PostgreSQL'), () => {
  let database: { url: string; drop: () => Promise<void> };
  let port: number;
  let child: ChildProcess | undefined;
  let hook: Awaited<ReturnType<typeof receiver>>;
  const base = () => `http://127.0.0.1:${port}/wp-json/calendar/events/v1`;
  const auth = `Basic ${Buffer.from('hook-admin:hook-admin-password').toString('base64')}`;

  async function start() {
    child = await startProcess(port, {
      DATABASE_URL: database.url,
      ADMIN_USER: 'hook-admin',
      ADMIN_PASSWORD: 'hook-admin-password',
      WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
      WEBHOOK_RETRY_BASE_MS: '100',
    });
  }

  beforeAll(async () => {
    hook = await receiver();
    database = await createPostgresDatabase();
    port = await freePort();
    await start();
  }, 60_000);
  afterAll(async () => {
    child?.kill('SIGKILL');
    await hook.close();
    await database?.drop();
  });

  it('delivers every acknowledged write at least once, and the feed holds each exactly once', async () => {
    const subscribed = await fetch(`${base()}/webhooks`, {
      method: 'POST',
      headers: { authorization: auth, 'content-type': 'application/json' },
      body: JSON.stringify({ url: hook.url, events: ['event.created'] }),
    });
    expect(subscribed.status).toBe(201);

    const acknowledged: number[] = [];
    const writers = Array.from({ length: 8 }, async (_, w) => {
      for (let i = 0; ; i++) {
        try {
          const r = await fetch(`${base()}/events`, {
            method: 'POST',
            headers: { authorization: auth, 'content-type': 'application/json' },
            body: JSON.stringify({
              title: `Hooked ${w}-${i}`,
              start_date: '2035-02-01 10:00',
              end_date: '2035-02-01 11:00',
            }),
          });
          if (r.status === 201) acknowledged.push(((await r.json()) as { id: number }).id);
        } catch {
          return; // the connection died with the process
        }
      }
    });
    while (acknowledged.length < 40) await new Promise((resolve) => setTimeout(resolve, 20));
    child!.kill('SIGKILL');
    await Promise.all(writers);

    await start();
    const delivered = () => new Set(hook.messages().map((m) => m.object));
    for (let i = 0; i < 600 && !acknowledged.every((id) => delivered().has(id)); i++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(acknowledged.filter((id) => !delivered().has(id))).toEqual([]);
    // Repeats, if any, are repeats of one message (the same webhook-id), never two messages for one write.
    const messages = new Map<number, Set<string>>();
    for (const m of hook.messages()) messages.set(m.object, (messages.get(m.object) ?? new Set()).add(m.id));
    expect([...messages.values()].filter((ids) => ids.size > 1)).toEqual([]);

    const created: number[] = [];
    let cursor = '';
    for (;;) {
      const page = (await (
        await fetch(`${base()}/changes?per_page=500${cursor ? `&since=${cursor}` : ''}`, {
          headers: { authorization: auth },
        })
      ).json()) as { changes: { type: string; id: number; action: string }[]; next_cursor: string; more: boolean };
      created.push(...page.changes.filter((c) => c.type === 'event' && c.action === 'created').map((c) => c.id));
      cursor = page.next_cursor;
      if (!page.more) break;
    }
    for (const id of acknowledged)
      expect(
        created.filter((c) => c === id),
        `event ${id}`,
      ).toHaveLength(1);
  }, 120_000);
});
