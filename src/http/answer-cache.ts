// Answers to anonymous reads, kept while the data they were built from stays as it is. Public
// pages and apps ask the same few questions (the coming events, one event, the venues) far more
// often than anyone writes; an answer kept is sent again without the query, the serialization,
// the ETag's hash or the document's validation.
//
// Exact, on every instance: an answer is kept with the database snapshot read before it was built
// (db/data-version.ts), and sent again only to a request that reads the same snapshot, asked after
// it arrived. A write acknowledged to anyone, through any instance, committed before it was
// acknowledged, so it moved the snapshot every later request reads. An answer that read the time
// (the default window of a list starts now) is kept with its second too, and sent again only
// within it.
//
// What an answer is built from, besides the data and the time, is in its key: the URL (path,
// query, locale segment), the scheme and host links are built from, and the Accept and
// Accept-Language it negotiates by. Only anonymous requests are answered from here, so the caller
// is always the same one; a request with credentials or If-Match is built every time.
import type { Request, Response } from 'express';
import { LRUCache } from 'lru-cache';
import type { DataVersion, DataVersions } from '../db/data-version.js';
import { answerLookups } from '../metrics/registry.js';
import type { Rendered } from './reply.js';
import type { Urls } from './urls.js';

export interface KeptAnswer {
  rendered: Rendered;
  /** How many linked objects its `_embed` followed: each is charged as a read again (http/rest-pipeline.ts embedWanted). */
  embedded: number;
  /** Not to be kept (Reply.unkept). */
  unkept?: true;
}

interface Entry extends KeptAnswer {
  version: DataVersion;
  /** The second of the time the answer read, if it read the time. */
  second?: number;
}

/**
 * What the cache has for one request: the answer kept for it, or a way to keep the one about to be
 * built (`keep`), or to say none came of it (`abandon`: a failure); one of the two must be called.
 */
export type Lookup = { kept: KeptAnswer } | { keep: (answer: KeptAnswer, res: Response) => void; abandon: () => void };

const NOW = 'requestTime';
const TIME_READ = 'requestTimeRead';

/**
 * The time of the request, to the second, as services see it (`ServiceContext.now`): the same in
 * every part of one answer (an embedded object's too), and the same for every request of that
 * second, which may then share the answer. Reading it marks the answer as one of that second.
 */
export function requestTime(res: Response): Date {
  res.locals[TIME_READ] = true;
  return ((res.locals[NOW] as Date | undefined) ??= new Date(Math.floor(Date.now() / 1000) * 1000));
}

export class AnswerCache {
  readonly #versions: DataVersions;
  readonly #entries: LRUCache<string, Entry>;
  /** The version of the newest lookup: answers of other versions will never be sent again. */
  #version?: DataVersion;
  /** The answers being built, by key, with the version they are built at. */
  readonly #building = new Map<string, { version: DataVersion; answer: Promise<Entry | undefined> }>();

  constructor(versions: DataVersions, megabytes: number) {
    const maxSize = megabytes * 1024 * 1024;
    this.#versions = versions;
    this.#entries = new LRUCache<string, Entry>({
      maxSize,
      // One answer takes at most an eighth of the room: a few large feeds do not push out every list.
      maxEntrySize: Math.ceil(maxSize / 8),
      sizeCalculation: (entry, key) => key.length + (entry.rendered.body?.length ?? 0) + 512,
    });
  }

  /**
   * The answer kept for this request, or how to keep it; undefined when its answer is not kept
   * (a caller with credentials, a write, the database not answering).
   */
  async lookup(req: Request, urls: Urls): Promise<Lookup | undefined> {
    if (!anonymousRead(req)) return undefined;
    let version: DataVersion;
    try {
      version = await this.#versions.current();
    } catch {
      return undefined; // the request itself will meet the database's trouble, and report it
    }
    if (version !== this.#version) {
      this.#entries.clear();
      this.#version = version;
    }
    const key = keyOf(req, urls);
    const entry = this.#entries.get(key);
    if (isCurrent(entry, version)) {
      answerLookups.inc({ result: 'hit' });
      return { kept: entry };
    }
    // The same answer being built at this version: a request that arrived after its version was
    // read may take it, as it may take a kept one. Under load, a list whose window starts now is
    // built once a second, not once per request waiting at the turn of the second.
    const building = this.#building.get(key);
    if (building?.version === version) {
      const built = await building.answer;
      if (isCurrent(built, version)) {
        answerLookups.inc({ result: 'hit' });
        return { kept: built };
      }
    }
    answerLookups.inc({ result: 'miss' });
    return this.#build(key, version);
  }

  /** How a request keeps the answer it builds, or says it has none; those waiting for it hear either. */
  #build(key: string, version: DataVersion): Lookup {
    let settle: (entry?: Entry) => void = () => undefined;
    const mine = { version, answer: new Promise<Entry | undefined>((resolve) => (settle = resolve)) };
    this.#building.set(key, mine);
    const finish = (entry?: Entry) => {
      if (this.#building.get(key) === mine) this.#building.delete(key);
      settle(entry);
    };
    return {
      keep: (answer, res) => {
        const { status, body } = answer.rendered;
        if (this.#version !== version || status !== 200 || body === undefined || answer.unkept) {
          finish();
          return;
        }
        const now = res.locals[TIME_READ] ? (res.locals[NOW] as Date).getTime() / 1000 : undefined;
        const entry = { ...answer, version, second: now };
        this.#entries.set(key, entry);
        finish(entry);
      },
      abandon: () => {
        finish();
      },
    };
  }
}

/** Whether an answer is of this data version and, if it read the time, of this second. */
function isCurrent(entry: Entry | undefined, version: DataVersion): entry is Entry {
  return entry?.version === version && (entry.second === undefined || entry.second === Math.floor(Date.now() / 1000));
}

/** A GET or HEAD without credentials nor If-Match: its answer is the same for every such request. */
function anonymousRead(req: Request): boolean {
  return (
    (req.method === 'GET' || req.method === 'HEAD') &&
    req.headers.authorization === undefined &&
    req.headers['if-match'] === undefined
  );
}

function keyOf(req: Request, urls: Urls): string {
  const { accept = '', 'accept-language': language = '' } = req.headers;
  return [urls.base, urls.site, req.url, accept, language].join('\n');
}
