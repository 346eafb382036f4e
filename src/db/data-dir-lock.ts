// One process per embedded database directory. PGlite has no lock of its own: a second process on
// the same directory (a second `npm start`, `npm run users` while the service runs) opened it too,
// and whichever wrote last won; a user created by the second was gone after the next restart.
// The owner writes its PID into a lock file created atomically (O_EXCL); a lock whose process is
// gone (killed, crashed) is stale and taken over.
import fs from 'node:fs';
import path from 'node:path';

export class DataDirLockedError extends Error {
  constructor(
    readonly dataDir: string,
    readonly pid: number,
  ) {
    super(
      `The embedded database in ${dataDir} is in use by process ${pid} (the service?). ` +
        'Only one process may open it: stop that process first, or use PostgreSQL (DATABASE_URL). ' +
        `If process ${pid} is not the service, remove ${path.join(dataDir, LOCK_FILE)}.`,
    );
  }
}

const LOCK_FILE = 'calendar-service.lock';

/** Takes the directory for this process; answers the function that gives it back. */
export function lockDataDir(dataDir: string): () => void {
  const file = path.join(dataDir, LOCK_FILE);
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      fs.writeFileSync(file, String(process.pid), { flag: 'wx' });
      return () => {
        if (ownerOf(file) === process.pid) fs.rmSync(file, { force: true });
      };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
    const owner = ownerOf(file);
    if (owner !== undefined && owner !== process.pid && alive(owner)) throw new DataDirLockedError(dataDir, owner);
    // Stale (its process is gone) or unreadable: take it over.
    fs.rmSync(file, { force: true });
  }
  throw new Error(`Could not take the lock ${file}`);
}

function ownerOf(file: string): number | undefined {
  try {
    const pid = Number(fs.readFileSync(file, 'utf8').trim());
    return Number.isInteger(pid) && pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    // EPERM: it exists, under another user.
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}
