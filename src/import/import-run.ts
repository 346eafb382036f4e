// What one import run is: the writing of items from its source (services/items/write-item.ts),
// and what only an import does besides, bringing the source's images home (images.ts).
import type { ItemWriting } from '../services/items/write-item.js';
import type { ImageImport } from './images.js';

export interface ImportRun extends ItemWriting {
  /** Brings the source's images into the media library (images.ts); unset, image URLs are kept as links. */
  images?: ImageImport;
}
