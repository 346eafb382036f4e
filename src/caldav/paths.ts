// Where CalDAV lives (docs/caldav.md): one prefix, under which the principals, the calendar home
// every principal shares (the calendars are the site's, not a user's) and its collections lie.
import type { PrismaClient } from '../db/client.js';
import type { Collection } from '../domain/records.js';
import { categoryCollection } from '../services/calendar-objects/read.js';
import { DavError } from './errors.js';

export const DAV_PREFIX = '/caldav';
export const HOME = `${DAV_PREFIX}/calendars/`;

export type DavTarget =
  | { kind: 'root' }
  | { kind: 'principals' }
  | { kind: 'principal'; login: string }
  | { kind: 'home' }
  | { kind: 'collection'; segment: string }
  | { kind: 'resource'; segment: string; name: string };

const encode = (segment: string) => encodeURIComponent(segment);

export const principalHref = (login: string) => `${DAV_PREFIX}/principals/${encode(login)}/`;
export const collectionHref = (segment: string) => `${HOME}${encode(segment)}/`;
export const resourceHref = (segment: string, name: string) => `${HOME}${encode(segment)}/${encode(name)}`;

/** What a path under the prefix names (the prefix itself included); undefined for nothing. */
export function targetOf(path: string): DavTarget | undefined {
  if (path !== DAV_PREFIX && !path.startsWith(`${DAV_PREFIX}/`)) return undefined;
  const segments = path.slice(DAV_PREFIX.length).split('/').filter(Boolean).map(decodeSegment);
  if (segments.length > 3) return undefined;
  const [area, first, second] = [segments.at(0), segments.at(1), segments.at(2)];
  if (area === undefined) return { kind: 'root' };
  if (area === 'principals') {
    if (second !== undefined) return undefined;
    return first === undefined ? { kind: 'principals' } : { kind: 'principal', login: first };
  }
  if (area !== 'calendars') return undefined;
  if (first === undefined) return { kind: 'home' };
  if (second === undefined) return { kind: 'collection', segment: first };
  return { kind: 'resource', segment: first, name: second };
}

/** The path of an href in a request body, which clients write as a path or as a whole URL. */
export function pathOfHref(href: string): string {
  try {
    return new URL(href.trim(), 'http://service.invalid').pathname;
  } catch {
    return '';
  }
}

function decodeSegment(segment: string): string {
  let decoded: string;
  try {
    decoded = decodeURIComponent(segment);
  } catch {
    throw new DavError(400, 'The path has a percent sign that encodes no character.');
  }
  // No name here holds a control character (PUT refuses them), and PostgreSQL's text holds no NUL.
  if (/\p{Cc}/u.test(decoded)) throw new DavError(400, 'The path encodes a control character.');
  return decoded;
}

/** The segment that names the whole calendar; `category-<slug>` names a category's (docs/caldav.md). */
export const ALL = 'events';
const CATEGORY_PREFIX = 'category-';

export const segmentOf = (collection: Collection) =>
  collection.kind === 'all' ? ALL : `${CATEGORY_PREFIX}${collection.slug}`;

/** The collection a path segment names: `events`, or `category-<slug>`; undefined for none. */
export async function findCollection(db: PrismaClient, segment: string): Promise<Collection | undefined> {
  if (segment === ALL) return { kind: 'all' };
  if (!segment.startsWith(CATEGORY_PREFIX)) return undefined;
  return categoryCollection(db, segment.slice(CATEGORY_PREFIX.length));
}
