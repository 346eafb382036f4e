// The README's client-generation command, run as written from the repository root (only the
// service's address and the output folder differ): it must write the file it names, and leave the
// repository's own generated/api.d.ts alone (the root redocly.yaml once made it write that instead).
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inProject } from '../../src/project-root.js';
import { startServer, type TestServer } from '../setup/server.js';

describe("the README's client generation", () => {
  let s: TestServer;
  let dir: string;
  beforeAll(async () => {
    s = await startServer('pglite');
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'readme-client-'));
  });
  afterAll(async () => {
    await s?.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('writes the named file from the running service, and nothing else', async () => {
    const readme = fs.readFileSync(inProject('README.md'), 'utf8');
    const command = /^npx openapi-typescript (\S+) -o (\S+)$/m.exec(readme);
    expect(command, 'the README shows the command').not.toBeNull();
    const [, url, output] = command ?? [];
    const target = path.join(dir, output);
    const ours = inProject('generated', 'api.d.ts');
    const before = fs.statSync(ours).mtimeMs;
    // Not execFileSync: the service answering the command runs in this process.
    await promisify(execFile)(
      inProject('node_modules', '.bin', 'openapi-typescript'),
      [url.replace('http://127.0.0.1:8080/wp-json/calendar/events/v1', s.base), '-o', target],
      { cwd: inProject() },
    );
    const types = fs.readFileSync(target, 'utf8');
    expect(types).toContain('"/events/{id}"');
    expect(types).toContain('listEvents');
    expect(fs.statSync(ours).mtimeMs).toBe(before);
  }, 60_000);
});
