// The bundled document (generated/openapi.json), read once.
import fs from 'node:fs';
import type { Document } from 'openapi-backend';

const DOCUMENT_PATH = new URL('../generated/openapi.json', import.meta.url);
let cached: Document | undefined;

export function loadDocument(): Document {
  cached ??= JSON.parse(fs.readFileSync(DOCUMENT_PATH, 'utf8')) as Document;
  return cached;
}
