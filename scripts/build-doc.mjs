// Builds what /doc serves in each language into generated/doc/ (not committed; `npm ci` runs this
// after install): openapi.<lang>.json, the document with its descriptions translated from
// openapi/locales/<lang>.po, and doc.<lang>.html, its Redoc page rendered by @redocly/cli with every
// script and style inlined, so that it renders with no network. The page's server URL is a
// placeholder that the service replaces with the base URL of each request. Redoc's telemetry is off:
// readers' browsers report to nobody.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { addCodeSamples } from './lib/code-samples.mjs';
import { LANGUAGES, readTranslations, translateDocument } from './lib/translate.mjs';

const SERVER_PLACEHOLDER = 'https://calendar-events.invalid/base-url';
/** The base URL the document's examples and samples are written with (its `servers`). */
const WRITTEN_BASE = 'http://127.0.0.1:8080/wp-json/calendar/events/v1';
const REDOC_BADGE = 'https://redocly.com/redoc/';
const NO_IMAGE = 'data:image/svg+xml,%3Csvg%20xmlns=%22http://www.w3.org/2000/svg%22/%3E';

const root = path.resolve(import.meta.dirname, '..');
const outDir = path.join(root, 'generated', 'doc');
const bundle = JSON.parse(fs.readFileSync(path.join(root, 'generated', 'openapi.json'), 'utf8'));
fs.mkdirSync(outDir, { recursive: true });

for (const language of ['en', ...LANGUAGES]) {
  const translated = language === 'en' ? bundle : translateDocument(bundle, readTranslations(root, language));
  const document = addCodeSamples(structuredClone(translated), WRITTEN_BASE);
  const json = path.join(outDir, `openapi.${language}.json`);
  fs.writeFileSync(json, JSON.stringify(document, null, 2) + '\n');

  const forPage = path.join(outDir, `page-source.${language}.json`);
  // On the page every URL of the service, in examples and samples too, is the reader's (src/openapi.ts).
  const pageSource = JSON.stringify({ ...document, servers: [{ url: SERVER_PLACEHOLDER }] }).replaceAll(
    WRITTEN_BASE,
    SERVER_PLACEHOLDER,
  );
  fs.writeFileSync(forPage, pageSource);
  const html = path.join(outDir, `doc.${language}.html`);
  execFileSync(
    path.join(root, 'node_modules', '.bin', 'redocly'),
    ['build-docs', forPage, '--inlineBundle', '--output', html],
    { cwd: root, stdio: 'pipe' },
  );
  fs.rmSync(forPage);
  const built = fs.readFileSync(html, 'utf8');
  // The CLI writes `disableTelemetry: false` into the page whatever it is told; the page's own option wins.
  const TELEMETRY_ON = /(const __redoc_options = \{[^\n]*?)"disableTelemetry":false/;
  if (!TELEMETRY_ON.test(built)) throw new Error('Redoc page options changed: check that its telemetry is still off.');
  const page = built
    .replace(TELEMETRY_ON, '$1"disableTelemetry":true')
    .replace(/<html lang="[^"]*">/, `<html lang="${language}">`)
    // Redoc's "API docs by" badge would fetch its logo from Redocly's CDN, which the page may not reach
    // (it loads nothing from elsewhere), and showed a broken image: the logo goes, and the badge with it.
    .replaceAll(/https:\/\/cdn\.redoc\.ly\/redoc\/logo-mini(?:-full)?\.svg/g, NO_IMAGE)
    .replace('</head>', `<style>a[href="${REDOC_BADGE}"] { display: none; }</style></head>`);
  if (!page.includes(`href="${REDOC_BADGE}"`)) throw new Error("Redoc's badge changed: check that it is still hidden.");
  fs.writeFileSync(html, page);
}
// What the service needs to know about these files.
const manifest = { languages: ['en', ...LANGUAGES], serverPlaceholder: SERVER_PLACEHOLDER };
fs.writeFileSync(path.join(outDir, 'manifest.json'), JSON.stringify(manifest, null, 2) + '\n');
console.log(`Built generated/doc/ for ${['en', ...LANGUAGES].join(', ')}`);
