// The documentation page in a real browser (Debian's headless Chromium, driven by playwright-core):
// served by the running service, it must render the operations of every tag with no network beyond
// the service itself. Screenshots go to test-artifacts/.
import { describe, expect, it } from 'vitest';
import { loadDocument, localizedDocument } from '../../src/openapi.js';
import { chromiumAvailable, serverAndBrowser } from '../setup/chromium.js';

describe.runIf(chromiumAvailable)('the documentation page in Chromium', () => {
  const suite = serverAndBrowser();

  it.each([
    ['', 'en'],
    ['/fr', 'fr'],
  ])(
    'renders every operation of every tag (locale %s)',
    async (locale, language) => {
      const { s, browser } = suite;
      const document = language === 'en' ? (loadDocument() as any) : (localizedDocument(language) as any);
      const page = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
      const outside: string[] = [];
      const policyViolations: string[] = [];
      page.on('console', (message) => {
        if (/Content Security Policy/i.test(message.text())) policyViolations.push(message.text());
      });
      await page.route('**/*', (route) => {
        const url = new URL(route.request().url());
        if (url.protocol === 'data:' || url.protocol === 'blob:' || url.hostname === '127.0.0.1')
          return route.continue();
        outside.push(url.href);
        return route.abort();
      });

      const url = `${s.origin}${locale}/wp-json/calendar/events/v1/doc`;
      const response = await page.goto(url, { waitUntil: 'load' });
      expect(response?.status()).toBe(200);
      expect(response?.headers()['content-type']).toMatch(/^text\/html/);
      await page.screenshot({ path: `test-artifacts/doc-page-${language}.png` });

      // Every operation of every tag opens to its own section, headed by its summary.
      const operations = Object.values(document.paths as Record<string, Record<string, any>>).flatMap((item) =>
        ['get', 'post', 'put', 'patch', 'delete'].filter((m) => item[m]).map((m) => item[m]),
      );
      const anchor = (operation: any) => `#/${operation.tags[0].toLowerCase()}/${operation.operationId.toLowerCase()}`;
      for (const tag of document.tags as { name: string }[]) {
        const ofTag = operations.filter((o) => o.tags[0] === tag.name);
        expect(ofTag.length, tag.name).toBeGreaterThan(0);
        for (const operation of ofTag) {
          await page.goto(`${url}${anchor(operation)}`);
          const exactly = new RegExp(`^${operation.summary.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`);
          await page.locator('h1, h2').filter({ hasText: exactly }).first().waitFor({ timeout: 15_000 });
        }
      }
      expect(await page.locator('html').getAttribute('lang')).toBe(language);
      expect(await page.content()).toContain(`${s.origin}${locale}/wp-json/calendar/events/v1`);
      expect(outside).toEqual([]);
      expect(policyViolations).toEqual([]);
      // Rules of form are said in words: no raw regular expression is shown to readers.
      expect(await page.locator('body').innerText()).not.toMatch(/\^\[|\\u0000/);
      // No badge with a broken logo in the sidebar.
      expect(await page.locator('a[href="https://redocly.com/redoc/"]').isVisible()).toBe(false);
      await page.close();
    },
    // About 0.6 s an operation on an idle machine, and 60 operations: room for a busy one.
    180_000,
  );
});
