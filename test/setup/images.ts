// Images for the media library's tests, made with sharp: photos of a given size (with EXIF, an
// orientation and GPS when asked), an animated GIF, and the hostile files an upload must refuse.
import sharp from 'sharp';

/** A JPEG of this size, with a gradient so that it does not compress to nothing. */
export async function photo(
  width: number,
  height: number,
  options: { orientation?: number; gps?: boolean; format?: 'jpeg' | 'png' | 'webp' | 'avif' } = {},
): Promise<Buffer> {
  const pixels = Buffer.alloc(width * height * 3);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const i = (y * width + x) * 3;
      pixels[i] = (x * 255) / width;
      pixels[i + 1] = (y * 255) / height;
      pixels[i + 2] = 128;
    }
  }
  let image = sharp(pixels, { raw: { width, height, channels: 3 } });
  if (options.orientation || options.gps) {
    image = image.withMetadata({
      ...(options.orientation ? { orientation: options.orientation } : {}),
      exif: {
        IFD0: { Copyright: 'Test', Artist: 'Someone' },
        ...(options.gps
          ? {
              IFD3: {
                GPSLatitudeRef: 'N',
                GPSLatitude: '48/1 51/1 24/1',
                GPSLongitudeRef: 'E',
                GPSLongitude: '2/1 21/1 3/1',
              },
            }
          : {}),
      },
    });
  }
  return image.toFormat(options.format ?? 'jpeg').toBuffer();
}

/** An animated GIF of `frames` frames of different colours. */
export async function animatedGif(width: number, height: number, frames: number): Promise<Buffer> {
  const colours = ['#e33', '#3e3', '#33e', '#ee3', '#3ee'];
  const images = await Promise.all(
    Array.from({ length: frames }, (_, i) =>
      sharp({ create: { width, height, channels: 4, background: colours[i % colours.length] } })
        .png()
        .toBuffer(),
    ),
  );
  return sharp(images, { join: { animated: true } })
    .gif({ delay: Array.from({ length: frames }, () => 100) })
    .toBuffer();
}

/** A PNG of one colour, many times more pixels than bytes on the wire (over the tests' MEDIA_MAX_PIXELS). */
export const pixelBomb = () =>
  sharp({ create: { width: 4000, height: 4000, channels: 3, background: '#fff' } })
    .png({ compressionLevel: 9 })
    .toBuffer();

export const SVG = Buffer.from(
  '<svg xmlns="http://www.w3.org/2000/svg" width="40" height="40"><script>alert(1)</script><rect width="40" height="40"/></svg>',
);
export const HTML = Buffer.from('<!doctype html><html><body><script>alert(document.cookie)</script></body></html>');

/** A real PNG with a page after its end: an image to a decoder, a page to a browser that sniffs. */
export async function polyglot(): Promise<Buffer> {
  return Buffer.concat([await photo(40, 30, { format: 'png' }), HTML]);
}

/** The multipart form of an upload: the file in `file`, and text fields beside it. */
export async function uploadForm(
  bytes: Buffer,
  fileName: string,
  fields: Record<string, string> = {},
  field = 'file',
): Promise<{ contentType: string; data: Buffer }> {
  const form = new FormData();
  for (const [name, value] of Object.entries(fields)) form.append(name, value);
  form.append(field, new Blob([new Uint8Array(bytes)], { type: 'application/octet-stream' }), fileName);
  const request = new Request('http://localhost/', { method: 'POST', body: form });
  return { contentType: request.headers.get('content-type') ?? '', data: Buffer.from(await request.arrayBuffer()) };
}
