// What an upload becomes: its type read from its bytes, checked against the limits, and the files
// made of it once, at upload (docs/decisions.md, "Images"). The full size is the upload turned
// upright, bounded (MEDIA_MAX_SIDE) and written again without its metadata; the smaller sizes are
// WordPress's defaults. The decoding, resizing and encoding are sharp's (libvips): it reads each
// format by its own signature, never by a name or a Content-Type, and refuses truncated data.
import sharp, { type Metadata, type Sharp } from 'sharp';
import { MediaRefused } from '../domain/errors.js';
import { slugify } from '../lib/slug.js';

/** The sizes WordPress makes by default: `crop` fills the box exactly, else the image fits inside it (0: no bound). */
export const SIZES = [
  { name: 'thumbnail', width: 150, height: 150, crop: true },
  { name: 'medium', width: 300, height: 300, crop: false },
  { name: 'medium_large', width: 768, height: 0, crop: false },
  { name: 'large', width: 1024, height: 1024, crop: false },
] as const;

type SizeName = (typeof SIZES)[number]['name'];

/** The formats taken, by what libvips reads them as, with what they are served as. */
const FORMATS = {
  jpeg: { mimeType: 'image/jpeg', extension: 'jpg' },
  png: { mimeType: 'image/png', extension: 'png' },
  webp: { mimeType: 'image/webp', extension: 'webp' },
  gif: { mimeType: 'image/gif', extension: 'gif' },
  avif: { mimeType: 'image/avif', extension: 'avif' },
} as const;

type Format = keyof typeof FORMATS;

/** An uploaded file, as the request's body held it (http/upload-body.ts). */
export interface Upload {
  bytes: Buffer;
  /** The file's name as the client gave it; `image` when it gave none. */
  fileName: string;
}

export interface MediaLimits {
  /** The most bytes an upload may have (413 past it). */
  maxBytes: number;
  /** The most pixels of all its frames together: a small file that decodes into gigabytes is refused before it is decoded. */
  maxPixels: number;
  /** The longest side of the full size; a larger upload is scaled down to it (0: kept as large as it is). */
  maxSide: number;
}

export interface MadeFile {
  /** `full` or a size's name. */
  size: 'full' | SizeName;
  name: string;
  mimeType: string;
  width: number;
  height: number;
  bytes: Buffer;
}

export interface MadeImage {
  mimeType: string;
  extension: string;
  /** The full size first, then the sizes smaller than it, in SIZES order; sizes of the same box share a name and bytes. */
  files: MadeFile[];
}

/**
 * Markup that makes a file something else besides an image (a page a browser would run, a script,
 * a vector image with scripts): a polyglot. None of these is ever part of an image's own data
 * except by a chance of about one in 2^56 per byte, so finding one is refusing a file built to be
 * read two ways. The served files are written again from the pixels, so none of it would be
 * served; refusing it says so to whoever sent it.
 */
const MARKUP = ['<script', '<html', '<!doctype', '<?php', '<iframe', '<body', '<svg', '<object', '<embed'];

/** The files of an upload named `fileName`; MediaRefused for anything this library does not take. */
export async function makeImage(bytes: Buffer, fileName: string, limits: MediaLimits): Promise<MadeImage> {
  if (!bytes.length) throw new MediaRefused('empty', 'The file is empty.');
  if (bytes.length > limits.maxBytes) throw tooLarge(limits);
  const text = bytes.toString('latin1').toLowerCase();
  if (MARKUP.some((marker) => text.includes(marker))) {
    throw new MediaRefused('type', 'The file holds markup besides an image; upload the image alone.');
  }
  const source = await inspect(bytes, limits);
  const { format, width, height } = source;
  const stem = slugify(fileName.replace(/\.[A-Za-z0-9]{1,5}$/, '')).slice(0, 100) || 'image';
  const { mimeType, extension } = FORMATS[format];
  const bound = limits.maxSide > 0 && Math.max(width, height) > limits.maxSide;
  const full = bound ? fit(width, height, limits.maxSide, limits.maxSide) : { width, height };
  const files: MadeFile[] = [
    await render(bytes, source, {
      size: 'full',
      name: `${stem}${bound ? '-scaled' : ''}.${extension}`,
      ...full,
      crop: false,
    }),
  ];
  for (const size of SIZES) {
    const box = sizeOf(full.width, full.height, size);
    if (!box) continue;
    const name = `${stem}-${box.width}x${box.height}.${extension}`;
    // Two sizes of the same box (medium_large and large of a portrait photo) share one file, as in WordPress.
    const same = files.find((made) => made.name === name);
    files.push(
      same
        ? { ...same, size: size.name }
        : await render(bytes, source, { size: size.name, name, ...box, crop: size.crop }),
    );
  }
  return { mimeType, extension, files };
}

interface Source {
  format: Format;
  /** Upright (its EXIF orientation applied), one frame. */
  width: number;
  height: number;
  animated: boolean;
}

/** The upload's format and size, read from its header alone; refused past the limits before any decoding. */
async function inspect(bytes: Buffer, limits: MediaLimits): Promise<Source> {
  let meta: Metadata;
  try {
    meta = await sharp(bytes, { animated: true, limitInputPixels: false }).metadata();
  } catch {
    throw new MediaRefused('type', 'The file is not an image of a type taken here: JPEG, PNG, WebP, GIF or AVIF.');
  }
  const format = formatOf(meta);
  if (!format) {
    throw new MediaRefused('type', 'The file is not an image of a type taken here: JPEG, PNG, WebP, GIF or AVIF.');
  }
  const frames = meta.pages ?? 1;
  const frameHeight = meta.pageHeight ?? meta.height;
  if (!meta.width || !frameHeight) throw new MediaRefused('corrupt', 'The image has no size.');
  if (meta.width * frameHeight * frames > limits.maxPixels) {
    throw new MediaRefused(
      'pixels',
      `The image has more than ${limits.maxPixels} pixels (all its frames together); upload a smaller one.`,
    );
  }
  // Orientations 5 to 8 turn the image a quarter: its upright width is its stored height.
  const turned = (meta.orientation ?? 1) >= 5;
  return {
    format,
    width: turned ? frameHeight : meta.width,
    height: turned ? meta.width : frameHeight,
    animated: frames > 1,
  };
}

/** libvips's name for the format; HEIF holds AVIF (AV1) and HEIC (HEVC), of which only AVIF is taken. */
function formatOf(meta: Metadata): Format | undefined {
  if (meta.format === 'heif') return meta.compression === 'av1' ? 'avif' : undefined;
  return meta.format in FORMATS ? (meta.format as Format) : undefined;
}

/** One file: the upload decoded whole (a truncated or corrupt one fails here), upright, resized and written without metadata. */
async function render(
  bytes: Buffer,
  source: Source,
  file: { size: MadeFile['size']; name: string; width: number; height: number; crop: boolean },
): Promise<MadeFile> {
  let pipeline: Sharp = sharp(bytes, { animated: source.animated, failOn: 'warning', limitInputPixels: false })
    .autoOrient()
    .resize(file.width, file.height, { fit: file.crop ? 'cover' : 'fill' });
  pipeline = encode(pipeline, source.format);
  try {
    const { data, info } = await pipeline.toBuffer({ resolveWithObject: true });
    return {
      size: file.size,
      name: file.name,
      mimeType: FORMATS[source.format].mimeType,
      width: info.width,
      height: info.pageHeight ?? info.height,
      bytes: data,
    };
  } catch {
    throw new MediaRefused('corrupt', 'The image is truncated or corrupt; upload it again.');
  }
}

/** The format's own encoder, at WordPress's default quality (82) where it is lossy. */
function encode(pipeline: Sharp, format: Format): Sharp {
  switch (format) {
    case 'jpeg':
      return pipeline.jpeg({ quality: 82 });
    case 'png':
      return pipeline.png();
    case 'webp':
      return pipeline.webp({ quality: 82 });
    case 'gif':
      return pipeline.gif();
    case 'avif':
      // The lowest effort that keeps an upload of a large photo within a few seconds on two cores.
      return pipeline.avif({ quality: 55, effort: 2 });
  }
}

/** The box of a size for an image of this size, as WordPress computes it; undefined when it would not be smaller (never upscaled). */
export function sizeOf(
  width: number,
  height: number,
  size: { width: number; height: number; crop: boolean },
): { width: number; height: number } | undefined {
  if (size.crop) {
    if (width <= size.width && height <= size.height) return undefined;
    return { width: Math.min(size.width, width), height: Math.min(size.height, height) };
  }
  const box = fit(width, height, size.width || Infinity, size.height || Infinity);
  return box.width >= width && box.height >= height ? undefined : box;
}

/** The largest size of the same proportions within the box, never larger than the image. */
function fit(width: number, height: number, maxWidth: number, maxHeight: number) {
  const scale = Math.min(maxWidth / width, maxHeight / height, 1);
  return { width: Math.max(1, Math.round(width * scale)), height: Math.max(1, Math.round(height * scale)) };
}

function tooLarge(limits: MediaLimits) {
  return new MediaRefused('bytes', `The file is larger than ${limits.maxBytes} bytes.`);
}
