// The project's directory, which holds the document, the migrations and the generated files: found
// by walking up to package.json, so that the same code finds them when tsx runs it from src/ and
// when it runs compiled from dist/src/ (`npm start`).
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

function findRoot(start: string): string {
  for (let dir = start; ; dir = path.dirname(dir)) {
    if (fs.existsSync(path.join(dir, 'package.json'))) return dir;
    if (path.dirname(dir) === dir) throw new Error(`no package.json above ${start}`);
  }
}

export const PROJECT_ROOT = findRoot(path.dirname(fileURLToPath(import.meta.url)));

export const inProject = (...parts: string[]) => path.join(PROJECT_ROOT, ...parts);
