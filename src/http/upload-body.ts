// The body of an upload (POST .../media), in either form WordPress's media route takes: a
// multipart form with the image in its `file` field (and `title`, `alt_text`, `caption` beside it),
// or the image's bytes as the whole body, named by `Content-Disposition: attachment; filename=...`.
// The bytes go to the handler beside the form's fields, under UPLOAD, where the document's
// validator (which reads the fields) does not look; nothing past MEDIA_MAX_MB is read. Nothing at
// all is read until `admit` lets the upload in: the caller signed in, counted as a write, and may
// upload, and this instance not busy making images; otherwise the operation answers (401, 403,
// 429) as for any write, without the megabytes. A public submission with an image (POST
// .../submissions) is read the same way: a form whose `submission` part is the JSON of the
// submission and whose `image` part is the file (services/submissions/submit.ts).
import { Busboy, type BusboyFileStream, type BusboyHeaders } from '@fastify/busboy';
import { parse as parseDisposition } from 'content-disposition';
import express, { type NextFunction, type Request, type Response } from 'express';
import { MediaRefused } from '../domain/errors.js';
import type { Upload } from '../media/images.js';
import { trimEndChar } from '../lib/text.js';
import { MAX_BODY_BYTES } from './body.js';
import { ApiError } from './errors.js';

/** The key of the uploaded file in the request's body. */
export const UPLOAD = Symbol('upload');

/** The body types read as a form of fields alone, not as an upload: the handler then answers "no file". */
const FIELD_TYPES = ['application/json', 'application/*+json', 'application/x-www-form-urlencoded'];

/** What a route takes as an upload. */
export interface UploadForm {
  /** The most bytes of the file. */
  maxBytes: number;
  /** The form's field that holds the file. */
  fileField: string;
  /**
   * The form's field whose text is the JSON of the operation's body, read into it (a 400 when it
   * is missing or not JSON), so that the document's validator reads it as it reads a JSON body
   * (openapi-backend validates one schema per body, the first of its JSON, form types).
   */
  bodyField?: string;
  /** The most text fields, and bytes of each. */
  fields?: number;
  fieldBytes?: number;
  /** Whether the file may also be the whole body, named by Content-Disposition, rather than a form's part. */
  rawBody?: boolean;
  /** The refusal of a file past `maxBytes`. */
  tooLarge?: () => Error;
}

/** The media library's upload: a form's `file`, or the whole body. */
export const MEDIA_UPLOAD = (maxBytes: number): UploadForm => ({ maxBytes, fileField: 'file', rawBody: true });

/**
 * A public submission with an image: the form's `submission` (its JSON, as big as a JSON body may
 * be) and `image` (services/submissions/submit.ts); SUBMISSION_IMAGE_MAX_MB=0 takes none.
 */
export const SUBMISSION_UPLOAD = (imageMaxBytes: number): UploadForm => ({
  maxBytes: imageMaxBytes,
  fileField: 'image',
  bodyField: 'submission',
  fields: 1,
  fieldBytes: MAX_BODY_BYTES,
  tooLarge: () =>
    new MediaRefused(
      'bytes',
      imageMaxBytes
        ? `The image is larger than ${imageMaxBytes} bytes.`
        : 'This calendar takes no image with a submission.',
    ),
});

/**
 * Reads the upload of a POST to `path` (or `path/`, which the router takes too) once `admit`
 * answers true; every other request passes untouched.
 */
export function uploadBody(path: string, form: UploadForm, admit: (req: Request, res: Response) => Promise<boolean>) {
  const { maxBytes } = form;
  const tooLarge = form.tooLarge ?? (() => new MediaRefused('bytes', `The file is larger than ${maxBytes} bytes.`));
  const raw: express.RequestHandler = express.raw({ type: () => true, limit: maxBytes });
  return (req: Request, res: Response, next: NextFunction) => {
    if (
      req.method !== 'POST' ||
      trimEndChar(req.path, '/') !== path ||
      req.is(FIELD_TYPES) ||
      (!form.rawBody && !req.is('multipart/form-data'))
    ) {
      next();
      return;
    }
    admit(req, res).then(
      (admitted) => {
        if (admitted) {
          read(req, res, next);
          return;
        }
        // Left unread: the operation refuses the caller before it looks at a body.
        req.body = {};
        next();
      },
      (err: unknown) => {
        next(err);
      },
    );
  };

  function read(req: Request, res: Response, next: NextFunction) {
    if (req.is('multipart/form-data')) {
      readForm(req, form, tooLarge).then(
        (body) => {
          req.body = body;
          next();
        },
        (err: unknown) => {
          next(err);
        },
      );
      return;
    }
    raw(req, res, (err?: unknown) => {
      if ((err as { type?: string } | undefined)?.type === 'entity.too.large') {
        next(tooLarge());
        return;
      }
      if (err) {
        next(err);
        return;
      }
      const bytes = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
      req.body = bytes.length ? { [UPLOAD]: { bytes, fileName: fileNameOf(req) } satisfies Upload } : {};
      next();
    });
  }
}

/** The form's text fields, and its file under UPLOAD. */
function readForm(req: Request, form: UploadForm, tooLarge: () => Error): Promise<Record<string | symbol, unknown>> {
  const maxFields = form.fields ?? 20;
  const fieldSize = form.fieldBytes ?? 64 * 1024;
  const files = form.bodyField ? 2 : 1;
  const tooLong = (name: string) =>
    new ApiError(413, 'rest_payload_too_large', `The form's \`${name}\` has more than ${fieldSize} bytes.`);
  let fileSeen = false;
  /** JSON fields sent as files, read as text before the form is whole. */
  const pending: Promise<void>[] = [];
  return new Promise((resolve, reject) => {
    const fields: Record<string | symbol, unknown> = {};
    let busboy: ReturnType<typeof Busboy>;
    try {
      busboy = new Busboy({
        headers: req.headers as BusboyHeaders,
        limits: { fileSize: form.maxBytes, files, fields: maxFields, fieldSize, parts: maxFields + files },
      });
    } catch {
      reject(new ApiError(400, 'rest_invalid_body', 'The multipart form has no boundary.'));
      return;
    }
    let failed = false;
    const fail = (err: Error) => {
      if (failed) return;
      failed = true;
      req.unpipe(busboy);
      req.resume();
      reject(err);
    };
    const field = (name: string, value: string) => {
      if (name !== form.bodyField) {
        fields[name] = value;
        return;
      }
      try {
        fields[name] = JSON.parse(value) as unknown;
      } catch {
        fail(new ApiError(400, 'rest_invalid_json', `The form's \`${name}\` is not JSON.`));
      }
    };
    busboy.on('field', (name: string, value: string, truncated: boolean) => {
      if (truncated) fail(tooLong(name));
      else field(name, value);
    });
    const unreadable = () => {
      fail(new ApiError(400, 'rest_invalid_body', 'The multipart form could not be read.'));
    };
    busboy.on('file', (name: string, stream: BusboyFileStream, fileName: string | undefined) => {
      // A part cut short (no closing boundary) is an error of its stream too, which would end the
      // process unheard: every file stream, read or skipped, has a listener.
      stream.on('error', unreadable);
      // A client that sends the JSON as a file of its own (with a file name) sends a field all the same.
      if (name === form.bodyField) {
        pending.push(
          readText(stream, fieldSize).then((text) => {
            if (text === undefined) fail(tooLong(name));
            else field(name, text);
          }),
        );
        return;
      }
      if (name !== form.fileField) {
        stream.resume();
        return;
      }
      if (fileSeen) {
        stream.resume();
        tooMany();
        return;
      }
      fileSeen = true;
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => {
        chunks.push(chunk);
      });
      stream.on('limit', () => {
        fail(tooLarge());
      });
      stream.on('end', () => {
        if (!failed) fields[UPLOAD] = { bytes: Buffer.concat(chunks), fileName: fileName || 'image' } satisfies Upload;
      });
    });
    // Past its limits the form would lose parts silently (the file among them): refused instead.
    const tooMany = () => {
      fail(
        new ApiError(
          413,
          'rest_payload_too_large',
          `The form has too many parts: one file and at most ${maxFields} fields.`,
        ),
      );
    };
    busboy.on('partsLimit', tooMany);
    busboy.on('fieldsLimit', tooMany);
    busboy.on('filesLimit', tooMany);
    busboy.on('error', unreadable);
    busboy.on('finish', () => {
      void Promise.all(pending).then(() => {
        if (failed) return;
        if (!form.bodyField) resolve(fields);
        else if (!isObject(fields[form.bodyField])) {
          reject(new ApiError(400, 'rest_invalid_body', `The form's \`${form.bodyField}\` must be a JSON object.`));
        } else {
          resolve({ ...(fields[form.bodyField] as object), [UPLOAD]: fields[UPLOAD] });
        }
      });
    });
    req.on('error', () => {
      fail(new ApiError(400, 'rest_invalid_body', 'The body could not be read.'));
    });
    req.pipe(busboy);
  });
}

const isObject = (value: unknown): value is object =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** A part's text, or undefined past `maxBytes` (the rest is read and dropped). */
function readText(stream: BusboyFileStream, maxBytes: number): Promise<string | undefined> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let bytes = 0;
    stream.on('data', (chunk: Buffer) => {
      bytes += chunk.length;
      if (bytes <= maxBytes) chunks.push(chunk);
    });
    stream.on('end', () => {
      resolve(bytes > maxBytes ? undefined : Buffer.concat(chunks).toString('utf8'));
    });
  });
}

/** The file name of `Content-Disposition`, if it is there and well formed. */
function fileNameOf(req: Request): string {
  const header = req.headers['content-disposition'];
  if (!header) return 'image';
  try {
    return parseDisposition(header).parameters.filename || 'image';
  } catch {
    return 'image';
  }
}
