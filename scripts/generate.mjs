// Writes generated/openapi.json (the bundle the server and tests load) and generated/api.d.ts (types)
// from openapi/. With --check, fails when what is committed differs from what the sources give.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { inlineRequestBodies } from './lib/request-bodies.mjs';
import { describeReshapedAnswers } from './lib/reshaped-answers.mjs';

const check = process.argv.includes('--check');
const root = path.resolve(import.meta.dirname, '..');
const outDir = check ? fs.mkdtempSync(path.join(os.tmpdir(), 'generated-')) : path.join(root, 'generated');
const bin = (name) => path.join(root, 'node_modules', '.bin', name);
const run = (cmd, args) => execFileSync(bin(cmd), args, { cwd: root, stdio: 'pipe' });

// The document's version is the service's: a release changes both, or neither.
const { version } = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8'));

const bundle = path.join(outDir, 'openapi.json');
const types = path.join(outDir, 'api.d.ts');
run('redocly', ['bundle', 'openapi/openapi.yaml', '--output', bundle]);
// What tools read from the bundle besides the hand-written document: scripts/lib/*.mjs say why.
const forTools = inlineRequestBodies(describeReshapedAnswers(JSON.parse(fs.readFileSync(bundle, 'utf8'))));
fs.writeFileSync(bundle, JSON.stringify(forTools, null, 2) + '\n');
run('openapi-typescript', [
  bundle,
  '--output',
  types,
  '--redocly',
  path.join(import.meta.dirname, 'redocly.types.yaml'),
]);

const documented = JSON.parse(fs.readFileSync(bundle, 'utf8')).info.version;
if (documented !== version) {
  console.error(`openapi/openapi.yaml says version ${documented}, package.json ${version}: make them one.`);
  process.exit(1);
}

if (check) {
  const stale = ['openapi.json', 'api.d.ts'].filter((file) => {
    const committed = path.join(root, 'generated', file);
    return (
      !fs.existsSync(committed) ||
      fs.readFileSync(committed, 'utf8') !== fs.readFileSync(path.join(outDir, file), 'utf8')
    );
  });
  fs.rmSync(outDir, { recursive: true, force: true });
  if (stale.length) {
    console.error(`generated/ is stale (${stale.join(', ')}): run npm run generate and commit the result.`);
    process.exit(1);
  }
}
