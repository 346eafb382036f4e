// What one CalDAV request works with (routes.ts builds it), and the reads its methods share: the
// collection a path names, a resource's text, many resources' texts a slice at a time.
import type { Request, Response } from 'express';
import type { CaldavLimits } from '../config/limits.js';
import type { Urls } from '../http/urls.js';
import type { ServiceContext } from '../services/context.js';
import type { Answer } from './answer.js';
import { DavError } from './errors.js';
import type { Entry } from './multistatus.js';
import { type DavTarget, findCollection, resourceHref } from './paths.js';
import type { KeptTexts } from './kept-texts.js';
import { resourceProps, type Seen } from './props.js';
import type { Collection } from '../domain/records.js';
import { idOfName, type ResourceVersion, resourceVersions } from '../services/calendar-objects/read.js';
import { keptOrRead, type ServedText, servedTexts } from './texts.js';

/** What one request works with. */
export interface Exchange {
  req: Request;
  res: Response;
  ctx: ServiceContext;
  urls: Urls;
  target: DavTarget;
  seen: () => Promise<Seen>;
  limits: CaldavLimits;
  /** The answer to this request, bounded and streamed (answer.ts). */
  answer: (status: number, type: string) => Answer;
  /** Resources' texts kept by their ETag, unless CALDAV_TEXT_CACHE_MB is 0. */
  kept?: KeptTexts;
}

export const resourceEntry = (who: Pick<Seen, 'caller'>, segment: string, text: ServedText): Entry => ({
  id: text.id,
  href: resourceHref(segment, text.name),
  values: resourceProps(who, text),
  text: text.text,
});

export async function collectionOf(x: Exchange, segment: string): Promise<Collection> {
  const collection = await findCollection(x.ctx.db, segment);
  if (!collection) throw new DavError(404, 'No such calendar.');
  return collection;
}

export async function resourceText(x: Exchange, collection: Collection, name: string): Promise<ServedText> {
  const id = await idOfName(x.ctx.db, name);
  const text = id === undefined ? undefined : (await servedTexts(x.ctx, x.urls, collection, [id], x.kept)).at(0);
  if (!text) throw new DavError(404, 'No such resource.');
  return text;
}

/**
 * The resources' texts (their ETags need them), read a slice at a time as the answer asks for the
 * next one, so that a client that leaves stops the reading. A slice holds its rows and texts in
 * memory together: after a first one of two (read before the answer knows it is big and takes its
 * caller's slot), each is as many as the texts read so far say fit in SLICE_BYTES (a calendar of
 * 1 MB resources is read a few at a time, one of 2 KB events 100 at a time).
 */
export async function* textsOf(
  x: Exchange,
  collection: Collection,
  ids: number[],
  known?: ResourceVersion[],
): AsyncGenerator<ServedText> {
  // With texts kept, every ETag first (a statement a thousand, unless `known` has them): a slice of
  // texts kept reads nothing more.
  const versions = x.kept ? (known ?? (await resourceVersions(x.ctx, x.urls.site, collection, ids))) : undefined;
  let read = 0;
  let bytes = 0;
  for (let from = 0; from < (versions ?? ids).length;) {
    const size = read ? Math.max(1, Math.min(SLICE, Math.floor((SLICE_BYTES * read) / bytes))) : FIRST_SLICE;
    const texts =
      versions && x.kept
        ? await keptOrRead(x.ctx, x.urls, collection, versions.slice(from, from + size), x.kept)
        : await servedTexts(x.ctx, x.urls, collection, ids.slice(from, from + size), undefined);
    from += size;
    for (const text of texts) {
      read++;
      bytes += text.text.length;
      yield text;
    }
  }
}

const FIRST_SLICE = 2;
const SLICE = 100;
const SLICE_BYTES = 4 * 1024 * 1024;
