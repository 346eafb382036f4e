// The body of an upload (POST .../media), in either form WordPress's media route takes: a
// multipart form with the image in its `file` field (and `title`, `alt_text`, `caption` beside it),
// or the image's bytes as the whole body, named by `Content-Disposition: attachment; filename=...`.
// The bytes go to the handler beside the form's fields, under UPLOAD, where the document's
// validator (which reads the fields) does not look; nothing past MEDIA_MAX_MB is read. Nothing at
// all is read until `admit` lets the upload in: the caller signed in, counted as a write, and may
// upload, and this instance not busy making images; otherwise the operation answers (401, 403,
// 429) as for any write, without the megabytes.
import { Busboy, type BusboyFileStream, type BusboyHeaders } from '@fastify/busboy';
import { parse as parseDisposition } from 'content-disposition';
import express, { type NextFunction, type Request, type Response } from 'express';
import { MediaRefused } from '../domain/errors.js';
import type { Upload } from '../media/images.js';
import { trimEndChar } from '../lib/text.js';
import { ApiError } from './errors.js';

/** The key of the uploaded file in the request's body. */
export const UPLOAD = Symbol('upload');

/** The body types read as a form of fields alone, not as an upload: the handler then answers "no file". */
const FIELD_TYPES = ['application/json', 'application/*+json', 'application/x-www-form-urlencoded'];

/**
 * Reads the upload of a POST to `path` (or `path/`, which the router takes too) once `admit`
 * answers true; every other request passes untouched.
 */
export function uploadBody(path: string, maxBytes: number, admit: (req: Request, res: Response) => Promise<boolean>) {
  const tooLarge = () => new MediaRefused('bytes', `The file is larger than ${maxBytes} bytes.`);
  const raw: express.RequestHandler = express.raw({ type: () => true, limit: maxBytes });
  return (req: Request, res: Response, next: NextFunction) => {
    if (req.method !== 'POST' || trimEndChar(req.path, '/') !== path || req.is(FIELD_TYPES)) {
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
      readForm(req, maxBytes, tooLarge).then(
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

/** The form's text fields, and its first `file` under UPLOAD. */
function readForm(
  req: Request,
  maxBytes: number,
  tooLarge: () => MediaRefused,
): Promise<Record<string | symbol, unknown>> {
  return new Promise((resolve, reject) => {
    const fields: Record<string | symbol, unknown> = {};
    let busboy: ReturnType<typeof Busboy>;
    try {
      busboy = new Busboy({
        headers: req.headers as BusboyHeaders,
        limits: { fileSize: maxBytes, files: 1, fields: 20, fieldSize: 64 * 1024, parts: 21 },
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
    busboy.on('field', (name: string, value: string) => {
      fields[name] = value;
    });
    const unreadable = () => {
      fail(new ApiError(400, 'rest_invalid_body', 'The multipart form could not be read.'));
    };
    busboy.on('file', (name: string, stream: BusboyFileStream, fileName: string | undefined) => {
      // A part cut short (no closing boundary) is an error of its stream too, which would end the
      // process unheard: every file stream, read or skipped, has a listener.
      stream.on('error', unreadable);
      if (name !== 'file') {
        stream.resume();
        return;
      }
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
      fail(new ApiError(413, 'rest_payload_too_large', 'The form has too many parts: one file and at most 20 fields.'));
    };
    busboy.on('partsLimit', tooMany);
    busboy.on('fieldsLimit', tooMany);
    busboy.on('filesLimit', tooMany);
    busboy.on('error', unreadable);
    busboy.on('finish', () => {
      if (!failed) resolve(fields);
    });
    req.on('error', () => {
      fail(new ApiError(400, 'rest_invalid_body', 'The body could not be read.'));
    });
    req.pipe(busboy);
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
