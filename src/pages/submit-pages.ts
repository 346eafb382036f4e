// The pages around the submission form (pages/submit.ts): a submission received, where one stands
// (by its token), and submissions closed.
import { DateTime } from 'luxon';
import type { SubmissionStatus } from '../domain/submissions.js';
import { page, text } from './html.js';
import { SUBMIT_TEXTS } from './submit-texts.js';
import type { PageLanguage } from './texts.js';

/** After a submission was received: it waits for the editors, and where to follow it. */
export function receivedPage(lang: PageLanguage, statusUrl: string): string {
  const t = SUBMIT_TEXTS[lang];
  const body = `<h1>${text(t.receivedTitle)}</h1>
<p role="status">${text(t.received)}</p>
<p>${text(t.keepLink)}<br><a href="${text(statusUrl)}">${text(statusUrl)}</a></p>`;
  return page(lang, t.receivedTitle, body);
}

/** Where the service takes no submissions. */
export function closedPage(lang: PageLanguage): string {
  const t = SUBMIT_TEXTS[lang];
  return page(lang, t.closedTitle, `<h1>${text(t.closedTitle)}</h1>\n<p>${text(t.closed)}</p>`);
}

/** Where a submission stands: waiting, published (with the event's page), or not (with the editors' reason). */
export function statusPage(
  lang: PageLanguage,
  status: SubmissionStatus,
  { link, zone }: { link?: string; zone: string },
): string {
  const t = SUBMIT_TEXTS[lang];
  const start = DateTime.fromJSDate(status.startLocal, { zone: 'UTC' }).toLocaleString(DateTime.DATETIME_MED, {
    locale: lang,
  });
  const sent = DateTime.fromJSDate(status.submittedAt, { zone }).toLocaleString(DateTime.DATETIME_MED, {
    locale: lang,
  });
  const said = { pending: t.pending, approved: t.approved, rejected: t.rejected }[status.state];
  const lines = [
    `<h1>${text(t.statusTitle)}</h1>`,
    `<p>${text(status.title)}<br>${text(start)}</p>`,
    `<p role="status">${text(said)}</p>`,
    link ? `<p><a href="${text(link)}">${text(t.seeEvent)}</a></p>` : '',
    status.reason ? `<dl><dt>${text(t.reason)}</dt><dd>${text(status.reason)}</dd></dl>` : '',
    `<p>${text(t.submitted)}: ${text(sent)}</p>`,
  ];
  return page(lang, t.statusTitle, lines.filter(Boolean).join('\n'));
}
