// What one import run is: the writing of items from its source (services/items/write-item.ts),
// and what only an import does besides, bringing the source's images home (images.ts). The images'
// types live here too, so that images.ts and this module do not import each other.
import type { MediaLimits } from '../media/images.js';
import type { ItemWriting } from '../services/items/write-item.js';
import type { FetchOptions } from './fetch-source.js';

export interface ImportRun extends ItemWriting {
  /** Brings the source's images into the media library (images.ts); unset, image URLs are kept as links. */
  images?: ImageImport;
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
