// The submission form (src/pages/submit.ts) over HTTP, on both databases: the page in the reader's
// language with a label for every field and the hidden field people never meet, a refused
// submission's errors next to their fields with what was typed kept, a received one's status
// link and what it shows as editors decide, the honeypot, who may frame the pages, and the page
// where submissions are off. The browser's side (the proof of work solved by the page's widget,
// the keyboard) is test/browser/submission-form.test.ts.
import { describe, expect, it } from 'vitest';
import { withoutSecrets } from '../../src/http/request-log.js';
import { describeEachDatabase } from '../setup/each-database.js';
import { photo } from '../setup/images.js';
import { solvedChallenge } from '../setup/submissions.js';
import type { TestServer } from '../setup/server.js';

const ENV = {
  SUBMISSIONS: 'anyone',
  SUBMISSION_POW_COST: '50',
  TRUST_PROXY: 'loopback',
  SITE_TIMEZONE: 'Europe/Paris',
  SUBMISSION_IMAGE_MAX_MB: '1',
};

/** The whole tag of the element whose id is `id` (its attributes), or undefined. */
function tagOf(html: string, id: string): string | undefined {
  const at = html.indexOf(` id="${id}"`);
  if (at < 0) return undefined;
  return html.slice(html.lastIndexOf('<', at), html.indexOf('>', at) + 1);
}

/** The ids of the page's form controls (not buttons) and the ids its labels are for. */
function controlsAndLabels(html: string) {
  const controls = [...html.matchAll(/<(?:input|select|textarea)\b[^>]*\bid="([^"]+)"/g)].map((m) => m[1]);
  const labels = new Set([...html.matchAll(/<label for="([^"]+)"/g)].map((m) => m[1]));
  return { controls, labels };
}

let serial = 0;

/** A filled form no defence trips, with `fields` over it. */
function filledForm(fields: Record<string, string | string[]> = {}): Record<string, string | string[]> {
  serial += 1;
  return {
    title: `Lantern walk ${serial}`,
    start_date: '2043-05-16',
    start_time: '19:00',
    end_date: '',
    end_time: '21:00',
    timezone: 'Europe/Paris',
    description: 'Bring a lantern; we walk along the river.',
    submitter_name: 'Ana Lima',
    submitter_email: `ana.form${serial}@example.org`,
    nickname: '',
    ...fields,
  };
}

async function postForm(
  s: TestServer,
  form: Record<string, string | string[]>,
  { address = '198.51.100.20', path = '/submit/', language = 'en', image = undefined as Buffer | undefined } = {},
) {
  // As a browser sends the page's form (multipart, with its file field), or as a plain form.
  const body = image ? new FormData() : new URLSearchParams();
  for (const [name, value] of Object.entries(form)) for (const one of [value].flat()) body.append(name, one);
  if (body instanceof FormData && image) body.append('image', new Blob([new Uint8Array(image)]), 'poster.jpg');
  const r = await fetch(`${s.origin}${path}`, {
    method: 'POST',
    body,
    headers: { 'X-Forwarded-For': address, 'Accept-Language': language },
  });
  return { status: r.status, headers: r.headers, html: await r.text() };
}

/** Sends the form with a solved proof of work from `address`, as the page's widget would. */
async function sendSolved(
  s: TestServer,
  form: Record<string, string | string[]>,
  address = '198.51.100.21',
  image?: Buffer,
) {
  const altcha = await solvedChallenge(s, { 'X-Forwarded-For': address });
  return postForm(s, { ...form, altcha }, { address, image });
}

/**
 * The received page's status link, on the test server: the link is built from the site's address
 * (PUBLIC_URL, else the address listened on), which a test server on an ephemeral port has not.
 */
function statusLinkOf(s: TestServer, html: string): string {
  const href = /href="([^"]*\/submit\/status\/\?[^"]+)"/.exec(html)?.[1].replaceAll('&amp;', '&') ?? '';
  const url = new URL(href);
  return `${s.origin}${url.pathname}${url.search}`;
}

describeEachDatabase(
  'The submission form',
  (s) => {
    it('shows every field with its label, in the browser’s language, the hidden field out of people’s way', async () => {
      const category = await s.post('/categories', { name: 'Walks' });
      const venue = await s.post('/venues', { venue: 'Quai Saint-Antoine', city: 'Lyon', status: 'publish' });
      const draft = await s.post('/venues', { venue: 'Unpublished hall', status: 'draft' });
      const r = await fetch(`${s.origin}/submit/`, { headers: { 'Accept-Language': 'en' } });
      expect(r.status).toBe(200);
      const html = await r.text();
      expect(html).toContain('<html lang="en">');
      const { controls, labels } = controlsAndLabels(html);
      expect(controls.length).toBeGreaterThan(20);
      for (const control of controls) expect(labels.has(control), control).toBe(true);
      // Existing categories as checkboxes, published venues in the list, not a draft one.
      expect(tagOf(html, `f-categories-${category.body.id}`)).toContain('type="checkbox"');
      expect(html).toContain(`<option value="${venue.body.id}">Quai Saint-Antoine (Lyon)</option>`);
      expect(html).not.toContain(`value="${draft.body.id}">Unpublished hall`);
      // The site's zone is chosen by default.
      expect(html).toContain('<option value="Europe/Paris" selected>');
      // The honeypot: a text field off-screen, hidden from assistive technology, out of the tab order.
      const honeypot = tagOf(html, 'f-nickname') ?? '';
      expect(honeypot).toContain('type="text"');
      expect(honeypot).toContain('tabindex="-1"');
      expect(honeypot).toContain('autocomplete="off"');
      expect(html).toMatch(/<div class="nickname" aria-hidden="true">/);
      // The widget, its script from this site, its challenge from the API; the page says what needs JavaScript.
      expect(html).toMatch(/<script type="module" src="\.\.\/submit\/altcha-[0-9.]+\.js"><\/script>/);
      expect(html).toContain('challenge="../wp-json/calendar/events/v1/submissions/challenge"');
      expect(html).toMatch(/<noscript>.*JavaScript/s);
      const policy = r.headers.get('content-security-policy') ?? '';
      expect(policy).toContain("script-src 'self'");
      expect(policy).toContain("connect-src 'self'");
      expect(policy).toContain("frame-ancestors 'self'");
      expect(policy).not.toContain('unsafe-eval');
      expect(r.headers.get('x-frame-options')).toBeNull();
    });

    it('follows the language of the path, else of the browser', async () => {
      const fr = await fetch(`${s.origin}/fr/submit/`, { headers: { 'Accept-Language': 'de' } });
      const html = await fr.text();
      expect(html).toContain('<html lang="fr">');
      expect(html).toContain('Proposer un événement');
      expect(fr.headers.get('content-language')).toBe('fr');
      // Its links lead from /fr/submit/ to the same script and challenge.
      expect(html).toMatch(/src="\.\.\/\.\.\/submit\/altcha-[0-9.]+\.js"/);
      const de = await fetch(`${s.origin}/submit/`, { headers: { 'Accept-Language': 'de-AT, en;q=0.5' } });
      expect(await de.text()).toContain('Veranstaltung vorschlagen');
      const es = await postForm(s, { title: '' }, { path: '/es/submit/' });
      expect(es.html).toContain('Corrige lo siguiente');
      expect((await fetch(`${s.origin}/xx/submit/`)).status).toBe(404);
      // Without its slash, the page is sent to its address with one (its links are relative to it).
      const bare = await fetch(`${s.origin}/submit`, { redirect: 'manual' });
      expect(bare.status).toBe(301);
      expect(bare.headers.get('location')).toBe('/submit/');
    });

    it('serves the widget’s script from this site, kept for a year', async () => {
      const page = await (await fetch(`${s.origin}/submit/`)).text();
      const script = /src="\.\.\/(submit\/altcha-[0-9.]+\.js)"/.exec(page)?.[1];
      const r = await fetch(`${s.origin}/${script}`);
      expect(r.status).toBe(200);
      expect(r.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
      expect(r.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
      expect(await r.text()).toContain('altcha-widget');
      const again = await fetch(`${s.origin}/${script}`, { headers: { 'If-None-Match': r.headers.get('etag') ?? '' } });
      expect(again.status).toBe(304);
    });

    it('puts the API’s refusals next to their fields, with a summary first, and keeps what was typed', async () => {
      const r = await postForm(
        s,
        filledForm({
          website: 'www.example.org',
          submitter_email: 'not an address',
          venue_name: 'The new barn',
          description: 'Typed with <care> & kept',
        }),
      );
      expect(r.status).toBe(400);
      expect(r.headers.get('content-type')).toMatch(/^text\/html/);
      // The summary comes first and takes the focus; each of its lines leads to its field.
      const summary = tagOf(r.html, 'problems') ?? '';
      expect(summary).toContain('role="alert"');
      expect(summary).toContain('autofocus');
      expect(r.html.indexOf('id="problems"')).toBeLessThan(r.html.indexOf('<form'));
      expect(r.html).toContain('<a href="#f-website">');
      for (const field of ['website', 'submitter_email']) {
        const control = tagOf(r.html, `f-${field}`) ?? '';
        expect(control, field).toContain('aria-invalid="true"');
        expect(control, field).toMatch(new RegExp(`aria-describedby="[^"]*e-${field}`));
        expect(tagOf(r.html, `e-${field}`), field).toContain('class="error"');
      }
      // Fields the API did not refuse are not marked.
      expect(tagOf(r.html, 'f-description')).not.toContain('aria-invalid');
      expect(r.html).toContain('>Typed with &lt;care&gt; &amp; kept</textarea>');
      expect(tagOf(r.html, 'f-venue_name')).toContain('value="The new barn"');
      expect(tagOf(r.html, 'f-submitter_email')).toContain('value="not an address"');
      // A field left empty is named as missing (the API names only those while any is missing).
      const missing = await postForm(s, filledForm({ title: ' ', submitter_email: 'not an address' }));
      expect(missing.status).toBe(400);
      expect(tagOf(missing.html, 'f-title')).toContain('aria-invalid="true"');
      expect(missing.html).toContain('Give the event a title');
    });

    it('sends an image with the submission, and says at its field what is wrong with one', async () => {
      const r = await sendSolved(
        s,
        filledForm({ title: 'Lantern walk with a poster', image_alt_text: 'Lanterns on the river' }),
        '198.51.100.40',
        await photo(320, 240),
      );
      expect(r.status).toBe(200);
      const queue = await s.get('/submissions', { as: 'editor' });
      const mine = queue.body.submissions.find((x: { event: { title: string } }) =>
        x.event.title.startsWith('Lantern walk with a poster'),
      );
      expect(mine.new.image).toEqual(expect.any(Number));
      expect((await s.get(`/media/${mine.new.image}`, { as: 'editor' })).body.alt_text).toBe('Lanterns on the river');
      for (const [bytes, status] of [
        [Buffer.alloc(1024 * 1024 + 1, 1), 413],
        [Buffer.from('<html>not an image</html>'), 415],
      ] as const) {
        const refused = await sendSolved(s, filledForm({ cost: 'Free' }), '198.51.100.41', bytes);
        expect(refused.status).toBe(status);
        expect(tagOf(refused.html, 'f-image')).toContain('aria-invalid="true"');
        expect(refused.html).toContain('Choose a JPEG, PNG, WebP, GIF or AVIF image');
        // What was typed is kept; the file field, which no browser fills again, says to choose it again.
        expect(tagOf(refused.html, 'f-cost')).toContain('value="Free"');
        expect(refused.html).toContain('choose the image again');
      }
    });

    it('says that the proof of work is missing at its field, and that the end comes before the start at the end', async () => {
      const none = await postForm(s, filledForm());
      expect(none.status).toBe(400);
      expect(tagOf(none.html, 'f-altcha')).toContain('aria-invalid="true"');
      expect(none.html).toContain('The spam check did not pass');
      const backwards = await sendSolved(s, filledForm({ start_time: '22:00', end_time: '20:00' }), '198.51.100.30');
      expect(backwards.status).toBe(400);
      expect(tagOf(backwards.html, 'f-end_date')).toContain('aria-invalid="true"');
      expect(tagOf(backwards.html, 'f-end_time')).toContain('aria-invalid="true"');
      expect(tagOf(backwards.html, 'f-start_date')).not.toContain('aria-invalid');
    });

    it('takes a submission, gives its status link, and the link follows the editors’ decision', async () => {
      const category = await s.post('/categories', { name: 'Lanterns' });
      const r = await sendSolved(
        s,
        filledForm({
          categories: [String(category.body.id)],
          suggested_categories: 'River walks, Night',
          venue_name: 'Quai Rambaud',
          venue_city: 'Lyon',
          organizer_name: 'Friends of the river',
        }),
      );
      expect(r.status).toBe(200);
      expect(r.headers.get('cache-control')).toBe('no-store');
      expect(r.headers.get('referrer-policy')).toBe('no-referrer');
      expect(r.html).toContain('Your suggestion was received');
      const link = statusLinkOf(s, r.html);
      expect(link).toMatch(/\/submit\/status\/\?submission=\d+&token=/);

      const queue = await s.get('/submissions?per_page=50', { as: 'editor' });
      const id = Number(new URL(link).searchParams.get('submission'));
      const mine = queue.body.submissions.find((x: { id: number }) => x.id === id);
      expect(mine).toMatchObject({ state: 'pending', new: { categories: ['River walks', 'Night'] } });
      expect(mine.event).toMatchObject({ start_date: '2043-05-16 19:00:00', end_date: '2043-05-16 21:00:00' });
      expect(mine.event.categories.map((c: { id: number }) => c.id)).toEqual([category.body.id]);
      expect(mine.new.venue).toEqual(expect.any(Number));
      expect(mine.new.organizer).toEqual(expect.any(Number));

      const pending = await fetch(link, { headers: { 'Accept-Language': 'en' } });
      expect(pending.status).toBe(200);
      expect(pending.headers.get('cache-control')).toBe('no-store');
      expect(pending.headers.get('referrer-policy')).toBe('no-referrer');
      const pendingHtml = await pending.text();
      expect(pendingHtml).toContain('It waits for the editors.');
      expect(pendingHtml).toContain(mine.event.title);
      // Opening it changed nothing.
      expect((await s.get(`/submissions/${id}`, { as: 'editor' })).body.state).toBe('pending');

      await s.post(`/submissions/${id}/approve`, {}, { as: 'editor' });
      const approved = await (await fetch(link)).text();
      expect(approved).toContain('It is published.');
      const event = await s.get(`/events/${mine.event.id}`, { as: null });
      expect(approved).toContain(`href="${event.body.url}"`);

      const other = await sendSolved(s, filledForm(), '198.51.100.22');
      const otherLink = statusLinkOf(s, other.html);
      const otherId = Number(new URL(otherLink).searchParams.get('submission'));
      await s.post(`/submissions/${otherId}/reject`, { reason: 'Already in the calendar.' }, { as: 'editor' });
      const rejected = await (await fetch(otherLink, { headers: { 'Accept-Language': 'fr' } })).text();
      expect(rejected).toContain('L’équipe ne l’a pas publiée.');
      expect(rejected).toContain('Already in the calendar.');

      // A wrong token, or none, is no page.
      const wrong = new URL(otherLink);
      wrong.searchParams.set('token', 'x'.repeat(43));
      expect((await fetch(wrong)).status).toBe(404);
      expect((await fetch(`${s.origin}/submit/status/?submission=${otherId}`)).status).toBe(404);
      expect((await fetch(`${s.origin}/submit/status/?submission=99999999999&token=abc`)).status).toBe(404);
      // The request log leaves the token out (http/request-log.ts).
      expect(withoutSecrets(new URL(otherLink).pathname + new URL(otherLink).search)).toBe(
        `/submit/status/?submission=${otherId}&token=redacted`,
      );
    });

    it('receives alike what fills the hidden field, and keeps it as suspected spam', async () => {
      const r = await sendSolved(s, filledForm({ nickname: 'bot' }), '198.51.100.40');
      expect(r.status).toBe(200);
      expect(r.html).toContain('Your suggestion was received');
      const id = Number(new URL(statusLinkOf(s, r.html)).searchParams.get('submission'));
      const one = await s.get(`/submissions/${id}`, { as: 'editor' });
      expect(one.body.state).toBe('spam');
      expect(one.body.spam_reasons).toContain('honeypot');
    });

    it('says a duplicate at the top, not at a field', async () => {
      const form = filledForm();
      expect((await sendSolved(s, form, '198.51.100.50')).status).toBe(200);
      const again = await sendSolved(s, { ...form, submitter_email: 'other@example.org' }, '198.51.100.51');
      expect(again.status).toBe(409);
      expect(again.html).toContain('This event was suggested today already');
      expect(again.html).not.toContain('aria-invalid="true"');
    });
  },
  { env: ENV },
);

describeEachDatabase(
  'The submission form framed by a partner site',
  (s) => {
    it('may be framed by this site and the origins of SUBMISSION_FRAME_ANCESTORS, on every page of it', async () => {
      for (const path of ['/submit/', '/submit/status/?submission=1&token=abc']) {
        const r = await fetch(`${s.origin}${path}`);
        expect(r.headers.get('content-security-policy'), path).toContain(
          "frame-ancestors 'self' https://www.partner.example https://events.partner.example:8443",
        );
        expect(r.headers.get('x-frame-options'), path).toBeNull();
      }
      // Other pages and the API stay unframed.
      expect((await fetch(`${s.origin}/event/nothing/`)).headers.get('content-security-policy')).toContain(
        "frame-ancestors 'none'",
      );
    });
  },
  {
    env: {
      ...ENV,
      SUBMISSION_FRAME_ANCESTORS: 'https://www.partner.example, https://events.partner.example:8443',
    },
  },
);

describeEachDatabase('The submission form where submissions are off', (s) => {
  it('says so on a 403 page, with no form, and sends nothing on', async () => {
    const r = await fetch(`${s.origin}/submit/`);
    expect(r.status).toBe(403);
    const html = await r.text();
    expect(html).toContain('This calendar takes no suggestions at the moment.');
    expect(html).not.toContain('<form');
    const posted = await postForm(s, filledForm());
    expect(posted.status).toBe(403);
    expect((await s.get('/submissions?state=pending', { as: 'editor' })).body.total).toBe(0);
  });
});

describe('the request log', () => {
  it('leaves a status link’s token out', () => {
    expect(withoutSecrets('/submit/status/?submission=12&token=s3cret')).toBe(
      '/submit/status/?submission=12&token=redacted',
    );
  });
});
