// One CalDAV answer on its way to the socket, bounded whoever asks (docs/caldav.md, "Limits"). It is
// held in memory up to `bigBytes`: a small answer is sent whole with its length, and one that would
// pass its byte budget that early is refused before any of it is sent. Past `bigBytes` it is a big
// answer: it takes one of its caller's few slots (BigAnswers) and is written to the socket as it is
// built (an expansion, which builds a resource's occurrences before writing them, takes the slot
// before it starts), waiting for 'drain' whenever the client reads slower than it is written, so
// that memory holds a part of it, never the whole. When the client leaves, the next write throws ClientGone,
// which ends the work that was building it.
import type { ServerResponse } from 'node:http';
import type { CaldavLimits } from '../config/limits.js';
import { DavError, davCondition } from './errors.js';

/** The client closed the connection: nothing more is built for it. */
export class ClientGone extends Error {}

/** A write would take the answer past its byte budget. */
export class OverBudget extends Error {}

/** A request that asks for more than one answer may hold, refused before anything is sent. */
export const tooMuch = (message: string) => new DavError(403, message, davCondition('number-of-matches-within-limits'));

/** Big answers being sent, per caller, on this instance. */
export class BigAnswers {
  readonly #held = new Map<string, number>();

  constructor(readonly perCaller: number) {}

  take(caller: string): boolean {
    const held = this.#held.get(caller) ?? 0;
    if (held >= this.perCaller) return false;
    this.#held.set(caller, held + 1);
    return true;
  }

  give(caller: string): void {
    const held = (this.#held.get(caller) ?? 0) - 1;
    if (held > 0) this.#held.set(caller, held);
    else this.#held.delete(caller);
  }
}

export class Answer {
  /** The write waiting for 'drain' (#drained), woken by the answer's one listener. */
  #waiting: (() => void) | undefined;
  #listening = false;
  #held: string[] = [];
  #bytes = 0;
  #streaming = false;
  #slot = false;
  #gone = false;

  /** `caller` keys the caller's big answers: its account, else its address. */
  constructor(
    private readonly res: ServerResponse,
    private readonly head: { status: number; type: string },
    private readonly limits: Pick<CaldavLimits, 'maxBytes' | 'bigBytes'>,
    private readonly big: BigAnswers,
    private readonly caller: string,
  ) {
    res.once('close', () => {
      this.#gone = !res.writableFinished;
    });
  }

  /** Whether the answer's first bytes are sent (it can no longer be refused whole). */
  get streaming(): boolean {
    return this.#streaming;
  }

  /** Bytes the whole answer may hold. */
  get maxBytes(): number {
    return this.limits.maxBytes;
  }

  /** Bytes the answer may still take, `keep` of them left for its end. */
  room(keep = 0): number {
    return this.limits.maxBytes - keep - this.#bytes;
  }

  /**
   * Adds to the answer, counted as `counted` bytes (a response as the text it was made from, when
   * that is more: reading a text costs as much as writing it); throws OverBudget, writing nothing,
   * if that would leave less than `keep` bytes.
   */
  async write(chunk: string, keep = 0, counted = Buffer.byteLength(chunk)): Promise<void> {
    if (this.#gone) throw new ClientGone();
    if (counted > this.room(keep)) throw new OverBudget();
    this.#bytes += counted;
    if (!this.#streaming) {
      this.#held.push(chunk);
      if (this.#bytes <= this.limits.bigBytes) return;
      this.#start();
      chunk = this.#held.join('');
      this.#held = [];
    }
    if (!this.res.write(chunk)) await this.#drained();
  }

  /** Sends what is held (the whole answer, with its length, if it stayed small) and ends it. */
  end(): void {
    if (this.#gone) throw new ClientGone();
    if (this.#streaming) {
      this.res.end();
      return;
    }
    // Encoded once: its length is the buffer's, not a second pass over the text.
    const body = Buffer.from(this.#held.join(''));
    this.#held = [];
    this.res.statusCode = this.head.status;
    this.res.setHeader('Content-Type', this.head.type);
    this.res.setHeader('Content-Length', body.length);
    this.res.end(body);
  }

  /**
   * Takes the caller's slot for a big answer now, before work that may build one in memory (an
   * expansion): a caller with none free is refused at once, not after the work.
   */
  reserve(): void {
    if (this.#slot) return;
    if (!this.big.take(this.caller))
      throw new DavError(
        429,
        `At most ${this.big.perCaller} answers over ${this.limits.bigBytes / 1024} KB or expanding series are sent to one caller at once: ask again when one has ended.`,
        undefined,
        { 'Retry-After': '1' },
      );
    this.#slot = true;
    this.res.once('close', () => {
      this.big.give(this.caller);
    });
  }

  /** The answer turns big: the caller must have a slot free, given back when the answer closes. */
  #start(): void {
    this.reserve();
    this.#streaming = true;
    this.res.statusCode = this.head.status;
    this.res.setHeader('Content-Type', this.head.type);
  }

  /** Until the socket takes more, or the client has gone (ClientGone). */
  #drained(): Promise<void> {
    if (!this.#listening) {
      this.#listening = true;
      // One listener for the answer's life, not one per wait: the compression middleware hands
      // 'drain' listeners to its zlib stream and cannot take them off again, so each wait's would
      // stay there until the answer ended (MaxListenersExceededWarning on a long one).
      const wake = () => {
        const waiting = this.#waiting;
        this.#waiting = undefined;
        waiting?.();
      };
      this.res.on('drain', wake);
      this.res.on('close', wake);
    }
    return new Promise((resolve, reject) => {
      this.#waiting = () => {
        if (this.#gone) reject(new ClientGone());
        else resolve();
      };
    });
  }
}
