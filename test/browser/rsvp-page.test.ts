// The RSVP page in Chromium, as a person without an account meets it: the link of the confirmation
// message opens a page that changes nothing until its button is pressed (with the keyboard), then
// says where the RSVP stands and gives the link that cancels it; the page follows the browser's
// language. The message comes through a real SMTP server on loopback. Screenshots go to
// test-artifacts/.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { MailSender } from '../../src/mail/sender.js';
import { chromiumAvailable, serverAndBrowser } from '../setup/chromium.js';
import { startSmtp, startTestSender } from '../setup/smtp.js';

const smtp = await startSmtp();
afterAll(() => smtp.close());

describe.runIf(chromiumAvailable)('the RSVP page in Chromium', () => {
  const suite = serverAndBrowser({ SMTP_URL: smtp.url });
  let sender: MailSender;
  beforeAll(() => {
    sender = startTestSender(suite.s, smtp.url);
  });
  afterAll(() => sender.stop());

  it('confirms by its button, not by the link, and cancels from the link it gives', async () => {
    const { s, browser } = suite;
    const event = await s.post('/events', {
      title: 'Open rehearsal',
      start_date: '2043-09-10 18:00',
      end_date: '2043-09-10 20:00',
      status: 'publish',
      rsvp: { open: true, anonymous: true, capacity: 30 },
    });
    const asked = await s.post(
      `/events/${event.body.id}/rsvps`,
      { name: 'Inès', email: 'ines@example.org' },
      { as: null },
    );
    expect(asked.status).toBe(202);
    const mail = await smtp.next('ines@example.org', 'Confirm your RSVP');
    const line = (mail.text ?? '').split('\n').find((l) => l.startsWith('Confirm:')) ?? '';
    const link = line.slice(line.indexOf('http'));

    const context = await browser.newContext({ locale: 'fr-FR' });
    const page = await context.newPage();
    const opened = await page.goto(link, { waitUntil: 'load' });
    expect(opened?.status()).toBe(200);
    expect(await page.locator('html').getAttribute('lang')).toBe('fr');
    await page.screenshot({ path: 'test-artifacts/rsvp-confirm-page.png' });
    expect((await s.get(`/events/${event.body.id}`, { as: null })).body.rsvp.going).toBe(0);

    // Keyboard only: the button is the page's first control.
    await page.keyboard.press('Tab');
    const button = page.getByRole('button', { name: 'Confirmer ma réponse' });
    await expect
      .poll(() =>
        button.evaluate(
          (el) => el === (globalThis as unknown as { document: { activeElement: unknown } }).document.activeElement,
        ),
      )
      .toBe(true);
    await page.keyboard.press('Enter');
    await page.getByRole('status').waitFor();
    expect(await page.getByRole('status').innerText()).toContain('Vous participez');
    await page.screenshot({ path: 'test-artifacts/rsvp-confirmed-page.png' });
    expect((await s.get(`/events/${event.body.id}`, { as: null })).body.rsvp.going).toBe(1);

    // The link it gives leads to the RSVP, whose button cancels it.
    await page.locator('a[href*="token="]').click();
    await page.waitForLoadState('load');
    await page.getByRole('button', { name: 'Annuler ma réponse' }).click();
    await page.getByText('Votre réponse est annulée.').waitFor();
    expect(await page.getByRole('status').innerText()).toBe('Votre réponse est annulée.');
    expect((await s.get(`/events/${event.body.id}`, { as: null })).body.rsvp.going).toBe(0);
    await context.close();
  });
});
