// The site root points a visitor to the API and its documentation; without a locale segment the
// documentation speaks the language the client accepts.
import { expect, it } from 'vitest';
import { describeEachDatabase } from '../setup/each-database.js';

describeEachDatabase(
  'the site root and the languages of the documentation',
  (s) => {
    it('answers / with where the API, its documentation and the health probe are, as JSON or as a page', async () => {
      const json = await fetch(`${s.origin}/`);
      expect(json.status).toBe(200);
      const links = (await json.json()) as Record<string, string>;
      expect(links).toMatchObject({
        api: `${s.origin}/wp-json/`,
        namespace: s.base,
        documentation: `${s.base}/doc`,
        health: `${s.origin}/healthz`,
      });
      for (const href of [links.api, links.namespace, links.documentation, links.health]) {
        expect((await fetch(href)).status, href).toBe(200);
      }
      const page = await fetch(`${s.origin}/`, { headers: { accept: 'text/html' } });
      expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
      const html = await page.text();
      expect(html).toContain(`href="${s.base}/doc"`);
      expect(html).toContain('<html lang="en">');
      // Elsewhere, unknown paths are still 404.
      expect((await fetch(`${s.origin}/nowhere`)).status).toBe(404);
    });

    it('serves the documentation in the language of Accept-Language when the path names none', async () => {
      const english = await s.get('/doc');
      const french = await s.get('/doc', { headers: { 'accept-language': 'fr-CA, fr;q=0.9, en;q=0.5' } });
      expect(french.headers.get('content-language')).toBe('fr');
      expect(french.headers.get('vary')).toContain('Accept-Language');
      expect(french.body.info.description).not.toBe(english.body.info.description);
      const page = await s.get('/doc', { headers: { accept: 'text/html', 'accept-language': 'de' } });
      expect(page.headers.get('content-language')).toBe('de');
      const index = await s.get('', { headers: { 'accept-language': 'es' } });
      expect(index.headers.get('content-language')).toBe('es');
      // A language we do not have, or none, gives English; a locale segment wins over the header.
      expect((await s.get('/doc', { headers: { 'accept-language': 'ja' } })).headers.get('content-language')).toBe(
        'en',
      );
      const segment = await s.get('/doc', { locale: '/de', headers: { 'accept-language': 'fr' } });
      expect(segment.headers.get('content-language')).toBe('de');
      expect(segment.headers.get('vary') ?? '').not.toContain('Accept-Language');
    });
  },
  { kinds: ['pglite'] },
);
