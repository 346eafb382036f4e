// Counting in a shared store (PostgreSQL or Redis) without a round trip per request. A key's first
// request of a window goes to the store, which answers the count of every instance; for the next
// SYNC_MS the instance counts that key in memory, on top of what the store said, and sends what it
// counted in one consume when the interval is over (or the next request after it goes to the store
// with it). A busy client costs one round trip per key and interval instead of one per request: on
// the venue search, the cheapest read, an upsert per request cost a fifth of the throughput
// (docs/performance.md).
//
// What it gives up: an instance learns of the other instances' counts at most SYNC_MS late, so N
// instances let one key through at most what each of them admits in SYNC_MS beyond the allowance.
// Within an instance the count stays exact: parallel requests of a key that is not in memory all go
// to the store, whose upsert counts and answers in one statement.
import { RateLimiterRes } from 'rate-limiter-flexible';

/** What the rate limits ask of a counter: rate-limiter-flexible's consume (a refusal rejects with the result). */
export interface Counter {
  consume(key: string, points: number): Promise<RateLimiterRes>;
}

/** How long an instance counts a key in memory before it tells the store and hears the others' counts again. */
export const SYNC_MS = 100;

interface View {
  /** Points of the window: the store's count at the last sync, and this instance's since. */
  consumed: number;
  /** Points counted here since the last sync, not yet in the store. */
  pending: number;
  /** When the window ends (ms since 1970, Date.now's clock). */
  resetAt: number;
  syncedAt: number;
}

export class BatchedCounter implements Counter {
  readonly #views = new Map<string, View>();
  /** The keys being asked of the store, and the question. */
  readonly #asking = new Map<string, Promise<RateLimiterRes>>();
  #timer: NodeJS.Timeout | undefined;
  #closed = false;

  constructor(
    private readonly store: Counter,
    private readonly allowance: number,
    private readonly syncMs = SYNC_MS,
  ) {}

  async consume(key: string, points: number): Promise<RateLimiterRes> {
    // Requests of a key that is being asked of the store wait for its answer, then count on it here:
    // counted beside the answer they would not see the points still on their way.
    // Checked before any await, so that of requests arriving together only the first asks.
    for (let asking = this.#asking.get(key); asking; asking = this.#asking.get(key)) {
      await asking.catch(() => undefined);
    }
    const now = Date.now();
    const view = this.#views.get(key);
    if (!view || view.resetAt <= now || now - view.syncedAt >= this.syncMs) {
      // Whatever was counted here and not sent yet goes with this request; the next flush skips it.
      const pending = view && view.resetAt > now ? view.pending : 0;
      if (view) view.pending = 0;
      return this.#sync(key, points + pending, now);
    }
    view.consumed += points;
    view.pending += points;
    this.#scheduleFlush();
    const res = new RateLimiterRes(
      Math.max(this.allowance - view.consumed, 0),
      view.resetAt - now,
      view.consumed,
      false,
    );
    // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors -- rate-limiter-flexible's contract: a refusal rejects with its result
    return view.consumed > this.allowance ? Promise.reject(res) : Promise.resolve(res);
  }

  /**
   * Sends every count not yet in the store, and forgets the views that are stale with nothing to
   * send (the next request of their key asks the store anyway): memory holds the keys of the last
   * interval or two, however many clients come and go.
   */
  async flush(): Promise<void> {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    const now = Date.now();
    const sends: Promise<unknown>[] = [];
    for (const [key, view] of this.#views) {
      if (view.pending && view.resetAt > now) {
        const points = view.pending;
        view.pending = 0;
        sends.push(this.#sync(key, points, now).catch(() => undefined)); // a refusal is an answer too
      } else if (view.resetAt <= now || now - view.syncedAt >= this.syncMs) {
        this.#views.delete(key);
      }
    }
    await Promise.all(sends);
    if (this.#views.size) this.#scheduleFlush();
  }

  /** Sends what is left, and schedules nothing more (the store's connections close next). */
  async close(): Promise<void> {
    this.#closed = true;
    await this.flush();
  }

  #sync(key: string, points: number, now: number): Promise<RateLimiterRes> {
    const asked = this.store.consume(key, points).then(
      (res) => {
        this.#remember(key, res, now, false);
        return res;
      },
      (err: unknown) => {
        if (err instanceof RateLimiterRes) this.#remember(key, err, now, true);
        throw err;
      },
    );
    this.#asking.set(key, asked);
    const done = () => {
      if (this.#asking.get(key) === asked) this.#asking.delete(key);
    };
    asked.then(done, done);
    return asked;
  }

  #remember(key: string, res: RateLimiterRes, now: number, refused: boolean) {
    const view = this.#views.get(key);
    const pending = view?.pending ?? 0; // counted here while the store answered
    // A refusal says the key is over its allowance, whatever count it carries: the stores refuse a
    // key that is over from their memory, without asking Redis or PostgreSQL, with a count of 0
    // (rate-limiter-flexible's inMemoryBlockOnConsumed, rate-limits.ts). Taken as 0, it let the
    // allowance through again in memory after every such refusal, each SYNC_MS.
    const answered = (refused ? Math.max(res.consumedPoints, this.allowance + 1) : res.consumedPoints) + pending;
    this.#views.set(key, {
      // Nor does an answer that counts less than this instance knew, within the window, lower its
      // view: the insurance limiter's, taken when the store is slow or away, counts only what
      // reached it, not what the store had counted before.
      consumed: view && view.resetAt > Date.now() ? Math.max(answered, view.consumed) : answered,
      pending,
      resetAt: now + Math.max(res.msBeforeNext, 0),
      // Fresh from when the answer came: dated from the question, an answer slower than the
      // interval was stale on arrival, and every request that had waited for it asked the store
      // again, one after another, each apt to run past the store's timeout into the insurance count.
      syncedAt: Date.now(),
    });
    this.#scheduleFlush();
  }

  #scheduleFlush() {
    if (this.#timer || this.#closed) return;
    this.#timer = setTimeout(() => void this.flush(), this.syncMs);
    this.#timer.unref();
  }
}
