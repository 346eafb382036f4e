// Keeps openapi/locales/*.po in step with the document: `npm run locales` adds the document's new
// texts (with an empty translation for the translator to fill in) and drops texts it no longer has.
// `--check` changes nothing and fails when a text has no translation in some language.
import path from 'node:path';
import fs from 'node:fs';
import { documentTexts, LANGUAGES, readTranslations, updatePo } from './lib/translate.mjs';

const root = path.resolve(import.meta.dirname, '..');
const document = JSON.parse(fs.readFileSync(path.join(root, 'generated', 'openapi.json'), 'utf8'));

if (process.argv.includes('--check')) {
  const texts = documentTexts(document);
  let missing = 0;
  for (const language of LANGUAGES) {
    const translations = readTranslations(root, language);
    for (const text of texts.filter((t) => !translations.has(t))) {
      missing += 1;
      console.error(`${language}: no translation for ${JSON.stringify(text.slice(0, 80))}`);
    }
  }
  if (missing) {
    console.error(`${missing} texts need a translation: run npm run locales, then fill in openapi/locales/*.po.`);
    process.exit(1);
  }
} else {
  for (const language of LANGUAGES) updatePo(root, language, document);
  console.log(`Updated ${LANGUAGES.map((l) => `openapi/locales/${l}.po`).join(', ')}`);
}
