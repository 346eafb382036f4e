// The page the links of RSVP messages lead to (mail/messages.ts rsvpPageUrl): with a confirmation
// code, a button that confirms the RSVP; with its owner's token, where the RSVP stands and a button
// that cancels it. Opening the link changes nothing: mail filters open links to check them, so only
// the button (a form POST, no JavaScript needed) acts. The link carries a secret, so the page is
// never kept by a cache nor named to another site (Referrer-Policy), and the request log leaves the
// secret out (http/request-log.ts).
import { type Request, type Response, Router } from 'express';
import type { Config } from '../config.js';
import { NotFound, NotReadable, RsvpRefused } from '../domain/errors.js';
import { rsvpPageUrl } from '../mail/messages.js';
import { requestUrls } from '../http/urls.js';
import { type ServiceContext, serviceContext } from '../services/context.js';
import { getEvent } from '../services/events/read.js';
import { confirmRsvp } from '../services/rsvps/anonymous.js';
import { getRsvp } from '../services/rsvps/read.js';
import { cancelRsvp } from '../services/rsvps/write.js';
import { page, text } from './html.js';
import { RSVP_TEXTS } from './rsvp-texts.js';
import type { PageLanguage } from './texts.js';
import { pageLanguage, sendPage } from './send.js';
import { notFoundPage } from './views.js';

/** What a link or its form names: the event, the RSVP, and the code or the token. */
type Act = 'confirm' | 'cancel';

interface Named {
  event: number;
  rsvp: number;
  code?: string;
  token?: string;
}

const ID = /^[1-9][0-9]{0,9}$/;
/** The largest ID a row has (int4): a larger one names nothing, and must not reach a statement. */
const MAX_ID = 2_147_483_647;
/** A secret as newSecret writes it (services/rsvps/secrets.ts): base64url. */
const SECRET = /^[A-Za-z0-9_-]{1,100}$/;

function namedBy(fields: Record<string, unknown>): Named | undefined {
  const { event, rsvp, code, token } = fields;
  if (typeof event !== 'string' || typeof rsvp !== 'string' || !ID.test(event) || !ID.test(rsvp)) return undefined;
  const secret = (value: unknown) => (typeof value === 'string' && SECRET.test(value) ? value : undefined);
  const named = { event: Number(event), rsvp: Number(rsvp), code: secret(code), token: secret(token) };
  if (named.event > MAX_ID || named.rsvp > MAX_ID) return undefined;
  return named.code || named.token ? named : undefined;
}

export function rsvpPages(config: Config, db: ServiceContext['db']): Router {
  const router = Router();
  const anonymous = () => serviceContext(config, { db, caller: null });
  // The link carries a secret: never kept by a cache, nor named to another site.
  const send = (req: Request, res: Response, html: string, status: number) => {
    sendPage(req, res, html, status, { 'Cache-Control': 'no-store', 'Referrer-Policy': 'no-referrer' });
  };

  /** The page for `named`, after `act` (a button's POST) if any, and its status; a link that leads nowhere is the 404 page. */
  const render = async (req: Request, named: Named | undefined, act?: Act): Promise<[string, number]> => {
    const lang = pageLanguage(req);
    const t = RSVP_TEXTS[lang];
    try {
      if (!named) throw new NotFound('rsvp', 0);
      const ctx = anonymous();
      const event = await getEvent(ctx, { id: named.event });
      const heading = `<h1>${text(t.title)}</h1>\n<p>${text(event.title)}</p>`;
      const form = (action: Act, secret: { code: string } | { token: string }, label: string) =>
        `<form method="post" action="/rsvp/">${hidden({ event: String(named.event), rsvp: String(named.rsvp), ...secret, action })}<button type="submit">${text(label)}</button></form>`;
      if (named.code && act !== 'confirm') {
        const body = `${heading}\n<p>${text(t.confirmIntro)}</p>\n${form('confirm', { code: named.code }, t.confirm)}`;
        return [page(lang, t.title, body), 200];
      }
      if (named.code) {
        const { rsvp, token } = await confirmRsvp(ctx, named.event, named.rsvp, named.code);
        const link = rsvpPageUrl(requestUrls(req, config, undefined), named.event, named.rsvp, { token });
        const body = `${heading}\n<p role="status">${text(t[rsvp.status])}</p>\n<p>${text(t.keepLink)}<br><a href="${text(link)}">${text(link)}</a></p>`;
        return [page(lang, t.title, body), 200];
      }
      const token = named.token ?? '';
      const rsvp =
        act === 'cancel'
          ? await cancelRsvp(ctx, named.event, named.rsvp, token)
          : await getRsvp(ctx, named.event, named.rsvp, token);
      const said = act === 'cancel' ? t.cancelledNow : t[rsvp.status];
      const cancellable = !['cancelled', 'declined', 'checked_in'].includes(rsvp.status);
      const body = [
        heading,
        `<p role="status">${text(said)}</p>`,
        `<dl><dt>${text(t.guests)}</dt><dd>${rsvp.guests}</dd></dl>`,
        cancellable ? form('cancel', { token }, t.cancel) : '',
      ].join('\n');
      return [page(lang, t.title, body), 200];
    } catch (err) {
      return failurePage(err, lang);
    }
  };
  const serve = async (req: Request, res: Response, named: Named | undefined, act?: Act) => {
    const [html, status] = await render(req, named, act);
    send(req, res, html, status);
  };

  // The app reads no query itself (app.ts: the API reads it against the document): the page reads its own.
  router.get('/rsvp/', (req, res) => {
    const query = new URLSearchParams(
      req.originalUrl.includes('?') ? req.originalUrl.slice(req.originalUrl.indexOf('?') + 1) : '',
    );
    return serve(req, res, namedBy(Object.fromEntries(query)));
  });
  // The form's fields, read by the app's body parsers (http/body.ts) as any form's are.
  router.post('/rsvp/', (req, res) => {
    const fields = (req.body ?? {}) as Record<string, unknown>;
    const act = fields.action === 'confirm' || fields.action === 'cancel' ? fields.action : undefined;
    return serve(req, res, namedBy(fields), act);
  });
  return router;
}

/** The page of a link that cannot be acted on: used or expired, refused now, or naming nothing. */
function failurePage(err: unknown, lang: PageLanguage): [string, number] {
  const t = RSVP_TEXTS[lang];
  if (err instanceof RsvpRefused && err.reason === 'confirmation') {
    return [page(lang, t.title, `<h1>${text(t.title)}</h1>\n<p>${text(t.linkUsed)}</p>`), 403];
  }
  // Closed, cancelled, full, busy: said as the API says it, on a page.
  if (err instanceof RsvpRefused) {
    const body = `<h1>${text(t.title)}</h1>\n<p>${text(t.notNow)} ${text(err.message)}</p>`;
    return [page(lang, t.title, body), err.reason === 'busy' ? 503 : 409];
  }
  if (err instanceof NotFound || err instanceof NotReadable) return [notFoundPage(lang), 404];
  throw err;
}

const hidden = (fields: Record<string, string>) =>
  Object.entries(fields)
    .map(([name, value]) => `<input type="hidden" name="${text(name)}" value="${text(value)}">`)
    .join('');
