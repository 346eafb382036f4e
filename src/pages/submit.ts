// The submission form (`/submit/`, or `/fr/submit/` for a language of the path rather than the
// browser's): a page anyone can use to suggest an event, where SUBMISSIONS lets them. Its POST is
// sent on to the API (POST <REST base>/submissions) over an in-memory connection
// (http/in-memory-exchange.ts), so that the document's validation, the handler, the defences and
// the rate limits are the API's own, with no second set of rules; the API's refusals come back to
// the fields that caused them (submit-input.ts). `/submit/status/` shows where a submission stands,
// by the token its receipt gave. The pages may be framed by this site and the origins in
// SUBMISSION_FRAME_ANCESTORS (an iframe on a partner site); every other page by none.
import { readFileSync } from 'node:fs';
import type { RequestListener } from 'node:http';
import { createRequire } from 'node:module';
import path from 'node:path';
import { type NextFunction, type Request, type Response, Router } from 'express';
import type { Config } from '../config.js';
import { CATEGORY, ORGANIZER, VENUE } from '../domain/records.js';
import { NotFound } from '../domain/errors.js';
import type { ErrorBody } from '../http/errors.js';
import { MAX_BODY_BYTES } from '../http/body.js';
import { exchangeInMemory } from '../http/in-memory-exchange.js';
import { readMultipart } from '../http/multipart-form.js';
import type { Upload } from '../media/images.js';
import { entityTag } from '../http/conditional.js';
import { sendReply } from '../http/reply.js';
import { NAMESPACE, requestUrls } from '../http/urls.js';
import { eventPermalink } from '../serializers/events.js';
import { type ServiceContext, serviceContext } from '../services/context.js';
import { submissionStatus } from '../services/submissions/status.js';
import { listTerms } from '../services/terms.js';
import { listVenuesOrOrganizers } from '../services/venues-and-organizers.js';
import { pageLanguage, sendPage } from './send.js';
import { type FormChoices, formPage } from './submit-form.js';
import { closedPage, receivedPage, statusPage } from './submit-pages.js';
import { type FormValues, formValues, refusalOf, submissionOf } from './submit-input.js';
import { PAGE_LANGUAGES, type PageLanguage } from './texts.js';
import { notFoundPage } from './views.js';

/** The ALTCHA widget (the `altcha` package) with its translations, one file that needs no other. */
const widget = (() => {
  const require = createRequire(import.meta.url);
  // The package's entry is dist/main/altcha.umd.cjs: its root is two folders up.
  const root = path.resolve(path.dirname(require.resolve('altcha')), '../..');
  const { version } = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as { version: string };
  let bytes: Buffer | undefined;
  let etag: string | undefined;
  const read = () => (bytes ??= readFileSync(path.join(root, 'dist/main/altcha.i18n.min.js')));
  return {
    // The version in the name: the file is kept a year, and a new version is a new name.
    name: `altcha-${version}.js`,
    bytes: read,
    etag: () => (etag ??= entityTag(read())),
  };
})();

/** How many published venues and organizers the form's lists offer (the newest); others are typed as new. */
const LISTED = 200;
/** How many categories the form's checkboxes offer (by name). */
const LISTED_CATEGORIES = 100;

const ID = /^[1-9][0-9]{0,9}$/;
/** The largest ID a row has (int4): a larger one names nothing, and must not reach a statement. */
const MAX_ID = 2_147_483_647;
/** A secret as newSecret writes it (services/secrets.ts): base64url. */
const SECRET = /^[A-Za-z0-9_-]{1,100}$/;

/** The outer request's headers the API's request keeps: the host and proxy headers its links and address come from, the language, and credentials (SUBMISSIONS=accounts). */
const CARRIED = [
  'host',
  'x-forwarded-for',
  'x-forwarded-host',
  'x-forwarded-proto',
  'accept-language',
  'authorization',
];

export interface SubmissionPagesDeps {
  config: Config;
  db: ServiceContext['db'];
  /** The whole app, which the form's submission is sent through (http/in-memory-exchange.ts). */
  app: RequestListener;
}

export function submissionPages({ config, db, app }: SubmissionPagesDeps): Router {
  const router = Router();
  const anonymous = () => serviceContext(config, { db, caller: null });
  const framing = ["'self'", ...config.submissions.frameAncestors].join(' ');
  // The pages' own policy (html.ts PAGE_POLICY) with the framing allowed; the form also runs the
  // widget's script from here, which solves in workers made from its own code (blob:) and fetches
  // the challenge from this site.
  const plainPolicy = `default-src 'none'; style-src 'unsafe-inline'; img-src 'self' https: data:; form-action 'self'; base-uri 'none'; frame-ancestors ${framing}`;
  const formPolicy = `default-src 'none'; script-src 'self'; worker-src blob:; connect-src 'self'; style-src 'unsafe-inline'; img-src 'self' data:; form-action 'self'; base-uri 'none'; frame-ancestors ${framing}`;

  /** The language of the path (`/fr/submit/`), else the browser's. */
  const languageOf = (req: Request): PageLanguage => {
    const lang = pathLanguage(req);
    return lang !== undefined && (PAGE_LANGUAGES as string[]).includes(lang)
      ? (lang as PageLanguage)
      : pageLanguage(req);
  };
  const send = (
    req: Request,
    res: Response,
    html: string,
    status: number,
    { policy = plainPolicy, secret = false }: { policy?: string; secret?: boolean } = {},
  ) => {
    // frame-ancestors says who may frame these pages; helmet's X-Frame-Options would contradict it.
    res.removeHeader('X-Frame-Options');
    sendPage(req, res, html, status, {
      'Content-Security-Policy': policy,
      'Content-Language': languageOf(req),
      // A page that holds a submission's token is never kept, nor its address named to another site.
      ...(secret ? { 'Cache-Control': 'no-store', 'Referrer-Policy': 'no-referrer' } : {}),
    });
  };
  /** Only the languages the pages are written in may stand before /submit/; anything else is no page. */
  const knownLanguage = (req: Request, _res: Response, next: NextFunction) => {
    const lang = pathLanguage(req);
    if (lang === undefined || (PAGE_LANGUAGES as string[]).includes(lang)) next();
    else next('route');
  };
  /** The form's links are relative to its page: `/submit` without its slash is sent to `/submit/`. */
  const withSlash = (req: Request, res: Response, next: NextFunction) => {
    if (req.path.endsWith('/')) next();
    else {
      const query = req.originalUrl.indexOf('?');
      res.redirect(301, `${req.path}/${query < 0 ? '' : req.originalUrl.slice(query)}`);
    }
  };

  const choices = async (): Promise<FormChoices> => {
    const ctx = anonymous();
    const places = async (kind: typeof VENUE) => {
      const { items } = await listVenuesOrOrganizers(ctx, kind, { onlyWithUpcoming: false }, { take: LISTED, skip: 0 });
      return items
        .map((row) => ({ id: row.id, name: row.name, city: typeof row.city === 'string' ? row.city : null }))
        .sort((a, b) => a.name.localeCompare(b.name));
    };
    const [categories, venues, organizers] = await Promise.all([
      listTerms(ctx, CATEGORY, {
        page: 1,
        perPage: LISTED_CATEGORIES,
        order: 'asc',
        orderby: 'name',
        hideEmpty: false,
      }),
      places(VENUE),
      places(ORGANIZER),
    ]);
    return {
      categories: categories.items.map((term) => ({ id: term.id, name: term.name })),
      venues,
      organizers,
      timezones: Intl.supportedValuesOf('timeZone'),
      siteZone: config.siteTimezone,
      takesImage: config.submissions.imageMaxBytes > 0,
    };
  };
  /** The widget's script and the challenge, relative to the page (`/submit/` or `/fr/submit/`). */
  const links = (req: Request) => {
    const root = pathLanguage(req) === undefined ? '../' : '../../';
    return {
      script: `${root}submit/${widget.name}`,
      challenge: `${root}${config.restPrefix.slice(1)}/${NAMESPACE}/submissions/challenge`,
    };
  };
  const open = () => config.submissions.mode !== 'off';
  const showForm = async (req: Request, res: Response, form: FormValues = {}, answer?: Answer) => {
    const lang = languageOf(req);
    if (!open()) {
      send(req, res, closedPage(lang), 403);
      return;
    }
    const refused = answer ? refusalOf(answer.status, answer.body, form) : undefined;
    if (answer?.retryAfter) res.set('Retry-After', answer.retryAfter);
    const html = formPage(lang, await choices(), links(req), { form, refused });
    send(req, res, html, answer?.status ?? 200, { policy: formPolicy });
  };

  const form = ['/submit/', '/:lang/submit/'];
  router.get(form, knownLanguage, withSlash, (req, res, next) => {
    showForm(req, res).catch(next);
  });
  // The form's fields, read as a multipart form (with its image) or by the app's body parsers
  // (http/body.ts) as any other form's are, sent on to the API as the SubmissionInput they say.
  router.post(form, knownLanguage, (req, res, next) => {
    (async () => {
      if (!open()) return showForm(req, res);
      const sent = await sentForm(req, config.submissions.imageMaxBytes);
      // What was typed comes back, but not the spent proof of work nor the hidden field.
      const { altcha: _altcha, nickname: _nickname, ...kept } = sent.fields;
      if (sent.imageTooLarge) return showForm(req, res, kept, IMAGE_TOO_LARGE);
      const answer = await submitThroughApi({ config, app }, req, submissionOf(sent.fields), sent.image);
      if (answer.status === 202 && typeof answer.body?.status_url === 'string') {
        send(req, res, receivedPage(languageOf(req), answer.body.status_url), 200, { secret: true });
        return undefined;
      }
      return showForm(req, res, kept, answer);
    })().catch(next);
  });

  router.get(`/submit/${widget.name}`, (req, res) => {
    sendReply(req, res, {
      body: widget.bytes(),
      contentType: 'text/javascript; charset=utf-8',
      etag: widget.etag(),
      headers: { 'Cache-Control': 'public, max-age=31536000, immutable' },
    });
  });

  router.get(['/submit/status/', '/:lang/submit/status/'], knownLanguage, (req, res, next) => {
    (async () => {
      const lang = languageOf(req);
      // The app reads no query itself (app.ts: the API reads it against the document): the page reads its own.
      const at = req.originalUrl.indexOf('?');
      const query = new URLSearchParams(at < 0 ? '' : req.originalUrl.slice(at + 1));
      const id = query.get('submission') ?? '';
      const token = query.get('token') ?? '';
      try {
        if (!ID.test(id) || Number(id) > MAX_ID || !SECRET.test(token)) throw new NotFound('submission', 0);
        const status = await submissionStatus(anonymous(), Number(id), token);
        const link = status.slug ? eventPermalink(status.slug, requestUrls(req, config, undefined)) : undefined;
        send(req, res, statusPage(lang, status, { link, zone: config.siteTimezone }), 200, { secret: true });
      } catch (err) {
        if (!(err instanceof NotFound)) throw err;
        send(req, res, notFoundPage(lang), 404, { secret: true });
      }
    })().catch(next);
  });
  return router;
}

/** The API's answer to the form's submission. */
interface Answer {
  status: number;
  body?: Partial<ErrorBody> & { status_url?: unknown };
  retryAfter?: string;
}

/** The API's refusal of an image past SUBMISSION_IMAGE_MAX_MB, said by the page that read it. */
const IMAGE_TOO_LARGE: Answer = { status: 413, body: { code: 'rest_upload_file_too_big' } };

/** What the browser sent: the form's fields, and its image when it chose one. */
async function sentForm(
  req: Request,
  imageMaxBytes: number,
): Promise<{ fields: FormValues; image?: Upload; imageTooLarge?: true }> {
  if (!req.is('multipart/form-data')) return { fields: formValues(req.body) };
  // Beside the form's fields (the categories' checkboxes among them), one image, which is marked
  // rather than read past its size, so that the page can say so beside what was typed.
  const read = await readMultipart(req, {
    fileField: 'image',
    fileBytes: imageMaxBytes,
    fileTooLarge: 'mark',
    fields: 200,
    // A description of 20,000 characters is at most 80 kB; all of them together no more than a JSON body.
    fieldBytes: 128 * 1024,
    totalFieldBytes: MAX_BODY_BYTES,
  });
  // A file field left empty is sent as a part with no name and no bytes.
  const image = read.file?.bytes.length ? read.file : undefined;
  return { fields: formValues(read.fields), image, ...(read.fileTooLarge ? { imageTooLarge: true } : {}) };
}

/** Sends the submission through the whole app to the API, as the browser's request (its address, host, language). */
async function submitThroughApi(
  { config, app }: Pick<SubmissionPagesDeps, 'config' | 'app'>,
  req: Request,
  input: Record<string, unknown>,
  image: Upload | undefined,
): Promise<Answer> {
  const sent = await apiBody(input, image);
  const headers: Record<string, string> = { 'content-type': sent.contentType, connection: 'close' };
  for (const name of CARRIED) {
    const value = req.headers[name];
    if (typeof value === 'string') headers[name] = value;
  }
  const answer = await exchangeInMemory(app, req.socket, {
    method: 'POST',
    path: `${config.restPrefix}/${NAMESPACE}/submissions`,
    headers,
    body: sent.body,
  });
  let body: Answer['body'];
  try {
    body = JSON.parse(answer.text) as Answer['body'];
  } catch {
    body = undefined;
  }
  const retryAfter = answer.headers['retry-after'];
  return { status: answer.status, body, retryAfter: typeof retryAfter === 'string' ? retryAfter : undefined };
}

/** The API's request body: the SubmissionInput as JSON, or with an image the document's SubmissionForm. */
async function apiBody(input: Record<string, unknown>, image: Upload | undefined) {
  if (!image) return { contentType: 'application/json', body: JSON.stringify(input) };
  const form = new FormData();
  form.append('submission', new Blob([JSON.stringify(input)], { type: 'application/json' }), 'submission.json');
  form.append('image', new Blob([new Uint8Array(image.bytes)]), image.fileName);
  // The multipart body and its boundary, as fetch would send them.
  const request = new Request('http://localhost/', { method: 'POST', body: form });
  return {
    contentType: request.headers.get('content-type') ?? 'multipart/form-data',
    body: Buffer.from(await request.arrayBuffer()),
  };
}

/** The language segment before /submit/, when the route has one. */
const pathLanguage = (req: Request): string | undefined => (req.params as Partial<Record<string, string>>).lang;
