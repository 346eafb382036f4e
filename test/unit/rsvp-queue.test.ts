// Each instance sends an event's RSVP writes to the database one at a time (services/rsvps/queue.ts),
// in the order they came, whatever becomes of each, and refuses a write rather than queue more than
// MAX_QUEUED of one event.
import { describe, expect, it } from 'vitest';
import type { PrismaClient } from '../../src/db/client.js';
import { RsvpRefused } from '../../src/domain/errors.js';
import { MAX_QUEUED, queued } from '../../src/services/rsvps/queue.js';

/** A database client as the queue knows one: the key of an instance's queues. */
const instance = () => ({}) as PrismaClient;

/** A write that records when it starts and ends, and ends when `finish` is called. */
function write(log: string[], name: string) {
  let finish!: () => void;
  const ended = new Promise<void>((resolve) => (finish = resolve));
  return {
    run: async () => {
      log.push(`${name} starts`);
      await ended;
      log.push(`${name} ends`);
      return name;
    },
    finish,
  };
}

const turn = () => new Promise((resolve) => setImmediate(resolve));

describe('RSVP writes queued per event', () => {
  it('runs the writes of one event one at a time in the order they came, those of others at once', async () => {
    const db = instance();
    const log: string[] = [];
    const [a, b, other] = [write(log, 'a'), write(log, 'b'), write(log, 'other')];
    const done = [queued(db, 1, a.run), queued(db, 1, b.run), queued(db, 2, other.run)];
    await turn();
    expect(log).toEqual(['a starts', 'other starts']);
    b.finish();
    await turn();
    expect(log).toEqual(['a starts', 'other starts']);
    a.finish();
    other.finish();
    expect(await Promise.all(done)).toEqual(['a', 'b', 'other']);
    expect(log).toEqual(['a starts', 'other starts', 'a ends', 'other ends', 'b starts', 'b ends']);
  });

  it('goes on to the next write when one fails, and gives each its own outcome', async () => {
    const db = instance();
    const failing = queued(db, 1, () => Promise.reject(new Error('refused')));
    const next = queued(db, 1, () => Promise.resolve('taken'));
    await expect(failing).rejects.toThrow('refused');
    expect(await next).toBe('taken');
  });

  it('refuses a write past MAX_QUEUED of one event as busy, and takes writes again once they drain', async () => {
    const db = instance();
    const log: string[] = [];
    const first = write(log, 'first');
    const held = [
      queued(db, 1, first.run),
      ...Array.from({ length: MAX_QUEUED - 1 }, () => queued(db, 1, () => Promise.resolve('later'))),
    ];
    const refused = await queued(db, 1, () => Promise.resolve('one too many')).catch((err: unknown) => err);
    expect(refused).toBeInstanceOf(RsvpRefused);
    expect((refused as RsvpRefused).reason).toBe('busy');
    expect(log).toEqual(['first starts']);
    // Another event, and the same event in another instance, have queues of their own.
    expect(await queued(db, 2, () => Promise.resolve('another event'))).toBe('another event');
    expect(await queued(instance(), 1, () => Promise.resolve('another instance'))).toBe('another instance');
    first.finish();
    await Promise.all(held);
    expect(await queued(db, 1, () => Promise.resolve('after'))).toBe('after');
  });
});
