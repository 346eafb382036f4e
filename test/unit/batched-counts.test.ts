// The batched counter (src/http/batched-counts.ts) over rate-limiter-flexible's memory store standing
// for the shared one: two counters on one store are two instances on one database.
import { RateLimiterMemory, RateLimiterRes, RLWrapperTimeouts } from 'rate-limiter-flexible';
import { describe, expect, it } from 'vitest';
import { BatchedCounter, type Counter } from '../../src/http/batched-counts.js';

const ALLOWANCE = 5;
const A_MINUTE = 60_000;

/** A shared store that counts the questions it is asked. */
function sharedStore() {
  const store = new RateLimiterMemory({ points: ALLOWANCE, duration: 60 });
  const asked = { times: 0 };
  const counter: Counter = {
    consume: (key, points) => {
      asked.times++;
      return store.consume(key, points);
    },
  };
  const stored = async (key: string) => (await store.get(key))?.consumedPoints ?? 0;
  return { counter, asked, stored };
}

/**
 * A shared store as rate-limiter-flexible's Redis and PostgreSQL stores are set up (rate-limits.ts,
 * inMemoryBlockOnConsumed): once a key is over the allowance, they refuse it from memory for the rest
 * of its window without asking the store, and such a refusal carries no count (consumedPoints 0).
 */
function blockingStore() {
  const { counter: store } = sharedStore();
  const blocked = new Set<string>();
  const counter: Counter = {
    consume: async (key, points) => {
      // eslint-disable-next-line @typescript-eslint/only-throw-error -- rate-limiter-flexible's contract: a refusal rejects with its result
      if (blocked.has(key)) throw new RateLimiterRes(0, A_MINUTE);
      return store.consume(key, points).catch((err: unknown) => {
        blocked.add(key);
        throw err;
      });
    },
  };
  return { counter };
}

/** resolved or refused, as the rate limits read a consume. */
const outcome = (counter: Counter, key: string) =>
  counter.consume(key, 1).then(
    () => 'ok',
    (err: unknown) => {
      if (err instanceof RateLimiterRes) return 'refused';
      throw err;
    },
  );

describe('batched counts', () => {
  it('asks the store once per key and interval, and sends what it counted meanwhile in one consume', async () => {
    const { counter: store, asked, stored } = sharedStore();
    const counter = new BatchedCounter(store, 100, A_MINUTE);
    for (let i = 0; i < 10; i++) expect(await outcome(counter, 'k')).toBe('ok');
    expect(asked.times).toBe(1);
    expect(await stored('k')).toBe(1);
    await counter.close();
    expect(asked.times).toBe(2);
    expect(await stored('k')).toBe(10);
  });

  it('refuses past the allowance from memory, and says what is left and when the window ends', async () => {
    const { counter: store } = sharedStore();
    const counter = new BatchedCounter(store, ALLOWANCE, A_MINUTE);
    const answers = [];
    for (let i = 0; i < ALLOWANCE; i++) answers.push(await counter.consume('k', 1));
    expect(answers.map((res) => res.remainingPoints)).toEqual([4, 3, 2, 1, 0]);
    const refused = await counter.consume('k', 1).catch((err: unknown) => err);
    expect(refused).toBeInstanceOf(RateLimiterRes);
    expect((refused as RateLimiterRes).msBeforeNext).toBeGreaterThan(55_000);
    await counter.close();
  });

  it('counts the requests that waited for a store slower than the interval on its answer, not asking again', async () => {
    const { counter: store, asked } = sharedStore();
    const slow: Counter = {
      consume: async (key, points) => {
        await new Promise((resolve) => setTimeout(resolve, 150));
        return store.consume(key, points);
      },
    };
    const counter = new BatchedCounter(slow, ALLOWANCE, 100);
    const outcomes = await Promise.all(Array.from({ length: 20 }, () => outcome(counter, 'k')));
    expect(outcomes.filter((o) => o === 'ok')).toHaveLength(ALLOWANCE);
    expect(asked.times).toBe(1);
    await counter.close();
  });

  it('lets exactly the allowance through when a new key comes all at once', async () => {
    const { counter: store, asked } = sharedStore();
    const counter = new BatchedCounter(store, ALLOWANCE, A_MINUTE);
    const outcomes = await Promise.all(Array.from({ length: 20 }, () => outcome(counter, 'burst')));
    expect(outcomes.filter((o) => o === 'ok')).toHaveLength(ALLOWANCE);
    expect(asked.times).toBe(1);
    await counter.close();
  });

  it('keeps refusing a key the store refuses without a count, however long its requests keep coming', async () => {
    const { counter: store } = blockingStore();
    const interval = 20;
    const counter = new BatchedCounter(store, ALLOWANCE, interval);
    const outcomes = [];
    for (let i = 0; i < 20; i++) {
      outcomes.push(await outcome(counter, 'k'));
      await new Promise((resolve) => setTimeout(resolve, interval / 2)); // a sync every other request
    }
    expect(outcomes.filter((o) => o === 'ok')).toHaveLength(ALLOWANCE);
    await counter.close();
  });

  it('does not forget what it counted when the store turns slow and the insurance limiter answers', async () => {
    // As rate-limits.ts sets it up: past timeoutMs the count is taken in memory, which knows only
    // what reached it, not what the store had counted before.
    const options = { points: ALLOWANCE, duration: 60 };
    const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
    class TurningSlow extends RateLimiterMemory {
      answered = 0;
      override async consume(key: string | number, points?: number, opts?: Record<string, unknown>) {
        const counted = super.consume(key, points, opts); // counted at once, answered late
        counted.catch(() => undefined);
        if (this.answered++ > 0) await sleep(2000);
        return counted;
      }
    }
    const insured = new RLWrapperTimeouts({
      limiter: new TurningSlow(options),
      insuranceLimiter: new RateLimiterMemory(options),
      // Margins wide enough for a busy machine (150 ms was not, with the event loop held up that
      // long by other suites): the first answer comes well within the timeout, the later ones well
      // past it.
      timeoutMs: 500,
    });
    const interval = 40;
    const counter = new BatchedCounter(insured, ALLOWANCE, interval);
    const outcomes = [];
    for (let i = 0; i < 20; i++) {
      outcomes.push(outcome(counter, 'k'));
      await sleep(interval / 2);
    }
    expect((await Promise.all(outcomes)).filter((o) => o === 'ok')).toHaveLength(ALLOWANCE);
    await counter.close();
  });

  it("hears the other instances' counts at the next interval", async () => {
    const { counter: store, stored } = sharedStore();
    const interval = 50;
    const one = new BatchedCounter(store, ALLOWANCE, interval);
    const two = new BatchedCounter(store, ALLOWANCE, interval);
    for (let i = 0; i < 3; i++) expect(await outcome(one, 'k')).toBe('ok');
    await new Promise((resolve) => setTimeout(resolve, 3 * interval)); // one's flush sent its two
    expect(await stored('k')).toBe(3);
    expect(await outcome(two, 'k')).toBe('ok'); // 4, as the store answers
    expect(await outcome(two, 'k')).toBe('ok'); // 5
    expect(await outcome(two, 'k')).toBe('refused');
    await new Promise((resolve) => setTimeout(resolve, 3 * interval));
    expect(await outcome(one, 'k')).toBe('refused'); // asked again: the store has two's
    await Promise.all([one.close(), two.close()]);
    expect(await stored('k')).toBe(7);
  });
});
