// The media library (docs/decisions.md, "Images"): uploads stored with their files in one
// transaction, the list, changes to an item's texts, and deletion, refused while items show it.
import { createHash } from 'node:crypto';
import { Prisma } from '../../generated/prisma/client.js';
import { canChangeMedia, canRead, forbidden } from '../auth/permissions.js';
import { assertMay, may } from '../auth/capabilities.js';
import type { Caller } from '../auth/roles.js';
import type { PrismaClient, Tx } from '../db/client.js';
import { type Driver, transactionDriverOf } from '../db/driver.js';
import { isForeignKeyViolation } from '../db/errors.js';
import { InvalidInput, MediaInUse, MediaRefused, NotFound } from '../domain/errors.js';
import type { PostStatus } from '../domain/posts.js';
import { claimVersion } from './post-writes.js';
import type { ImageMeta, MediaRecord } from '../domain/records.js';
import { type MadeImage, makeImage, type MediaLimits, titleOf, type Upload } from '../media/images.js';
import { containing } from '../lib/like.js';
import type { ServiceContext } from './context.js';
import { retryOnConflict } from './retry.js';

export interface MediaTexts {
  title?: string;
  alt_text?: string;
  caption?: string;
}

/** An upload made into files and stored, with its texts; the title defaults to the file's name. */
export async function createMedia(
  ctx: ServiceContext,
  upload: Upload | undefined,
  texts: MediaTexts,
  limits: MediaLimits,
): Promise<MediaRecord> {
  assertMay(ctx.caller, 'upload media');
  if (!upload) {
    throw new MediaRefused('no-file', 'No file was sent: send the image as the form field `file`, or as the body.');
  }
  const made = await makeImage(upload.bytes, upload.fileName, limits);
  return storeMedia(ctx, made, {
    authorId: ctx.caller?.id ?? null,
    title: texts.title ?? titleOf(upload.fileName),
    altText: texts.alt_text ?? '',
    caption: texts.caption ?? '',
  });
}

/**
 * Stores an image and its files in one transaction: a failure leaves nothing. An image brought from `sourceUrl` is stored once:
 * two imports that bring it at once meet on its unique index, and the second one's retry finds the
 * first one's (import/images.ts).
 */
export async function storeMedia(
  { db, caller }: ServiceContext,
  made: MadeImage,
  texts: StoredTexts,
): Promise<MediaRecord> {
  assertMay(caller, 'upload media');
  const transaction = transactionDriverOf(db);
  if (!transaction) throw new Error('The database has no transaction driver');
  const id = await transaction((run) => insertMedia(run, made, texts));
  return getMedia(db, id);
}

export interface StoredTexts {
  authorId: number | null;
  title: string;
  altText: string;
  caption: string;
  sourceUrl?: string;
  /** Sent with a public submission: shown to editors alone until an item that shows it is (services/submissions/submit.ts). */
  pending?: boolean;
}

/**
 * Writes an image's row and files in `run`'s transaction and answers its ID, taken first, as the
 * files' paths (in `meta`) hold it.
 */
export async function insertMedia(run: Driver, made: MadeImage, texts: StoredTexts): Promise<number> {
  const [{ id }] = (await run(`SELECT nextval('post_id_seq')::int AS id`, [])) as { id: number }[];
  const [full, ...sizes] = made.files;
  const path = (name: string) => `${id}/${name}`;
  const meta: ImageMeta = {
    id,
    file: path(full.name),
    extension: made.extension,
    width: full.width,
    height: full.height,
    filesize: full.bytes.length,
    sizes: Object.fromEntries(
      sizes.map((f) => [
        f.size,
        { width: f.width, height: f.height, 'mime-type': f.mimeType, filesize: f.bytes.length, file: path(f.name) },
      ]),
    ),
  };
  await run(
    `INSERT INTO media (id, author_id, slug, title, alt_text, caption, mime_type, meta, source_url, pending)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8::jsonb, $9, $10)`,
    [
      id,
      texts.authorId,
      made.stem,
      texts.title,
      texts.altText,
      texts.caption,
      made.mimeType,
      JSON.stringify(meta),
      texts.sourceUrl ?? null,
      texts.pending ?? false,
    ],
  );
  for (const f of new Map(made.files.map((made) => [made.name, made])).values()) {
    // As base64 text: Prisma's PGlite adapter passes no bytea parameter, and a submission's image
    // is written in its Prisma transaction (services/submissions/submit.ts).
    await run(
      `INSERT INTO media_files (media_id, name, mime_type, bytes, etag) VALUES ($1, $2, $3, decode($4, 'base64'), $5)`,
      [id, f.name, f.mimeType, f.bytes.toString('base64'), createHash('sha256').update(f.bytes).digest('hex')],
    );
  }
  return id;
}

export interface MediaFilters {
  search?: string;
  author?: number;
  /** Only images no event, venue or organizer shows (what housekeeping reports). */
  unreferenced?: boolean;
}

/**
 * A page of the library, newest first (as WordPress lists attachments). Every image is public; which
 * are shown by nothing is for editors, who may read every item that could show one (an image a
 * draft uses is not unreferenced, which would tell others the draft uses it).
 */
export async function listMedia(
  ctx: Pick<ServiceContext, 'db' | 'caller'>,
  filters: MediaFilters,
  page: { take: number; skip: number },
) {
  const { db } = ctx;
  if (filters.unreferenced && !may(ctx.caller, 'edit others')) {
    throw forbidden(ctx.caller, 'Sorry, only editors may ask which images nothing shows.');
  }
  // The library is what may be shown: an image waiting with its submission is read through it.
  const where: Prisma.MediaWhereInput = {
    pending: false,
    ...(filters.author !== undefined ? { authorId: filters.author } : {}),
    ...(filters.search
      ? {
          OR: ['title', 'altText', 'caption', 'slug'].map((field) => ({ [field]: containing(filters.search ?? '') })),
        }
      : {}),
    ...(filters.unreferenced ? UNREFERENCED : {}),
  };
  const [total, items] = await Promise.all([
    db.media.count({ where }),
    db.media.findMany({ where, orderBy: [{ publishedAt: 'desc' }, { id: 'desc' }], ...page }),
  ]);
  return { total, items };
}

const UNREFERENCED: Prisma.MediaWhereInput = { events: { none: {} }, venues: { none: {} }, organizers: { none: {} } };

export async function getMedia(db: PrismaClient, id: number): Promise<MediaRecord> {
  const row = await db.media.findUnique({ where: { id } });
  if (!row) throw new NotFound('media', id);
  return row;
}

/** An image as `caller` may read it: one waiting with its submission is there for editors alone. */
export async function readMedia(ctx: Pick<ServiceContext, 'db' | 'caller'>, id: number): Promise<MediaRecord> {
  const row = await getMedia(ctx.db, id);
  if (row.pending && !mayReadPending(ctx.caller)) throw new NotFound('media', id);
  return row;
}

/** Who may see, and name in an item, an image that waits with its submission: those who decide on it. */
export const mayReadPending = (caller: Caller) => may(caller, 'moderate submissions');

/**
 * Changes the texts of an image (its files never change). The row is locked first, so that If-Match
 * is checked against the version the write replaces, and two writers of it go one after the other.
 */
export async function updateMedia(ctx: ServiceContext, id: number, texts: MediaTexts): Promise<MediaRecord> {
  return retryOnConflict(() =>
    ctx.db.$transaction(async (tx) => {
      const current = await lockMedia(tx, ctx, id);
      return tx.media.update({
        where: { id },
        data: {
          ...(texts.title !== undefined ? { title: texts.title.trim() } : {}),
          ...(texts.alt_text !== undefined ? { altText: texts.alt_text.trim() } : {}),
          ...(texts.caption !== undefined ? { caption: texts.caption.trim() } : {}),
          modifiedAt: new Date(Math.max(Date.now(), current.modifiedAt.getTime() + 1)),
        },
      });
    }),
  );
}

/**
 * Deletes an image for good (an image has no trash, as in WordPress), its files with it. Refused
 * while an item shows it. The lock keeps writes that would name the image waiting (their foreign
 * key check takes a key share lock on its row) until this ends; one that committed before the lock
 * is seen by the check below; and the foreign key (RESTRICT) refuses the delete whatever slipped
 * between.
 */
export async function deleteMedia(ctx: ServiceContext, id: number): Promise<MediaRecord> {
  try {
    return await ctx.db.$transaction(async (tx) => {
      const current = await lockMedia(tx, ctx, id);
      const usedBy = await usersOf(tx, id);
      if (usedBy.length) throw new MediaInUse(id, readableTo(ctx, usedBy));
      await tx.media.delete({ where: { id } });
      return current;
    });
  } catch (err) {
    if (isForeignKeyViolation(err)) throw new MediaInUse(id, readableTo(ctx, await usersOf(ctx.db, id)));
    throw err;
  }
}

async function lockMedia(tx: Tx, ctx: ServiceContext, id: number): Promise<MediaRecord> {
  await tx.$queryRaw`SELECT id FROM media WHERE id = ${id}::int FOR UPDATE`;
  const current = await tx.media.findUnique({ where: { id } });
  if (!current || (current.pending && !mayReadPending(ctx.caller))) throw new NotFound('media', id);
  if (!canChangeMedia(ctx.caller, current)) throw forbidden(ctx.caller);
  await claimVersion(tx.media, id, ctx.precondition);
  return current;
}

/** The items that show the image, trashed ones included (they come back with it). */
async function usersOf(db: PrismaClient | Tx, id: number) {
  return db.$queryRaw<User[]>`
    SELECT 'event' AS type, id, status::text AS status, author_id AS "authorId" FROM events WHERE image_id = ${id}::int
    UNION ALL SELECT 'venue', id, status::text, author_id FROM venues WHERE image_id = ${id}::int
    UNION ALL SELECT 'organizer', id, status::text, author_id FROM organizers WHERE image_id = ${id}::int
    ORDER BY 1, 2 LIMIT 100`;
}

interface User {
  type: 'event' | 'venue' | 'organizer';
  id: number;
  status: PostStatus;
  authorId: number | null;
}

/** The items a refusal names: those the caller may read (the others' IDs are not its to learn). */
const readableTo = (ctx: ServiceContext, users: User[]) =>
  users.filter((user) => canRead(ctx.caller, user)).map(({ type, id }) => ({ type, id }));

/**
 * The columns of an `image` input: a URL is kept as given; an ID names an uploaded image, which
 * must exist (a 400 otherwise) and, while it waits with its submission, be named by an editor or
 * by that submission's writer (`Principal.bringsImage`): the first published item to show it
 * publishes it (migration submission_images); an empty value or 0 removes the image.
 */
export async function imageColumns(
  image: string | number | undefined,
  on: PrismaClient | Tx | Driver,
  caller: Caller,
): Promise<{ image: string | null; imageId: number | null } | undefined> {
  if (image === undefined) return undefined;
  if (image === '' || image === 0 || image === '0') return { image: null, imageId: null };
  if (typeof image === 'number' || /^\d+$/.test(image)) {
    const id = Number(image);
    const found = id <= 2147483647 ? await pendingOf(id, on) : undefined;
    if (found === undefined || (found && !mayReadPending(caller) && caller?.bringsImage !== id))
      throw new InvalidInput({ image: `There is no uploaded image with ID ${image}.` });
    return { image: null, imageId: id };
  }
  if (!/^https?:\/\/[^\s]+$/i.test(image)) {
    throw new InvalidInput({ image: 'image must be an http(s) URL or the ID of an uploaded image.' });
  }
  return { image, imageId: null };
}

/**
 * Whether the image waits with its submission; undefined when there is none. Read in the write's
 * own transaction (on PGlite's one connection, a read beside it would wait for it).
 */
async function pendingOf(id: number, on: PrismaClient | Tx | Driver): Promise<boolean | undefined> {
  const rows =
    typeof on === 'function'
      ? ((await on('SELECT pending FROM media WHERE id = $1::int', [id])) as { pending: boolean }[])
      : await on.media.findMany({ where: { id }, select: { pending: true } });
  return rows.at(0)?.pending;
}

/** The image brought from this URL by an import before (media.source_url), if any (import/images.ts). */
export async function mediaFromSource(db: PrismaClient, url: string): Promise<number | undefined> {
  return (await db.media.findUnique({ where: { sourceUrl: url }, select: { id: true } }))?.id;
}
