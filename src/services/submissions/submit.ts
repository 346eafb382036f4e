// Taking a public submission (docs/decisions.md, "Public submissions"): the event, with a new venue
// and organizer if it brings them, is written by the events' own writer (events/create.ts) as a
// contributor whose writes belong to no account, `pending`; categories are named by ID only, so
// that nothing sent can create a published item, a term or an account. The defences run first
// (defences.ts, proof-of-work.ts); the submission's row, its token, its message and the day's
// counts are written in the same transaction as the event. An image sent with it is made into the
// media library's files before that transaction and stored in it `pending`: shown to editors alone
// until the event is published (services/media.ts readMedia; migration submission_images).
import type { components } from '../../../generated/api.js';
import { forbidden } from '../../auth/permissions.js';
import type { Caller, Principal } from '../../auth/roles.js';
import type { SubmissionSettings } from '../../config/submissions.js';
import { type Driver, statementsOf } from '../../db/driver.js';
import { InvalidInput, SubmissionRefused } from '../../domain/errors.js';
import type { Receipt } from '../../domain/submissions.js';
import { sendsMail } from '../../mail/outbox.js';
import type { ServiceContext } from '../context.js';
import { insertEvent } from '../events/create.js';
import { insertMedia } from '../media.js';
import { type MadeImage, makeImage, type MediaLimits, titleOf, type Upload } from '../../media/images.js';
import type { EventInput } from '../events/input.js';
import { inTransaction } from '../retry.js';
import { newSecret } from '../secrets.js';
import { chargeSubmission, duplicateKey, linksIn, spamReasons, type SubmittedText } from './defences.js';
import { admitted } from './admission.js';
import { checkProof, spendProof } from './proof-of-work.js';
import { queueSubmissionMail } from './mail.js';

type SubmissionInput = components['schemas']['SubmissionInput'];

/** Who writes a submission's rows: a contributor that owns nothing and reads only what is published. */
const SUBMITTER: Principal = { id: 0, login: 'submission', role: 'contributor', ownsNothing: true };

/** The settings of submissions, or a 403 where the service takes none from this caller. */
export function openSubmissions(ctx: ServiceContext): SubmissionSettings {
  return submissionsOpenTo(ctx.submissions, ctx.caller);
}

export function submissionsOpenTo(settings: SubmissionSettings | undefined, caller: Caller): SubmissionSettings {
  if (!settings || settings.mode === 'off') {
    throw new SubmissionRefused('closed', 'This calendar takes no submissions.');
  }
  if (settings.mode === 'accounts' && !caller) throw forbidden(null, 'Sign in to suggest an event.');
  return settings;
}

/** The texts and addresses of a new venue or organizer a submission brings, if any. */
function placeOf(input: SubmissionInput): { texts: string[]; addresses: (string | undefined)[] } {
  const venue = typeof input.venue === 'object' ? input.venue : undefined;
  const organizer = typeof input.organizer === 'object' ? input.organizer : undefined;
  return {
    texts: [...Object.values(venue ?? {}).map(String), organizer?.organizer ?? '', organizer?.phone ?? ''],
    addresses: [venue?.website, organizer?.website, organizer?.email],
  };
}

/** What the defences read of a submission, its image's name and alt text too (both public once approved). */
function textOf(input: SubmissionInput, imageName: string | undefined): SubmittedText {
  const place = placeOf(input);
  return {
    texts: [
      input.title,
      input.description ?? '',
      input.cost ?? '',
      ...(imageName !== undefined ? [imageName, input.image_alt_text ?? ''] : []),
      ...(input.suggested_categories ?? []),
      ...place.texts,
      input.submitter.name,
    ],
    addresses: [input.website, input.virtual_url, ...place.addresses, input.submitter.email].filter(
      (value): value is string => Boolean(value),
    ),
    honeypot: input.nickname?.trim() || undefined,
  };
}

/** The event the submission asks for, as the events' writer takes it. */
function eventOf(input: SubmissionInput): EventInput & Pick<Required<EventInput>, 'title' | 'start_date' | 'end_date'> {
  const { venue, organizer } = input;
  return {
    title: input.title,
    start_date: input.start_date,
    end_date: input.end_date,
    ...(input.all_day !== undefined ? { all_day: input.all_day } : {}),
    ...(input.timezone !== undefined ? { timezone: input.timezone } : {}),
    ...(input.description !== undefined ? { description: input.description } : {}),
    ...(input.cost !== undefined ? { cost: input.cost } : {}),
    ...(input.website !== undefined ? { website: input.website } : {}),
    ...(input.is_virtual !== undefined ? { is_virtual: input.is_virtual } : {}),
    ...(input.virtual_url !== undefined ? { virtual_url: input.virtual_url } : {}),
    ...(input.categories?.length ? { categories: input.categories } : {}),
    ...(venue !== undefined ? { venue: typeof venue === 'object' ? { ...venue, status: 'pending' } : venue } : {}),
    ...(organizer !== undefined
      ? { organizer: typeof organizer === 'object' ? { ...organizer, status: 'pending' } : organizer }
      : {}),
    status: 'pending',
  };
}

/** The image sent with a submission, stored to wait with it (services/media.ts readMedia). */
function storePendingImage(run: Driver, made: { image: MadeImage; name: string }, input: SubmissionInput) {
  return insertMedia(run, made.image, {
    authorId: null,
    title: titleOf(made.name),
    altText: input.image_alt_text?.trim() ?? '',
    caption: '',
    pending: true,
  });
}

/** What a submission sends: its fields, and the image of a form's `image` part. */
export interface Sent {
  input: SubmissionInput;
  image?: Upload;
}

/**
 * Takes a submission, or refuses it: closed (403), a length over the limit (400), no good proof of
 * work (400), an image that is not one or too large (415, 413), a duplicate of today's (409), over
 * the day's limits (429). One the defences suspect of spam is taken alike, kept apart from the
 * queue, and tells nobody by e-mail.
 */
export async function submitEvent(
  ctx: ServiceContext,
  sent: Sent,
  address: string | undefined,
  limits: MediaLimits,
): Promise<Receipt> {
  const settings = openSubmissions(ctx);
  if ((sent.input.description ?? '').length > settings.maxLength) {
    throw new InvalidInput({ description: `At most ${settings.maxLength} characters.` });
  }
  if (sent.image && !sent.image.bytes.length) throw new InvalidInput({ image: 'The image is an empty file.' });
  const imageLimits = { ...limits, maxBytes: Math.min(limits.maxBytes, settings.imageMaxBytes) };
  return admitted(ctx.db, settings.atOnce, () => takeSubmission(ctx, settings, sent, address, imageLimits));
}

async function takeSubmission(
  ctx: ServiceContext,
  settings: SubmissionSettings,
  { input, image }: Sent,
  address: string | undefined,
  limits: MediaLimits,
): Promise<Receipt> {
  const submitted = textOf(input, image?.fileName);
  const links = linksIn([...submitted.texts, ...submitted.addresses.filter((a) => !a.includes('@'))]);
  const spam = spamReasons(submitted, links, settings);
  const proof = await checkProof(ctx.db, settings, input.altcha);
  // Made before the transaction, which holds no lock while libvips works.
  const made = image
    ? { image: await makeImage(image.bytes, image.fileName, limits), name: image.fileName }
    : undefined;
  const token = newSecret();
  const receipt = await inTransaction(ctx, async (tx) => {
    const run = statementsOf(tx);
    // Nothing written here is seen by anonymous readers, so their kept answers stay (migration
    // 20261130000000_submissions).
    await run(`SELECT set_config('calendar.unseen_write', 'yes', true)`, []);
    await spendProof(run, proof);
    const imageId = made && (await storePendingImage(run, made, input));
    const writer: ServiceContext = { ...ctx, caller: { ...SUBMITTER, bringsImage: imageId } };
    const eventId = await insertEvent(tx, writer, { ...eventOf(input), ...(imageId ? { image: imageId } : {}) });
    const [event] = (await run(`SELECT start_utc FROM events WHERE id = $1::int`, [eventId])) as { start_utc: Date }[];
    // What is new: a venue or organizer made for this submission waits with it (a published one
    // found by the same name is not new).
    const [fresh] = (await run(
      `SELECT
        (SELECT v.id FROM event_venues l JOIN venues v ON v.id = l.venue_id
          WHERE l.event_id = $1::int AND v.status = 'pending' AND v.author_id IS NULL LIMIT 1) AS venue,
        (SELECT o.id FROM event_organizers l JOIN organizers o ON o.id = l.organizer_id
          WHERE l.event_id = $1::int AND o.status = 'pending' AND o.author_id IS NULL LIMIT 1) AS organizer`,
      [eventId],
    )) as { venue: number | null; organizer: number | null }[];
    const rows = (await run(
      `INSERT INTO submissions (event_id, state, submitter_name, submitter_email, account_id, token_hash,
        new_venue_id, new_organizer_id, suggested_categories, links, spam_reasons, duplicate_key, new_image_id)
      VALUES ($1::int, $2::text, $3::text, $4::text, $5::int, $6::text, $7::int, $8::int, $9::text[], $10::text[],
        $11::text[], $12::text, $13::int)
      ON CONFLICT (duplicate_key) DO NOTHING RETURNING id`,
      [
        eventId,
        spam.length ? 'spam' : 'pending',
        input.submitter.name.trim(),
        input.submitter.email,
        ctx.caller?.id ?? null,
        token.hash.toString('hex'),
        typeof input.venue === 'object' ? fresh.venue : null,
        typeof input.organizer === 'object' ? fresh.organizer : null,
        (input.suggested_categories ?? []).map((name) => name.trim()),
        links,
        spam,
        duplicateKey(input.title, event.start_utc, new Date()),
        imageId ?? null,
      ],
    )) as { id: number }[];
    if (!rows.length) {
      throw new SubmissionRefused('duplicate', 'This event was submitted today already; the editors have it.');
    }
    const id = rows[0].id;
    // The feed names it, and the venue and organizer made for it, for what they are (migration
    // 20261130000000_submissions; its image is named so by its own trigger, migration
    // submission_images): only editors read such changes.
    await run(
      `UPDATE changes SET action = 'submitted' WHERE xid = pg_current_xact_id() AND (
        (object_type = 'event' AND object_id = $1::int)
        OR (object_type = 'venue' AND object_id = $2::int) OR (object_type = 'organizer' AND object_id = $3::int))`,
      [eventId, fresh.venue, fresh.organizer],
    );
    if (!spam.length && sendsMail(ctx))
      await queueSubmissionMail(run, 'submission-received', id, { token: token.text });
    // The day's counts last (their rows the last locks), so that a refusal above counts for nothing.
    await chargeSubmission(run, { address, email: input.submitter.email }, settings);
    return { id, token: token.text };
  });
  return receipt;
}
