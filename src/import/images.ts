// Images brought home (docs/decisions.md, "Import"): an item's image URL on the source becomes an
// image of our media library, so that the calendar keeps its pictures once the old site is switched
// off. Each image is fetched once across runs: the library knows where each came from
// (media.source_url, unique), and a run remembers what it found. An image that cannot be brought
// (gone there, too large, not an image) stays a URL, with a remark in the summary; one on a private
// address that the run may not read (src/lib/guarded-fetch.ts) is left out, as the item's other
// readers should not be sent there either. Images are fetched before the item's transaction, which
// holds no lock while the network answers.
import { isUniqueViolation } from '../db/errors.js';
import { MediaRefused } from '../domain/errors.js';
import { makeImage, titleOf } from '../media/images.js';
import { mediaFromSource, storeMedia } from '../services/media.js';
import { OutboundRefused } from '../lib/guarded-fetch.js';
import { fetchSource, SourceError, sourceUrl } from './fetch-source.js';
import type { ImportItem } from '../domain/external-items.js';
import type { Brought, ImageImport, ImportRun } from './import-run.js';

/** Replaces the image URL of the item and of what it carries by the ID of that image here. */
export async function bringImagesHome(run: ImportRun, item: ImportItem): Promise<void> {
  const images = run.images;
  if (!images || run.dryRun) return;
  for (const one of [...(item.embedded ?? []), item]) {
    const url = one.body.image;
    if (typeof url !== 'string' || !/^https?:\/\//i.test(url)) continue;
    let asked = images.known.get(url);
    if (!asked) {
      asked = localImage(run, images, url);
      images.known.set(url, asked);
    }
    const local = await asked;
    if (typeof local === 'number') {
      one.body.image = local;
    } else {
      if (!local.link) one.body.image = '';
      (one.remarks ??= []).push(`image ${local.link ? 'kept as a link' : 'left out'}: ${local.reason}`);
    }
  }
}

async function localImage(run: ImportRun, images: ImageImport, url: string): Promise<Brought> {
  const remembered = await stored(run, url);
  if (remembered !== undefined) return remembered;
  let bytes: Uint8Array;
  try {
    const answer = await fetchSource(sourceUrl(url), { ...images.fetch, maxBytes: images.limits.maxBytes });
    if (answer.status !== 200) return { reason: `its source answered ${answer.status}`, link: true };
    bytes = answer.bytes;
  } catch (err) {
    if (!(err instanceof SourceError)) throw err;
    const privateAddress = err.cause instanceof OutboundRefused && err.cause.reason === 'address';
    return { reason: err.message, link: !privateAddress };
  }
  let id: number;
  try {
    const name = fileNameOf(url);
    const made = await makeImage(Buffer.from(bytes), name, images.limits);
    const title = titleOf(name);
    id = (
      await storeMedia(run.ctx, made, {
        authorId: run.ctx.caller?.id ?? null,
        title,
        altText: '',
        caption: '',
        sourceUrl: url,
      })
    ).id;
  } catch (err) {
    if (err instanceof MediaRefused) return { reason: err.message, link: true };
    // Another writer of this run, or another import, brought it meanwhile.
    const other = isUniqueViolation(err) ? await stored(run, url) : undefined;
    if (other === undefined) throw err;
    id = other;
  }
  return id;
}

/** The file's name, the last segment of its URL's path, decoded when it decodes. */
function fileNameOf(url: string): string {
  const last = new URL(url).pathname.split('/').pop() ?? '';
  try {
    return decodeURIComponent(last) || 'image';
  } catch {
    return last || 'image';
  }
}

const stored = (run: ImportRun, url: string) => mediaFromSource(run.ctx.db, url);
