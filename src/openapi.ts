// The bundled document (generated/openapi.json) and its translations and rendered pages
// (generated/doc/, built by scripts/build-doc.mjs), each read once.
import fs from 'node:fs';
import type { Document } from 'openapi-backend';
import { inProject } from './project-root.js';

const generated = (file: string) => inProject('generated', file);
const read = (file: string) => fs.readFileSync(generated(file), 'utf8');

let bundle: Document | undefined;

/** The document as written, in English: what requests are validated against. */
export function loadDocument(): Document {
  bundle ??= JSON.parse(read('openapi.json')) as Document;
  return bundle;
}

/** The role an operation of the document needs (`x-required-role`), if any. */
export function requiredRole(operationId: string): string | undefined {
  if (!roles) {
    roles = new Map();
    for (const item of Object.values(loadDocument().paths ?? {})) {
      for (const operation of Object.values(item ?? {})) {
        const op = operation as { operationId?: string; 'x-required-role'?: string } | null; // YAML: `get: ~` is null
        if (op?.operationId) roles.set(op.operationId, op['x-required-role']);
      }
    }
  }
  return roles.get(operationId);
}

/** What maxLengthOf reads of a schema. */
interface Described {
  maxLength?: number;
  $ref?: string;
  properties?: Record<string, Described | undefined>;
}

/**
 * The longest value the document lets a field of one of its schemas hold (`maxLength`), for the doors
 * that shorten what they take from elsewhere (the import of a calendar file) rather than refuse it.
 */
export function maxLengthOf(schema: string, property: string): number {
  const schemas = (loadDocument().components?.schemas ?? {}) as Partial<Record<string, Described>>;
  const field = schemas[schema]?.properties?.[property];
  // A limit beside a `$ref` is the field's own and counts first (`TermFields.name`); else the field
  // may be one of the small named schemas (`StatusReason`), which holds the limit.
  const named = field?.$ref ? schemas[field.$ref.slice(field.$ref.lastIndexOf('/') + 1)] : undefined;
  const limit = field?.maxLength ?? named?.maxLength;
  if (limit === undefined) throw new Error(`The document gives ${schema}.${property} no maxLength.`);
  return limit;
}

// Read once: serializers ask for every term of a list.
let roles: Map<string, string | undefined> | undefined;

interface Manifest {
  languages: string[];
  serverPlaceholder: string;
}

let manifest: Manifest | undefined;

function docManifest(): Manifest {
  if (!manifest) {
    try {
      manifest = JSON.parse(read('doc/manifest.json')) as Manifest;
    } catch {
      throw new Error('generated/doc/ is missing: run npm run build:doc (npm ci runs it after install).');
    }
  }
  return manifest;
}

/** The language served for a locale tag: `fr-CA` → `fr`; one we do not have → `en`. */
/** The languages the document is translated into, English first. */
export const documentLanguages = (): string[] => docManifest().languages;

export function documentLanguage(tag: string): string {
  const language = tag.toLowerCase().split(/[-_]/)[0];
  return docManifest().languages.includes(language) ? language : 'en';
}

const translated = new Map<string, Document>();

/** The document with its descriptions in `language` (one of the manifest's). */
export function localizedDocument(language: string): Document {
  let document = translated.get(language);
  if (!document) {
    document = JSON.parse(read(`doc/openapi.${documentLanguage(language)}.json`)) as Document;
    translated.set(language, document);
  }
  return document;
}

const pages = new Map<string, string>();

/** The rendered page in `language`, its server URL set to `serverUrl`. */
export function documentPage(language: string, serverUrl: string): string {
  let page = pages.get(language);
  if (page === undefined) {
    page = read(`doc/doc.${documentLanguage(language)}.html`);
    pages.set(language, page);
  }
  return page.replaceAll(docManifest().serverPlaceholder, inertUrl(serverUrl));
}

/**
 * The URL comes from the request's Host header and lands in a script and in HTML text: everything
 * but the plain characters of a URL is percent-encoded, so it can close no string and open no tag.
 */
const inertUrl = (url: string) => url.replace(/[^A-Za-z0-9._~:/@%[\]-]/g, (c) => encodeURIComponent(c));

/** Fails at start, not at the first request, when the built documentation is missing. */
export function assertDocumentationBuilt(): void {
  for (const language of docManifest().languages) {
    if (!fs.existsSync(generated(`doc/doc.${language}.html`)))
      throw new Error(`generated/doc/doc.${language}.html is missing: run npm run build:doc.`);
  }
}
