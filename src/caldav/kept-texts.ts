// Resources' texts kept by their ETag, so that a multiget, a calendar-query or a GET sends a text
// written before instead of reading its rows and writing it again (docs/performance.md, "The
// CalDAV multiget"). Radicale keeps its items as files; this keeps them in memory, per process.
//
// Exact on every instance, whoever wrote what: a resource's ETag is a digest of everything its
// text is made from, the caller's view included (services/calendar-objects/read.ts
// resourceVersions), so a change anywhere (the REST API, CalDAV, another instance, a venue's
// rename) gives the resource a new ETag, under which nothing is kept yet. A text is kept only
// under the ETag read in the same snapshot as the rows it was written from (caldav/texts.ts
// servedTexts), never under one read before or after them.
import { LRUCache } from 'lru-cache';

/** What a resource's answers show of it besides its ETag and name. */
export interface KeptText {
  text: string;
  /** Its event's title (displayname). */
  title: string;
  /** Its event's last change (getlastmodified). */
  modifiedAt: Date;
}

export class KeptTexts {
  readonly #texts: LRUCache<string, KeptText>;

  constructor(megabytes: number) {
    this.#texts = new LRUCache<string, KeptText>({
      maxSize: megabytes * 1024 * 1024,
      // Strings of JavaScript take up to two bytes a character; an entry's own objects about 200.
      sizeCalculation: (kept) => 2 * (kept.text.length + kept.title.length) + 200,
    });
  }

  get(etag: string): KeptText | undefined {
    return this.#texts.get(etag);
  }

  set(etag: string, kept: KeptText): void {
    this.#texts.set(etag, kept);
  }
}
