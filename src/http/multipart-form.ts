// A `multipart/form-data` body read by busboy (@fastify/busboy) within limits: its text fields (a
// repeated one as a list, as the categories' checkboxes of the submission form are), and one file
// of a named field. Parts past the limits are refused rather than lost silently; a file past its
// bytes is refused, or marked and left unread where the caller would rather say so beside the
// other fields (pages/submit.ts). Text sent as a file part of one of `textFiles` (a client that
// sends a JSON part with a file name) is read as a field.
import { Busboy, type BusboyFileStream, type BusboyHeaders } from '@fastify/busboy';
import type { Request } from 'express';
import type { Upload } from '../media/images.js';
import { ApiError } from './errors.js';

export interface MultipartLimits {
  /** The form's field that holds the file; other files are skipped. */
  fileField: string;
  /** The most bytes of the file. */
  fileBytes: number;
  /** What a file past `fileBytes` does: refuse the form (the error of `tooLarge`), or mark it. */
  fileTooLarge: { refuse: () => Error } | 'mark';
  /** The most text fields, bytes of each, and bytes of them all (none: fields × bytes of each). */
  fields: number;
  fieldBytes: number;
  totalFieldBytes?: number;
  /** Fields whose text may come as a file part of its own. */
  textFiles?: string[];
}

export interface MultipartForm {
  fields: Record<string, string | string[]>;
  file?: Upload;
  /** A file was sent past `fileBytes` (with `fileTooLarge: 'mark'`): not read. */
  fileTooLarge?: true;
}

export function readMultipart(req: Request, limits: MultipartLimits): Promise<MultipartForm> {
  const textFiles = limits.textFiles ?? [];
  const files = 1 + textFiles.length;
  const tooLong = (name: string) =>
    new ApiError(413, 'rest_payload_too_large', `The form's \`${name}\` has more than ${limits.fieldBytes} bytes.`);
  const totalLimit = limits.totalFieldBytes ?? limits.fields * limits.fieldBytes;
  let total = 0;
  const tooMany = () =>
    new ApiError(
      413,
      'rest_payload_too_large',
      `The form has too many parts: one file and at most ${limits.fields} fields.`,
    );
  return new Promise((resolve, reject) => {
    const read: MultipartForm = { fields: {} };
    /** Text fields sent as files, read before the form is whole. */
    const pending: Promise<void>[] = [];
    let fileSeen = false;
    let busboy: ReturnType<typeof Busboy>;
    try {
      busboy = new Busboy({
        headers: req.headers as BusboyHeaders,
        limits: {
          // Every file part's, the text sent as one too: the image's own limit is readFile's.
          fileSize: Math.max(limits.fileBytes, textFiles.length ? limits.fieldBytes : 0),
          files,
          fields: limits.fields,
          fieldSize: limits.fieldBytes,
          parts: limits.fields + files,
        },
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
    const unreadable = () => {
      fail(new ApiError(400, 'rest_invalid_body', 'The multipart form could not be read.'));
    };
    const field = (name: string, value: string) => {
      total += Buffer.byteLength(value);
      if (total > totalLimit) {
        fail(new ApiError(413, 'rest_payload_too_large', `The form's fields have more than ${totalLimit} bytes.`));
        return;
      }
      read.fields[name] = Object.hasOwn(read.fields, name) ? [read.fields[name], value].flat() : value;
    };
    // busboy's third argument says whether the field's *name* was cut; its fourth, the value.
    busboy.on('field', (name: string, value: string, _nameTruncated: boolean, valueTruncated: boolean) => {
      if (valueTruncated) fail(tooLong(name));
      else field(name, value);
    });
    busboy.on('file', (name: string, stream: BusboyFileStream, fileName: string | undefined) => {
      // A part cut short (no closing boundary) is an error of its stream too, which would end the
      // process unheard: every file stream, read or skipped, has a listener.
      stream.on('error', unreadable);
      if (textFiles.includes(name)) {
        pending.push(
          readText(stream, limits.fieldBytes).then((text) => {
            if (text === undefined) fail(tooLong(name));
            else field(name, text);
          }),
        );
      } else if (name !== limits.fileField) {
        stream.resume();
      } else if (fileSeen) {
        stream.resume();
        fail(tooMany());
      } else {
        fileSeen = true;
        pending.push(
          readFile(stream, fileName, limits, fail).then((file) => {
            if (file === 'too large') read.fileTooLarge = true;
            else if (file) read.file = file;
          }),
        );
      }
    });
    busboy.on('partsLimit', () => {
      fail(tooMany());
    });
    busboy.on('fieldsLimit', () => {
      fail(tooMany());
    });
    busboy.on('filesLimit', () => {
      fail(tooMany());
    });
    busboy.on('error', unreadable);
    busboy.on('finish', () => {
      void Promise.all(pending).then(() => {
        if (!failed) resolve(read);
      });
    });
    req.on('error', () => {
      fail(new ApiError(400, 'rest_invalid_body', 'The body could not be read.'));
    });
    req.pipe(busboy);
  });
}

/** The file's bytes; past the limit a refusal (the form fails) or, to mark it, 'too large' with the rest drained. */
function readFile(
  stream: BusboyFileStream,
  fileName: string | undefined,
  limits: MultipartLimits,
  fail: (err: Error) => void,
): Promise<Upload | 'too large' | undefined> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let bytes = 0;
    let over = false;
    const tooLarge = () => {
      if (over) return;
      over = true;
      chunks.length = 0;
      if (limits.fileTooLarge !== 'mark') fail(limits.fileTooLarge.refuse());
    };
    stream.on('data', (chunk: Buffer) => {
      bytes += chunk.length;
      if (bytes > limits.fileBytes) tooLarge();
      else chunks.push(chunk);
    });
    stream.on('limit', tooLarge);
    stream.on('end', () => {
      if (over) resolve(limits.fileTooLarge === 'mark' ? 'too large' : undefined);
      else resolve({ bytes: Buffer.concat(chunks), fileName: fileName || 'image' });
    });
  });
}

/** A part's text, or undefined past `maxBytes` (the rest is read and dropped). */
function readText(stream: BusboyFileStream, maxBytes: number): Promise<string | undefined> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let bytes = 0;
    stream.on('data', (chunk: Buffer) => {
      bytes += chunk.length;
      if (bytes <= maxBytes) chunks.push(chunk);
    });
    // Cut by busboy at its file limit, which may be this one: more was sent than is kept.
    stream.on('limit', () => {
      bytes = maxBytes + 1;
    });
    stream.on('end', () => {
      resolve(bytes > maxBytes ? undefined : Buffer.concat(chunks).toString('utf8'));
    });
  });
}
