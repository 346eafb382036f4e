// What one import runs with, shared by the writer (write-item.ts), the images it brings home
// (images.ts) and the commands that start it (commands.ts, run-import.ts): a home of its own, so
// that none of them imports the others for a type.
import type { MediaLimits } from '../media/images.js';
import type { ServiceContext } from '../services/context.js';
import type { FetchOptions } from './fetch-source.js';

export interface ImportRun {
  ctx: ServiceContext;
  /** The source's name in the mapping: the API's base URL, or `ics`. */
  source: string;
  /** Decide and report, write nothing. */
  dryRun: boolean;
  /** How many items of a kind are written at once (run-import.ts); 1 when not given. */
  concurrency?: number;
  /** In a dry run: the items it would have created so far (refKey), which later ones may carry again. */
  planned?: Set<string>;
  /**
   * The local IDs of items this run found or wrote, by refKey, once their transaction committed: an
   * event's venue, organizers and terms are looked up once per run, not once per event. A
   * transaction run again (services/retry.ts) reads afresh, in case one was deleted here meanwhile.
   * Events, which no item names, are not kept: the run's memory grows with the items named, not
   * with the calendar.
   */
  known?: Map<string, number>;
  /** Brings the source's images into the media library (images.ts); unset, image URLs are kept as links. */
  images?: ImageImport;
  /**
   * Writes an event even when its body is the one last written from the source: a CalDAV PUT
   * replaces the event as it is now, which the API may have changed since (caldav/write.ts).
   */
  rewrite?: boolean;
}

export interface ImageImport {
  limits: MediaLimits;
  /** The source's fetch settings (stop, retries, messages); the size bound is the library's. */
  fetch?: FetchOptions;
  /**
   * Each source URL this run asked for: its image here, or why it stays a link. Kept as the
   * question, so that items written at once that show the same image fetch it once.
   */
  known: Map<string, Promise<Brought>>;
}

/** The ID of the image here, or why it could not be brought and whether its link is kept. */
export type Brought = number | { reason: string; link: boolean };
