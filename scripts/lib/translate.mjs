// The human-readable texts of the OpenAPI document (every `description`, `summary` and tag
// `x-displayName` outside examples) and their translations, kept in gettext PO files under
// openapi/locales/ so that a translator can edit them with the usual tools: msgid is the English
// text, msgstr its translation.
import fs from 'node:fs';
import path from 'node:path';
import PO from 'pofile';

export const LANGUAGES = ['fr', 'de', 'es'];
const TEXT_KEYS = new Set(['description', 'summary', 'x-displayName']);

/** Calls `visit(text, replace)` for every translatable text of the document, in document order. */
function eachText(node, visit, inExample = false) {
  if (Array.isArray(node)) return node.forEach((item) => eachText(item, visit, inExample));
  if (!node || typeof node !== 'object') return;
  for (const [key, value] of Object.entries(node)) {
    if (TEXT_KEYS.has(key) && typeof value === 'string' && !inExample) {
      visit(value, (translated) => (node[key] = translated));
    } else {
      eachText(value, visit, inExample || key === 'examples' || key === 'example');
    }
  }
}

/** The distinct texts of the document, in the order they first appear. */
export function documentTexts(document) {
  const texts = new Set();
  eachText(document, (text) => texts.add(text));
  return [...texts];
}

export function poPath(root, language) {
  return path.join(root, 'openapi', 'locales', `${language}.po`);
}

/** msgid → msgstr of one language; untranslated entries are left out. */
export function readTranslations(root, language) {
  const po = PO.parse(fs.readFileSync(poPath(root, language), 'utf8'));
  return new Map(po.items.filter((item) => item.msgstr[0]).map((item) => [item.msgid, item.msgstr[0]]));
}

/** A copy of the document in one language; texts without a translation stay in English. */
export function translateDocument(document, translations) {
  const copy = structuredClone(document);
  eachText(copy, (text, replace) => translations.has(text) && replace(translations.get(text)));
  return copy;
}

/**
 * Rewrites a language's PO file for the document's current texts: translations of texts that are
 * still there are kept, new texts get an empty msgstr, texts gone from the document are dropped.
 */
export function updatePo(root, language, document) {
  const file = poPath(root, language);
  const known = fs.existsSync(file) ? readTranslations(root, language) : new Map();
  const po = new PO();
  po.headers = {
    Language: language,
    'Content-Type': 'text/plain; charset=UTF-8',
    'MIME-Version': '1.0',
    'Content-Transfer-Encoding': '8bit',
  };
  po.comments = [
    `Descriptions of the Calendar Events Service's OpenAPI document in "${language}".`,
    'msgid: the English text; msgstr: its translation. Regenerate the list with npm run locales.',
  ];
  for (const text of documentTexts(document)) {
    const item = new PO.Item();
    item.msgid = text;
    item.msgstr = [known.get(text) ?? ''];
    po.items.push(item);
  }
  fs.writeFileSync(file, po.toString() + '\n');
}
