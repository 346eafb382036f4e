// The two imports `npm run import` offers (scripts/import.ts): from a site of the modelled service,
// and from an iCalendar file or URL.
import { trimEndChar } from '../lib/text.js';
import { readFile } from 'node:fs/promises';
import { fetchSource, type FetchOptions, SourceError, sourceUrl, Stopped } from './fetch-source.js';
import { ICS_SOURCE, readCalendar } from './ics-source.js';
import { DEFAULT_LIMITS, type ImportLimits } from './limits.js';
import { readSite } from './read-site.js';
import { emptySummary, type Progress, startWriting, type Summary } from './run-import.js';
import type { TecSite } from './site-lists.js';
import type { ImportRun } from './import-run.js';

export interface TecOptions {
  base: string;
  /** Basic credentials there (a WordPress login and application password), for drafts and private items. */
  user?: string;
  appPassword?: string;
  fetch?: FetchOptions;
  /** Bounds on what is read (limits.ts); DEFAULT_LIMITS for what is not given. */
  limits?: Partial<ImportLimits>;
}

/** The largest answer of a site's API taken: a page of 50 events is a few hundred KiB. */
const MAX_PAGE_BYTES = 16 * 1024 * 1024;

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
      maxBytes: MAX_PAGE_BYTES,
      ...options.fetch,
      // Given for the site: never sent to another origin its answers name (an image elsewhere).
      credentials: signedIn
        ? {
            origin: base.origin,
            authorization: `Basic ${Buffer.from(`${options.user}:${options.appPassword ?? ''}`).toString('base64')}`,
          }
        : undefined,
      onRetry: (line) => {
        progress.log(line);
      },
      signal: stop,
    },
    signedIn,
    posts: {},
  };
  const source = tecSourceName(base);
  const summary = emptySummary();
  // Images come from the site with its own stop and messages, within the library's size bound.
  const images = run.images && { ...run.images, fetch: { ...site.fetch, maxBytes: undefined } };
  const writer = startWriting({ ...run, source, images }, summary, progress, stop);
  const limits = { ...DEFAULT_LIMITS, ...options.limits };
  try {
    await readSite({ site, db: run.ctx.db, source, limits, writer, summary, progress, stop });
  } catch (err) {
    if (!(err instanceof Stopped)) throw err;
    summary.stopped = true; // what was read before is written
  } finally {
    writer.finish();
  }
  return summary;
}

/** An iCalendar file's bytes, and the charset its server declared for them (Content-Type). */
export interface IcsFile {
  bytes: Uint8Array;
  charset?: string;
}

/** The bytes of an iCalendar file, or of an http(s) URL; any other scheme is refused. */
export async function readIcs(location: string, fetch: FetchOptions = {}): Promise<IcsFile> {
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(location)) {
    const url = sourceUrl(location);
    const answer = await fetchSource(url, { ...fetch, accept: 'text/calendar, */*;q=0.5' });
    if (answer.status < 200 || answer.status > 299) {
      throw new SourceError(
        `${url.origin}${url.pathname} answered ${answer.status}`,
        answer.status,
        new TextDecoder().decode(answer.bytes.subarray(0, 500)),
      );
    }
    const charset = /;\s*charset="?([\w.:-]{1,40})/i.exec(answer.headers.get('content-type') ?? '')?.[1];
    return { bytes: answer.bytes, ...(charset ? { charset } : {}) };
  }
  try {
    return { bytes: await readFile(location) };
  } catch (err) {
    throw new SourceError(`Cannot read ${location}: ${(err as Error).message}`);
  }
}

/** The calendar as a file: text is encoded as UTF-8, bare bytes have no declared charset. */
function icsFileOf(calendar: IcsFile | Uint8Array | string): IcsFile {
  if (typeof calendar === 'string') return { bytes: Buffer.from(calendar, 'utf8') };
  if ('bytes' in calendar) return calendar;
  return { bytes: calendar };
}

/**
 * Imports an iCalendar file (its bytes, which it unfolds in place, or its text), a batch of events
 * at a time (ics-source.ts).
 */
export async function importIcs(
  run: Omit<ImportRun, 'source'>,
  calendar: IcsFile | Uint8Array | string,
  progress: Progress,
  stop: AbortSignal,
  limits: Partial<ImportLimits> = {},
): Promise<Summary> {
  const summary = emptySummary();
  let read: ReturnType<typeof readCalendar>;
  try {
    const file = icsFileOf(calendar);
    read = readCalendar(file.bytes, { ...DEFAULT_LIMITS, ...limits }, file.charset);
  } catch (err) {
    throw new SourceError((err as Error).message);
  }
  summary.notes.push(...read.notes);
  const writer = startWriting({ ...run, source: ICS_SOURCE }, summary, progress, stop);
  try {
    writer.expect(read.total + read.unreadable.length);
    writer.skip(read.unreadable);
    for (const batch of read.batches()) {
      await writer.write(batch);
      if (summary.stopped) break;
    }
  } finally {
    writer.finish();
  }
  return summary;
}
