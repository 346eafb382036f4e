// The submission form in Chromium, as a person without an account meets it: the page's ALTCHA
// widget fetches a challenge from the API and solves it in the browser (a small
// SUBMISSION_POW_COST, so that the test takes a moment), the form is filled and sent with the
// keyboard alone (its image chosen in the file field), the received page gives the status link, and the editors' queue has the
// submission. A French browser gets the page, the widget and the errors in French, the summary of
// errors taking the focus. Nothing is loaded from elsewhere and the page's policy refuses nothing
// it needs. Screenshots go to test-artifacts/.
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { chromiumAvailable, serverAndBrowser } from '../setup/chromium.js';
import { photo } from '../setup/images.js';

/** The page's problems: requests to elsewhere (aborted), and what the console says went wrong (a refused policy). */
async function watched(page: Page): Promise<string[]> {
  const problems: string[] = [];
  await page.route('**/*', (route) => {
    const url = new URL(route.request().url());
    if (url.protocol === 'data:' || url.protocol === 'blob:' || url.hostname === '127.0.0.1') return route.continue();
    problems.push(`outside: ${url.href}`);
    return route.abort();
  });
  page.on('console', (message) => {
    // A refused form's page comes with its status (400), which Chromium reports as a failed load.
    const refusedForm =
      message.text().startsWith('Failed to load resource') && message.location().url.endsWith('/submit/');
    if (message.type() === 'error' && !refusedForm) problems.push(`console: ${message.text()}`);
  });
  page.on('pageerror', (err) => problems.push(`page: ${err.message}`));
  return problems;
}

/** The id of the element that has the focus. */
const focused = (page: Page) =>
  page.evaluate(
    () =>
      (globalThis as unknown as { document: { activeElement: { id: string } | null } }).document.activeElement?.id ??
      '',
  );

/** Presses Tab until the control `id` has the focus (the keyboard's way there), at most `within` times. */
async function tabTo(page: Page, id: string, within = 60): Promise<void> {
  for (let i = 0; i < within; i++) {
    await page.keyboard.press('Tab');
    if ((await focused(page)) === id) return;
  }
  throw new Error(`Tab never reached #${id}`);
}

/** Types into the control `id`, reached by Tab. */
async function typeInto(page: Page, id: string, value: string) {
  await tabTo(page, id);
  await page.keyboard.type(value);
}

/** Waits until the widget has solved its challenge and put the solution in the form. */
async function solved(page: Page) {
  await expect.poll(() => page.locator('input[name="altcha"]').first().inputValue(), { timeout: 15_000 }).not.toBe('');
}

/**
 * Most of each test is the keyboard's round trips to the browser and the page's first load: 10 to
 * 22 s were measured on a two-core machine shared with other suites (a load of 15 to 20).
 */
const BUSY_MACHINE_MS = 60_000;

describe.runIf(chromiumAvailable)('the submission form in Chromium', () => {
  const suite = serverAndBrowser({ SUBMISSIONS: 'anyone', SUBMISSION_POW_COST: '2000', SITE_TIMEZONE: 'Europe/Paris' });

  it(
    'is filled and sent by keyboard, its proof of work solved by the page, and lands in the editors’ queue',
    { timeout: BUSY_MACHINE_MS },
    async () => {
      const { s, browser } = suite;
      const venue = await s.post('/venues', { venue: 'Salle des fêtes', city: 'Lyon', status: 'publish' });
      const context = await browser.newContext({ locale: 'en-US', viewport: { width: 900, height: 1000 } });
      const page = await context.newPage();
      const problems = await watched(page);
      const opened = await page.goto(`${s.origin}/submit/`, { waitUntil: 'load' });
      expect(opened?.status()).toBe(200);
      expect(await page.locator('html').getAttribute('lang')).toBe('en');

      await typeInto(page, 'f-title', 'Harvest dance');
      await typeInto(page, 'f-description', 'A band, a floor, and soup.');
      // The file field is reached by the keyboard too; the file is chosen in the system's dialog,
      // which the test answers.
      await tabTo(page, 'f-image');
      await page.setInputFiles('#f-image', {
        name: 'poster.png',
        mimeType: 'image/png',
        buffer: await photo(200, 150, { format: 'png' }),
      });
      await typeInto(page, 'f-image_alt_text', 'Dancers in a barn');
      // Chromium's date and time fields take digits in the locale's order (en-US: month, day, year).
      await typeInto(page, 'f-start_date', '09122043');
      await typeInto(page, 'f-start_time', '0730P');
      await typeInto(page, 'f-end_time', '1100P');
      // The venue from the list, by the keyboard: the select takes the first letters of an option.
      await typeInto(page, 'f-venue', 'Salle');
      await typeInto(page, 'f-submitter_name', 'Inès Martin');
      await typeInto(page, 'f-submitter_email', 'ines@example.org');
      // The hidden field is never reached: from the e-mail, Tab goes on to the widget, then the button.
      await page.screenshot({ path: 'test-artifacts/submission-form.png', fullPage: true });
      await solved(page);
      await tabTo(page, 'f-send', 5);
      await page.keyboard.press('Enter');
      await page.getByRole('status').waitFor();
      expect(await page.getByRole('status').innerText()).toContain('Your suggestion was received');
      const link = (await page.locator('a[href*="/submit/status/"]').getAttribute('href')) ?? '';
      expect(link).toMatch(/\/submit\/status\/\?submission=\d+&token=/);
      await page.screenshot({ path: 'test-artifacts/submission-received.png' });

      const queue = await s.get('/submissions', { as: 'editor' });
      const id = Number(new URL(link).searchParams.get('submission'));
      const mine = queue.body.submissions.find((x: { id: number }) => x.id === id);
      expect(mine).toMatchObject({
        state: 'pending',
        submitter: { name: 'Inès Martin', email: 'ines@example.org' },
        event: {
          title: 'Harvest dance',
          start_date: '2043-09-12 19:30:00',
          end_date: '2043-09-12 23:00:00',
          timezone: 'Europe/Paris',
          venue: { id: venue.body.id },
        },
      });
      expect(mine.new).toMatchObject({ venue: null, organizer: null, image: expect.any(Number) });
      expect((await s.get(`/media/${mine.new.image}`, { as: 'editor' })).body).toMatchObject({
        alt_text: 'Dancers in a barn',
        width: 200,
      });
      // Its status page (on this server: the link is built from the site's address, which a test server has not).
      const status = new URL(link);
      await page.goto(`${s.origin}${status.pathname}${status.search}`);
      expect(await page.getByRole('status').innerText()).toBe('It waits for the editors.');
      expect(problems).toEqual([]);
      await context.close();
    },
  );

  it(
    'speaks French to a French browser, and its summary of errors takes the focus',
    { timeout: BUSY_MACHINE_MS },
    async () => {
      const { s, browser } = suite;
      const context = await browser.newContext({ locale: 'fr-FR', viewport: { width: 900, height: 1000 } });
      const page = await context.newPage();
      const problems = await watched(page);
      await page.goto(`${s.origin}/submit/`, { waitUntil: 'load' });
      expect(await page.locator('html').getAttribute('lang')).toBe('fr');
      expect(await page.locator('h1').innerText()).toBe('Proposer un événement');
      expect(await page.getByText('Je ne suis pas un robot').count()).toBeGreaterThan(0);

      await typeInto(page, 'f-title', 'Bal des vendanges');
      // Typed so that the fields read them alike in either order of their parts (the browser's own
      // language decides it, not the page's), 12 or 24 hours. The end comes before the start: the API
      // refuses it.
      await typeInto(page, 'f-start_date', '12092043');
      await typeInto(page, 'f-start_time', '1000P');
      await typeInto(page, 'f-end_time', '0800P');
      await typeInto(page, 'f-submitter_name', 'Inès Martin');
      await typeInto(page, 'f-submitter_email', 'ines.fr@example.org');
      await solved(page);
      await tabTo(page, 'f-send', 5);
      await page.keyboard.press('Enter');
      await page.locator('#problems').waitFor();
      expect(await focused(page)).toBe('problems');
      expect(await page.locator('#problems').innerText()).toContain('Merci de corriger ceci');
      expect(await page.locator('#e-end_date').innerText()).toContain('ne peut précéder le début');
      expect(await page.locator('#f-end_date').getAttribute('aria-invalid')).toBe('true');
      // What was typed is kept.
      expect(await page.locator('#f-title').inputValue()).toBe('Bal des vendanges');
      await page.screenshot({ path: 'test-artifacts/submission-form-errors-fr.png', fullPage: true });
      // The summary's line leads to the field.
      await page.keyboard.press('Tab');
      await page.keyboard.press('Enter');
      expect(page.url()).toMatch(/#f-end_date$/);
      expect(problems).toEqual([]);
      await context.close();
    },
  );
});
