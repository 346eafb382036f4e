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
import { parse as parseDisposition } from 'content-disposition';
import express, { type NextFunction, type Request, type Response } from 'express';
import { MediaRefused } from '../domain/errors.js';
import type { Upload } from '../media/images.js';
import { trimEndChar } from '../lib/text.js';
import { MAX_BODY_BYTES, nestedTooDeep, tooDeep } from './body.js';
import { ApiError } from './errors.js';
import { readMultipart } from './multipart-form.js';

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
  // A few, so that a part the document does not name is said as such rather than as one too many.
  fields: 4,
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

/** The form's text fields, and its file under UPLOAD; with `bodyField`, what its JSON says beside the file. */
async function readForm(
  req: Request,
  form: UploadForm,
  tooLarge: () => Error,
): Promise<Record<string | symbol, unknown>> {
  const { fields, file } = await readMultipart(req, {
    fileField: form.fileField,
    fileBytes: form.maxBytes,
    fileTooLarge: { refuse: tooLarge },
    fields: form.fields ?? 20,
    fieldBytes: form.fieldBytes ?? 64 * 1024,
    textFiles: form.bodyField ? [form.bodyField] : [],
  });
  if (!form.bodyField) return { ...fields, [UPLOAD]: file };
  refuseOtherParts(fields, form.bodyField, form.fileField);
  const text = fields[form.bodyField];
  // As a JSON body is (http/body.ts): deeper nesting would overflow the walks over it.
  if (typeof text === 'string' && nestedTooDeep(Buffer.from(text))) throw tooDeep(`The form's \`${form.bodyField}\``);
  let body: unknown;
  try {
    body = typeof text === 'string' ? JSON.parse(text) : undefined;
  } catch {
    throw new ApiError(400, 'rest_invalid_json', `The form's \`${form.bodyField}\` is not JSON.`);
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw new ApiError(400, 'rest_invalid_body', `The form's \`${form.bodyField}\` must be one JSON object.`);
  }
  return { ...body, [UPLOAD]: file };
}

/** A form of one JSON part and a file has nothing else: a part it does not name is a mistake said, not dropped. */
function refuseOtherParts(fields: Record<string, unknown>, bodyField: string, fileField: string) {
  const others = Object.keys(fields).filter((name) => name !== bodyField);
  if (others.includes(fileField)) {
    throw new ApiError(400, 'rest_invalid_body', `The form's \`${fileField}\` must be a file part (with a file name).`);
  }
  if (others.length) {
    const named = others.slice(0, 3).map((name) => `\`${name.slice(0, 50)}\``);
    throw new ApiError(400, 'rest_invalid_body', `The form has parts the document does not name: ${named.join(', ')}.`);
  }
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
