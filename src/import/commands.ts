// The two imports `npm run import` offers (scripts/import.ts): from a site of the modelled service,
// and from an iCalendar file or URL.
import { trimEndChar } from '../lib/text.js';
import { readFile } from 'node:fs/promises';
import { fetchSource, type FetchOptions, SourceError, sourceUrl, Stopped } from './fetch-source.js';
import { ICS_SOURCE, readCalendar, unfoldedText } from './ics-source.js';
import { type ImportItem, KIND_ORDER, refKey, type Unreadable } from './items.js';
import { mappedItems } from './ledger.js';
import { emptySummary, type Progress, type Summary, writeAll } from './run-import.js';
import { listEventIds, readLists, readOne, type TecSite } from './tec-source.js';
import type { ImportRun } from './write-item.js';

export interface TecOptions {
  base: string;
  /** Basic credentials there (a WordPress login and application password), for drafts and private items. */
  user?: string;
  appPassword?: string;
  fetch?: FetchOptions;
}

/** The source's name in the mapping: the base URL without a trailing slash, query or fragment. */
export function tecSourceName(base: URL): string {
  return `${base.origin}${trimEndChar(base.pathname, '/')}`;
}

export async function importTec(
  run: Omit<ImportRun, 'source'>,
  options: TecOptions,
  progress: Progress,
  stop: AbortSignal,
): Promise<Summary> {
  const base = sourceUrl(options.base);
  const signedIn = Boolean(options.user);
  const site: TecSite = {
    base,
    fetch: {
      ...options.fetch,
      authorization: signedIn
        ? `Basic ${Buffer.from(`${options.user}:${options.appPassword ?? ''}`).toString('base64')}`
        : undefined,
      onRetry: (line) => {
        progress.log(line);
      },
      signal: stop,
    },
  };
  const source = tecSourceName(base);
  const summary = emptySummary();
  let read: { items: ImportItem[]; unreadable: Unreadable[] };
  try {
    read = await readSite(site, signedIn, { db: run.ctx.db, source }, summary, progress, stop);
  } catch (err) {
    if (!(err instanceof Stopped)) throw err;
    summary.stopped = true; // while reading: nothing was written
    return summary;
  }
  await writeAll({ ...run, source }, read.items, read.unreadable, summary, progress, stop);
  return summary;
}

/**
 * Every item of the site: its lists, then the events WordPress lists that they do not show, then
 * what an earlier run imported and they no longer show (hidden, out of reach, or deleted there, which
 * goes into the summary). A stop asked for while reading, which takes long on a large or slow site,
 * ends it at the next page or item (Stopped).
 */
async function readSite(
  site: TecSite,
  signedIn: boolean,
  { db, source }: { db: ImportRun['ctx']['db']; source: string },
  summary: Summary,
  progress: Progress,
  stop: AbortSignal,
): Promise<{ items: ImportItem[]; unreadable: Unreadable[] }> {
  const checkStop = () => {
    if (stop.aborted) throw new Stopped();
  };
  const { items, unreadable } = await readLists(site, (kind, page, pages) => {
    checkStop();
    if (page === pages || page % 10 === 0) progress.log(`read ${kind} lists: page ${page} of ${pages}`);
  });
  const seen = new Set(items.map(refKey));

  // Events the lists never show (hidden ones), by WordPress's own list of their IDs.
  const eventIds = await listEventIds(site, signedIn);
  if (Array.isArray(eventIds)) {
    const unlisted = eventIds.filter((id) => !seen.has(refKey({ kind: 'event', externalId: id })));
    if (unlisted.length) progress.log(`reading ${unlisted.length} events that the lists do not show`);
    for (const id of unlisted) {
      checkStop();
      await readUnlisted(site, { kind: 'event', externalId: id }, items, unreadable, seen);
    }
  } else {
    summary.notes.push(
      `events hidden from listings could not be looked for (${eventIds.unavailable}); only those imported before are checked.`,
    );
  }

  const mapped = await mappedItems(db, source, KIND_ORDER);
  const missing = mapped.filter(
    (m) => !seen.has(refKey({ kind: m.kind as ImportItem['kind'], externalId: m.externalId })),
  );
  if (missing.length) progress.log(`checking ${missing.length} items imported before that the lists do not show`);
  for (const m of missing) {
    checkStop();
    const ref = { kind: m.kind as ImportItem['kind'], externalId: m.externalId };
    const state = await readUnlisted(site, ref, items, unreadable, seen);
    if (state === 'gone') summary.deletedThere.push({ ...ref, localId: m.localId });
  }
  return { items, unreadable };
}

/** Reads one item the lists did not show and adds it; answers whether it was found. */
async function readUnlisted(
  site: TecSite,
  ref: Pick<ImportItem, 'kind' | 'externalId'>,
  items: ImportItem[],
  unreadable: Unreadable[],
  seen: Set<string>,
): Promise<'found' | 'gone' | 'unreadable'> {
  const one = await readOne(site, ref.kind, ref.externalId);
  seen.add(refKey(ref));
  if ('found' in one) {
    items.push(one.found);
    return 'found';
  }
  if ('gone' in one) return 'gone';
  unreadable.push('hidden' in one ? { ...ref, reason: one.hidden } : one);
  return 'unreadable';
}

/** Reads an iCalendar file, or an http(s) URL; any other scheme is refused. */
export async function readIcsText(location: string, fetch: FetchOptions = {}): Promise<string> {
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(location)) {
    const url = sourceUrl(location);
    const answer = await fetchSource(url, { ...fetch, accept: 'text/calendar, */*;q=0.5' });
    const text = unfoldedText(answer.bytes);
    if (answer.status < 200 || answer.status > 299) {
      throw new SourceError(
        `${url.origin}${url.pathname} answered ${answer.status}`,
        answer.status,
        text.slice(0, 500),
      );
    }
    return text;
  }
  try {
    return unfoldedText(await readFile(location));
  } catch (err) {
    throw new SourceError(`Cannot read ${location}: ${(err as Error).message}`);
  }
}

export async function importIcs(
  run: Omit<ImportRun, 'source'>,
  text: string,
  progress: Progress,
  stop: AbortSignal,
): Promise<Summary> {
  const summary = emptySummary();
  let read: ReturnType<typeof readCalendar>;
  try {
    read = readCalendar(text);
  } catch (err) {
    throw new SourceError((err as Error).message);
  }
  await writeAll({ ...run, source: ICS_SOURCE }, read.items, read.unreadable, summary, progress, stop);
  return summary;
}
