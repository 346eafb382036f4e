// How every public page is sent (routes.ts, rsvp.ts): in the reader's language among the pages',
// as HTML that may load nothing but what PAGE_POLICY allows.
import type { Request, Response } from 'express';
import { sendReply } from '../http/reply.js';
import { PAGE_POLICY } from './html.js';
import { PAGE_LANGUAGES, type PageLanguage } from './texts.js';

/** The reader's language among the pages' (English, the first, when it asks for none of them). */
export const pageLanguage = (req: Request) => (req.acceptsLanguages(PAGE_LANGUAGES) || 'en') as PageLanguage;

export function sendPage(
  req: Request,
  res: Response,
  html: string,
  status = 200,
  headers: Record<string, string> = {},
) {
  sendReply(req, res, {
    status,
    body: html,
    contentType: 'text/html; charset=utf-8',
    headers: {
      'Content-Security-Policy': PAGE_POLICY,
      'Content-Language': pageLanguage(req),
      // Kept with what a route varied on before (federation/routes.ts: Accept, on an event's page).
      Vary: [res.get('Vary'), 'Accept-Language'].filter(Boolean).join(', '),
      ...headers,
    },
  });
}
