// What a service call knows of the request it serves, built once per request (app.ts toCall) and
// passed first to every service function.
import type { Caller } from '../auth/roles.js';
import type { Quotas, RecurrenceLimits } from '../config/limits.js';
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
}
