// The service as its own process, as `npm start` runs it, for tests that signal or kill it.
import { type ChildProcess, spawn } from 'node:child_process';
import { createServer } from 'node:net';

export const freePort = () =>
  new Promise<number>((resolve) => {
    const probe = createServer().listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => {
        resolve(port);
      });
    });
  });

/**
 * Starts src/server.ts with `env` on `port` and resolves once /readyz answers 200. Starting takes
 * about 6 s on an idle 2-core machine (tsx compiles the sources, PGlite starts and migrates) and
 * more than 15 s while other test files keep both cores busy, hence the generous minute.
 */
export async function startProcess(port: number, env: Record<string, string>): Promise<ChildProcess> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/server.ts'], {
    env: { ...process.env, PORT: String(port), LOG_LEVEL: 'warn', ...env },
    stdio: 'ignore',
  });
  for (let i = 0; i < 600; i++) {
    if (
      await fetch(`http://127.0.0.1:${port}/readyz`).then(
        (r) => r.ok,
        () => false,
      )
    )
      return child;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  child.kill('SIGKILL');
  throw new Error('the service did not become ready');
}
