// Images as representations show them (docs/decisions.md, "Images"): an item's `image` object (part
// 1.6 of the modelled service: url, id, extension, width, height, filesize, sizes), and an
// uploaded image as the media routes answer it. Files are served under /uploads/ of the site's
// address (media/files-route.ts), as permalinks are.
import type { ImageMeta, MediaRecord } from '../domain/records.js';
import type { Urls } from '../http/urls.js';
import { formatDateTime } from '../lib/dates.js';
import { restUrl } from './rest-urls.js';
import { SIZES } from '../media/images.js';

/** Where an uploaded file is served. */
/** A file's URL; names keep the letters of every script (lib/slug.ts), which a URL carries percent-encoded. */
export const fileUrl = (site: string, file: string) =>
  `${site}/uploads/${file.split('/').map(encodeURIComponent).join('/')}`;

/** The image object of an item: its uploaded image, else the URL it was given; undefined without one. */
export function imageObject(row: { image: string | null; imageMeta?: unknown }, site: string) {
  if (row.imageMeta) return uploadedImage(row.imageMeta as ImageMeta, site);
  const url = row.image;
  if (!url) return undefined;
  const extension = /\.([A-Za-z0-9]{1,5})$/.exec(new URL(url).pathname)?.[1]?.toLowerCase();
  return { url, ...(extension ? { extension } : {}) };
}

/** The URL of an item's image: its full size. */
export const imageUrl = (row: { image: string | null; imageMeta?: unknown }, site: string) =>
  row.imageMeta ? fileUrl(site, (row.imageMeta as ImageMeta).file) : (row.image ?? undefined);

function uploadedImage(meta: ImageMeta, site: string) {
  return {
    url: fileUrl(site, meta.file),
    id: meta.id,
    extension: meta.extension,
    width: meta.width,
    height: meta.height,
    filesize: meta.filesize,
    // In SIZES order: the stored meta is jsonb, which keeps an object's keys in an order of its own.
    sizes: Object.fromEntries(
      SIZES.flatMap(({ name }) => {
        const size = meta.sizes[name];
        if (!size) return [];
        const { width, height, filesize } = size;
        return [[name, { width, height, 'mime-type': size['mime-type'], filesize, url: fileUrl(site, size.file) }]];
      }),
    ),
  };
}

/** An uploaded image as GET .../media/<id> answers it. */
export function serializeMedia(row: MediaRecord, urls: Urls, siteZone: string) {
  const image = uploadedImage(row.meta as unknown as ImageMeta, urls.site);
  return {
    id: row.id,
    author: String(row.authorId ?? 0),
    date: formatDateTime(row.publishedAt, siteZone),
    date_utc: formatDateTime(row.publishedAt, 'UTC'),
    modified: formatDateTime(row.modifiedAt, siteZone),
    modified_utc: formatDateTime(row.modifiedAt, 'UTC'),
    slug: row.slug,
    url: image.url,
    rest_url: restUrl('media', row.id, urls),
    title: row.title,
    alt_text: row.altText,
    caption: row.caption,
    media_type: 'image',
    mime_type: row.mimeType,
    extension: image.extension,
    width: image.width,
    height: image.height,
    filesize: image.filesize,
    sizes: image.sizes,
  };
}
