// What an upload becomes: its type read from its bytes, checked against the limits, and the files
// made of it once, at upload (docs/decisions.md, "Images"). The full size is the upload turned
// upright, bounded (MEDIA_MAX_SIDE) and written again without its metadata; the smaller sizes are
// WordPress's defaults. The decoding, resizing and encoding are sharp's (libvips): it reads each
// format by its own signature, never by a name or a Content-Type, and refuses truncated data.
import pLimit from 'p-limit';
import type { Metadata, Sharp } from 'sharp';
import { MediaRefused } from '../domain/errors.js';
import { slugify } from '../lib/slug.js';
import { firstCharacters } from '../lib/text.js';

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

/**
 * Shapes no photograph or drawing has, whose decoding costs far more than their pixels suggest
 * (libvips works a row at a time: a PNG one pixel wide and 20 million high took 6 s to decode),
 * and animations of more frames than any real one: refused from the header.
 */
const MAX_SIDE = 30_000;
const MAX_RATIO = 100;
const MAX_FRAMES = 500;

/** How long one file may take to make; an image that takes longer is refused, not waited for. */
const RENDER_SECONDS = 20;

/**
 * Images made at once by this process. sharp works on libuv's four worker threads, which the
 * password hashes of sign-ins share: two at a time keep sign-ins answered while uploads arrive
 * (with four GIF bombs at once, a sign-in took 7 s). Beyond BUSY waiting, an upload is refused
 * (429) before its body is read (http/upload-body.ts), so that waiting uploads hold no memory
 * without bound.
 */
const work = pLimit(2);
const BUSY = 8;

/**
 * sharp, loaded with the first upload: libvips and its codecs take 32 MB of a process's memory
 * that one serving only reads never needs.
 */
let library: Promise<typeof import('sharp')> | undefined;
const loadSharp = async () => (await (library ??= import('sharp'))).default;

/** Whether this process has as many images to make as it takes. */
export const busy = () => work.activeCount + work.pendingCount >= BUSY;

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
  /** The stem of its files' names, from the upload's name. */
  stem: string;
  mimeType: string;
  extension: string;
  /** The full size first, then the sizes smaller than it, in SIZES order; sizes of the same box share a name and bytes. */
  files: MadeFile[];
}

/**
 * Markup that makes a file something else besides an image (a page a browser would run, a
 * script): a polyglot, which carries it in front of the image or after its end. The served files
 * are written again from the pixels, so none of it would ever be served; refusing it says so to
 * whoever sent it. Only the first and last SCANNED bytes are looked at, which keeps the look cheap
 * and real photos safe: each marker has five or more letters after its `<` (any case), so it turns
 * up in compressed data by chance about once in 2^36 bytes or rarer.
 */
const MARKUP = ['<script', '<html', '<!doctype', '<?php', '<iframe', '<body', '<object', '<embed'];
const SCANNED = 4096;

/** The title an upload gets from its file's name: without its extension or control characters, at most 1,000 characters. */
export function titleOf(fileName: string): string {
  // eslint-disable-next-line no-control-regex -- control characters are what is removed
  return firstCharacters(withoutExtension(fileName.replace(/[\u0000-\u001f\u007f]/g, '')), 1000);
}

const withoutExtension = (name: string) => name.replace(/\.[A-Za-z0-9]{1,5}$/, '');

/** The files of an upload named `fileName`; MediaRefused for anything this library does not take. */
export async function makeImage(bytes: Buffer, fileName: string, limits: MediaLimits): Promise<MadeImage> {
  if (!bytes.length) throw new MediaRefused('empty', 'The file is empty.');
  if (bytes.length > limits.maxBytes) {
    throw new MediaRefused('bytes', `The file is larger than ${limits.maxBytes} bytes.`);
  }
  const ends = Buffer.concat([bytes.subarray(0, SCANNED), bytes.subarray(-SCANNED)]);
  const text = ends.toString('latin1').toLowerCase();
  if (MARKUP.some((marker) => text.includes(marker))) {
    throw new MediaRefused('type', 'The file holds markup besides an image; upload the image alone.');
  }
  return work(() => make(bytes, fileName, limits));
}

async function make(bytes: Buffer, fileName: string, limits: MediaLimits): Promise<MadeImage> {
  const sharp = await loadSharp();
  const source = await inspect(sharp, bytes, limits);
  const { format, width, height } = source;
  const stem = firstCharacters(slugify(titleOf(fileName)), 100) || 'image';
  const { mimeType, extension } = FORMATS[format];
  const bound = limits.maxSide > 0 && Math.max(width, height) > limits.maxSide;
  const full = bound ? fit(width, height, limits.maxSide, limits.maxSide) : { width, height };
  // A still image is decoded once, to the full size's pixels, and every file is made from those;
  // an animation is decoded for each file, as its frames do not survive raw pixels.
  const pixels = source.animated ? undefined : await decoded(sharp, bytes, full);
  const input = () =>
    pixels
      ? sharp(pixels.data, { raw: pixels.info })
      : sharp(bytes, { animated: true, failOn: 'warning', limitInputPixels: false }).autoOrient();
  const files: MadeFile[] = [
    await render(input, format, {
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
        : await render(input, format, { size: size.name, name, ...box, crop: size.crop }),
    );
  }
  return { stem, mimeType, extension, files };
}

type SharpLibrary = Awaited<ReturnType<typeof loadSharp>>;

interface Source {
  format: Format;
  /** Upright (its EXIF orientation applied), one frame. */
  width: number;
  height: number;
  animated: boolean;
}

const NOT_TAKEN = 'The file is not an image of a type taken here: JPEG, PNG, WebP, GIF or AVIF.';

/** The upload's format and size, read from its header alone; refused past the limits before any decoding. */
async function inspect(sharp: SharpLibrary, bytes: Buffer, limits: MediaLimits): Promise<Source> {
  let meta: Metadata;
  try {
    meta = await sharp(bytes, { animated: true, limitInputPixels: false }).metadata();
  } catch {
    throw new MediaRefused('type', NOT_TAKEN);
  }
  const format = formatOf(meta);
  if (!format) throw new MediaRefused('type', NOT_TAKEN);
  const frames = meta.pages ?? 1;
  const frameHeight = meta.pageHeight ?? meta.height;
  if (!meta.width || !frameHeight) throw new MediaRefused('corrupt', 'The image has no size.');
  const [long, short] = [Math.max(meta.width, frameHeight), Math.min(meta.width, frameHeight)];
  if (long > MAX_SIDE || long / short > MAX_RATIO || frames > MAX_FRAMES) {
    throw new MediaRefused(
      'pixels',
      `The image is ${meta.width} by ${frameHeight} pixels in ${frames} frame(s): at most ${MAX_SIDE} pixels a side, ${MAX_RATIO} times as long as wide, and ${MAX_FRAMES} frames are taken.`,
    );
  }
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

type Pixels = Awaited<ReturnType<typeof decode>>;

/** A still image's pixels at the full size, upright: decoded whole, so a truncated or corrupt one fails here. */
async function decoded(sharp: SharpLibrary, bytes: Buffer, full: { width: number; height: number }): Promise<Pixels> {
  try {
    return await decode(sharp, bytes, full);
  } catch (err) {
    throw refusal(err);
  }
}

const decode = (sharp: SharpLibrary, bytes: Buffer, full: { width: number; height: number }) =>
  sharp(bytes, { failOn: 'warning', limitInputPixels: false })
    .timeout({ seconds: RENDER_SECONDS })
    .autoOrient()
    .resize(full.width, full.height, { fit: 'fill' })
    .raw()
    .toBuffer({ resolveWithObject: true })
    .then(({ data, info }) => ({ data, info: { width: info.width, height: info.height, channels: info.channels } }));

/** One file, resized and written without metadata. */
async function render(
  input: () => Sharp,
  format: Format,
  file: { size: MadeFile['size']; name: string; width: number; height: number; crop: boolean },
): Promise<MadeFile> {
  const pipeline = encode(
    input()
      .timeout({ seconds: RENDER_SECONDS })
      .resize(file.width, file.height, { fit: file.crop ? 'cover' : 'fill' }),
    format,
  );
  try {
    const { data, info } = await pipeline.toBuffer({ resolveWithObject: true });
    return {
      size: file.size,
      name: file.name,
      mimeType: FORMATS[format].mimeType,
      width: info.width,
      height: info.pageHeight ?? info.height,
      bytes: data,
    };
  } catch (err) {
    throw refusal(err);
  }
}

/** libvips's failure as the client's: too slow to make, or not a whole image. */
function refusal(err: unknown): MediaRefused {
  return /timeout/i.test(String((err as Error | undefined)?.message).slice(0, 200))
    ? new MediaRefused('pixels', `The image takes more than ${RENDER_SECONDS} s to make; upload a smaller one.`)
    : new MediaRefused('corrupt', 'The image is truncated or corrupt; upload it again.');
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
function sizeOf(
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
