// Two instances of the service, as their own processes, on one PostgreSQL, both running the webhook
// worker: writes go to either; every message reaches the receiver once (each attempt is made by one
// instance), and a message is never split into two for one write.
import type { ChildProcess } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPostgresDatabase, postgresTitle, postgresUrl } from '../setup/databases.js';
import { freePort, startProcess } from '../setup/process.js';
import { receiver } from '../setup/receiver.js';

describe.runIf(postgresUrl)(postgresTitle('webhooks from two instances on one PostgreSQL'), () => {
  let database: { url: string; drop: () => Promise<void> };
  const ports: number[] = [];
  const children: ChildProcess[] = [];
  let hook: Awaited<ReturnType<typeof receiver>>;
  const auth = `Basic ${Buffer.from('pair-admin:pair-admin-password').toString('base64')}`;
  const base = (i: number) => `http://127.0.0.1:${ports[i]}/wp-json/calendar/events/v1`;

  beforeAll(async () => {
    hook = await receiver();
    database = await createPostgresDatabase();
    const env = {
      DATABASE_URL: database.url,
      ADMIN_USER: 'pair-admin',
      ADMIN_PASSWORD: 'pair-admin-password',
      WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
    };
    // One after the other: the second finds the database migrated and the administrator there.
    for (let i = 0; i < 2; i++) {
      ports.push(await freePort());
      children.push(await startProcess(ports[i], env));
    }
  }, 120_000);
  afterAll(async () => {
    for (const child of children) child.kill('SIGKILL');
    await hook.close();
    await database?.drop();
  });

  it('sends each message once, whichever instance took the write', async () => {
    const subscribed = await fetch(`${base(0)}/webhooks`, {
      method: 'POST',
      headers: { authorization: auth, 'content-type': 'application/json' },
      body: JSON.stringify({ url: hook.url, events: ['event.created'] }),
    });
    expect(subscribed.status).toBe(201);
    const created = await Promise.all(
      Array.from({ length: 40 }, async (_, n) => {
        const r = await fetch(`${base(n % 2)}/events`, {
          method: 'POST',
          headers: { authorization: auth, 'content-type': 'application/json' },
          body: JSON.stringify({ title: `Pair ${n}`, start_date: '2035-03-01 10:00', end_date: '2035-03-01 11:00' }),
        });
        expect(r.status).toBe(201);
        return ((await r.json()) as { id: number }).id;
      }),
    );
    for (let i = 0; i < 300 && hook.received.length < created.length; i++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    // Time for a second, duplicate send to arrive if there were one.
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect(
      hook
        .messages()
        .map((m) => m.object)
        .sort((a, b) => a - b),
    ).toEqual([...created].sort((a, b) => a - b));
    expect(new Set(hook.messages().map((m) => m.id)).size).toBe(hook.received.length);
  }, 120_000);
});
