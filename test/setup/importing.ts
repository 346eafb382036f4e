// An iCalendar file imported in-process as one account would import it (scripts/import.ts builds the
// same run), quietly, for the tests that compare the importer with the other doors.
import type { Role } from '../../src/auth/roles.js';
import { loadConfig } from '../../src/config.js';
import { importIcs, importTec } from '../../src/import/commands.js';
import type { FetchOptions } from '../../src/import/fetch-source.js';
import { plainProgress } from '../../src/import/progress.js';
import type { Summary } from '../../src/import/run-import.js';
import type { TestServer } from './server.js';

export function importCalendarAs(s: TestServer, role: Role, text: string, concurrency = 1): Promise<Summary> {
  const user = s.users[role];
  return importIcs(
    {
      ctx: { db: s.db.prisma, caller: { id: user.id, login: user.login, role }, siteZone: 'UTC', now: new Date() },
      dryRun: false,
      concurrency,
    },
    text,
    plainProgress({ write: () => undefined }),
    new AbortController().signal,
  );
}

/**
 * A site of The Events Calendar imported as its administrator here would import it, with the site's
 * credentials, retries made short, and its images brought into the media library when asked.
 */
export function importSite(
  s: TestServer,
  site: { base: string; credentials: { user: string; password: string } },
  options: { base?: string; concurrency?: number; images?: boolean; fetch?: FetchOptions } = {},
): Promise<Summary> {
  const user = s.users.administrator;
  return importTec(
    {
      ctx: {
        db: s.db.prisma,
        caller: { id: user.id, login: user.login, role: 'administrator' },
        siteZone: 'UTC',
        now: new Date(),
      },
      dryRun: false,
      concurrency: options.concurrency ?? 1,
      ...(options.images ? { images: { limits: loadConfig({}).media, known: new Map() } } : {}),
    },
    {
      base: options.base ?? site.base,
      user: site.credentials.user,
      appPassword: site.credentials.password,
      fetch: { minTimeoutMs: 1, retries: 1, ...options.fetch },
    },
    plainProgress({ write: () => undefined }),
    new AbortController().signal,
  );
}

/** A calendar of one VEVENT with this UID, at a fixed time in 2042 unless `lines` gives DTSTART and DTEND. */
export function vcalendar(uid: string, lines: string[]): string {
  const timed = lines.some((line) => line.startsWith('DTSTART'));
  return [
    'BEGIN:VCALENDAR',
    'VERSION:2.0',
    'PRODID:-//tests//EN',
    'BEGIN:VEVENT',
    `UID:${uid}`,
    'DTSTAMP:20260101T000000Z',
    ...(timed ? [] : ['DTSTART:20420601T180000Z', 'DTEND:20420601T200000Z']),
    ...lines,
    'END:VEVENT',
    'END:VCALENDAR',
    '',
  ].join('\r\n');
}
