// What a service call knows of the request it serves, built once per request and passed first to
// every service function. Every door builds it with `serviceContext`, so that the REST API, the
// public pages, CalDAV and the importer all read dates in the same zone and hold callers to the
// same series limits and quotas, those of the configuration.
import type { Caller } from '../auth/roles.js';
import type { Config } from '../config.js';
import type { Quotas, RecurrenceLimits } from '../config/limits.js';
import type { MailSettings } from '../config/mail.js';
import type { SubmissionSettings } from '../config/submissions.js';
import type { PrismaClient } from '../db/client.js';
import type { Precondition } from '../domain/posts.js';

export interface ServiceContext {
  /** The database, outside any transaction; writes open their own. */
  db: PrismaClient;
  /** Who is calling: a signed-in user, or null when anonymous. */
  caller: Caller;
  /** The site's IANA time zone, in which dates without an offset are read. */
  siteZone: string;
  /**
   * When the request arrived: the instant "now" means to a read (the default list window,
   * `only_with_upcoming`). Writes stamp modification times when they write, after any wait for a lock.
   */
  now: Date;
  /** What If-Match requires of the object a write changes, when the client sent it. */
  precondition?: Precondition;
  /** The configured horizon and limit of series (config/limits.ts); the defaults when not given. */
  recurrence?: RecurrenceLimits;
  /** What an account below editor may hold or make (services/quotas.ts); the defaults when not given. */
  quotas?: Quotas;
  /** Mail (config/mail.ts): RSVP without an account needs it. None: no mail is sent. */
  mail?: MailSettings;
  /** Public submissions (config/submissions.ts); none: off. */
  submissions?: SubmissionSettings;
}

/** What the configuration gives every context. */
export type ContextSettings = Pick<Config, 'siteTimezone' | 'recurrence' | 'quotas'> &
  Partial<Pick<Config, 'mail' | 'submissions'>>;

/** What differs from one request to the next. */
export interface RequestParts {
  db: PrismaClient;
  caller: Caller;
  /**
   * When the request arrived, asked only when a service reads it: the REST API's answers note
   * whether they read the time (http/answer-cache.ts requestTime). Unset: when the context was built.
   */
  now?: () => Date;
  precondition?: Precondition;
}

export function serviceContext(
  settings: ContextSettings,
  { db, caller, now, precondition }: RequestParts,
): ServiceContext {
  const built = new Date();
  const arrived = now ?? (() => built);
  return {
    db,
    caller,
    siteZone: settings.siteTimezone,
    get now() {
      return arrived();
    },
    precondition,
    recurrence: settings.recurrence,
    quotas: settings.quotas,
    mail: settings.mail,
    submissions: settings.submissions,
  };
}
