// The files of the media library, at the stable URLs items' `image` objects name:
// /uploads/<id>/<name>. A file never changes under its name (an image's files are made once, at
// upload), so each is cached for a year as immutable, with its SHA-256 as a strong ETag; Range
// serves part of a large original. Every response says what it is (nosniff) and may run nothing
// (a sandboxing Content-Security-Policy), whatever a browser would make of the bytes. An image that
// waits with its submission is served to editors alone, never kept by anyone (services/media.ts
// readMedia): once published its files are the same, under the same names, for everyone.
import { type NextFunction, type Request, type Response, Router } from 'express';
import { Prisma } from '../../generated/prisma/client.js';
import type { Caller } from '../auth/roles.js';
import type { PrismaClient } from '../db/client.js';
import { selectRows } from '../db/driver.js';
import { noneMatch } from '../domain/entity-tags.js';
import { mayReadPending } from '../services/media.js';
import { noRoute } from './errors.js';

interface FileRow {
  mime_type: string;
  etag: string;
  /** A Buffer from pg, a Uint8Array from PGlite. */
  bytes: Buffer | Uint8Array;
  pending: boolean;
}

/** Who sends a request, from its credentials (app.ts `identify`); refused credentials are no one's. */
type Identify = (req: Request, res: Response) => Promise<Caller>;

const MAX_ID = 2147483647;

export function mediaFiles(db: PrismaClient, identify: Identify) {
  const router = Router();
  // Matched here rather than by a route pattern: Express answers a name that does not decode
  // (`%ZZ`) with an error of its own before any handler runs.
  router.get(/^\/uploads\/[^/]+\/[^/]+$/, (req: Request, res: Response, next: NextFunction) => {
    sendFile(db, identify, req, res).catch(next);
  });
  return router;
}

async function sendFile(db: PrismaClient, identify: Identify, req: Request, res: Response): Promise<void> {
  const [, , idText, encoded] = req.path.split('/');
  const id = Number(idText);
  const name = decoded(encoded);
  // eslint-disable-next-line no-control-regex -- a name with a control character names no file
  if (!/^\d{1,10}$/.test(idText) || id > MAX_ID || !name || name.length > 255 || /[\u0000-\u001f]/.test(name)) {
    throw noRoute();
  }
  const file = await fileFor(db, id, name, await callerOf(identify, req, res));
  const bytes = Buffer.isBuffer(file.bytes)
    ? file.bytes
    : Buffer.from(file.bytes.buffer, file.bytes.byteOffset, file.bytes.byteLength);
  const etag = `"${file.etag}"`;
  res.set({
    'Content-Type': file.mime_type,
    ETag: etag,
    'X-Content-Type-Options': 'nosniff',
    'Content-Security-Policy': "default-src 'none'; sandbox",
    // Images are shown by other sites too (a WordPress front end, an app): helmet's same-origin
    // default would have browsers refuse them there.
    'Cross-Origin-Resource-Policy': 'cross-origin',
    'Accept-Ranges': 'bytes',
  });
  // Only what names the file's bytes (a 200, 206 or 304) is kept for a year, never a 416.
  const immutable = () =>
    res.set('Cache-Control', file.pending ? 'private, no-store' : 'public, max-age=31536000, immutable');
  // Set here, as a HEAD ends without the bytes that would give it.
  const length = (n: number) => res.set('Content-Length', String(n));
  if (!noneMatch(req.headers['if-none-match'], etag)) {
    immutable();
    res.status(304).end();
    return;
  }
  const part = wantedRange(req, bytes.length, etag);
  if (part === 'unsatisfiable') {
    res.status(416).set('Content-Range', `bytes */${bytes.length}`).end();
    return;
  }
  immutable();
  if (part) {
    res.status(206).set('Content-Range', `bytes ${part.start}-${part.end}/${bytes.length}`);
    length(part.end - part.start + 1);
    res.end(req.method === 'HEAD' ? undefined : bytes.subarray(part.start, part.end + 1));
    return;
  }
  length(bytes.length);
  res.status(200).end(req.method === 'HEAD' ? undefined : bytes);
}

/**
 * Credentials are checked whenever they are sent, whatever the file, so that a file that waits and
 * one that is not there are answered alike (the same headers, the same work); a request without
 * them, as browsers send for images, costs nothing more.
 */
const callerOf = (identify: Identify, req: Request, res: Response): Promise<Caller> =>
  req.headers.authorization ? identify(req, res).catch(() => null) : Promise.resolve(null);

/** The file, if it is there and the caller's to see: one that waits with its submission is editors' alone. */
async function fileFor(db: PrismaClient, id: number, name: string, caller: Caller): Promise<FileRow> {
  const [file] = await selectRows<FileRow | undefined>(
    db,
    Prisma.sql`SELECT f.mime_type, f.etag, f.bytes, m.pending FROM media_files f JOIN media m ON m.id = f.media_id
      WHERE f.media_id = ${id}::int AND f.name = ${name}::text`,
    { prepare: true },
  );
  if (!file || (file.pending && !mayReadPending(caller))) throw noRoute();
  return file;
}

function decoded(segment: string | undefined): string | undefined {
  try {
    return segment === undefined ? undefined : decodeURIComponent(segment);
  } catch {
    return undefined;
  }
}

/**
 * The one range a Range header asks for (range-parser, through Express's req.range), or none: no
 * Range, one Express cannot read, If-Range naming another version, or several ranges, which are
 * answered with the whole file, as RFC 9110 allows.
 */
function wantedRange(
  req: Request,
  size: number,
  etag: string,
): { start: number; end: number } | 'unsatisfiable' | undefined {
  if (!req.headers.range) return undefined;
  const ifRange = req.headers['if-range'];
  if (ifRange !== undefined && ifRange !== etag) return undefined;
  const ranges = req.range(size, { combine: true });
  if (ranges === -1) return 'unsatisfiable';
  if (ranges === undefined || ranges === -2 || ranges.type !== 'bytes' || ranges.length !== 1) return undefined;
  return ranges[0];
}
