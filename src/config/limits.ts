// The limits on what one caller's requests make the service do: how far series grow, what an
// account below editor may hold, what one upload or CalDAV request may hold.
import type { MediaLimits } from '../media/images.js';
import { nonNegativeInteger, positiveInteger } from './read.js';

/**
 * How far ahead a series' occurrences exist as rows, how far back (before now, or before the last
 * start of a series that ended), and how many one write or housekeeping round adds; an unpublished
 * series (draft, pending) gets only a glimpse of its dates, and housekeeping leaves it be until it is
 * published (services/series/window.ts).
 */
export interface RecurrenceLimits {
  horizonDays: number;
  pastDays: number;
  maxOccurrences: number;
  draftHorizonDays: number;
  draftMaxOccurrences: number;
  /**
   * What one CalDAV request may expand (caldav/query.ts ExpansionBudget): occurrences written,
   * steps of the rules' walks (each date ical.js checks against a rule), milliseconds of walking.
   */
  expandInstances: number;
  expandSteps: number;
  expandMs: number;
}

export const DEFAULT_RECURRENCE: RecurrenceLimits = {
  horizonDays: 730,
  pastDays: 365,
  maxOccurrences: 1000,
  draftHorizonDays: 31,
  draftMaxOccurrences: 50,
  // 200,000 steps are about two seconds of one core (ical.js checks a date in 7 to 13 microseconds);
  // an hourly series from 2004 takes as many to reach 2027.
  expandInstances: 5000,
  expandSteps: 200_000,
  expandMs: 3000,
};

/**
 * What one account below editor may hold or make (services/quotas.ts): creates per hour, series,
 * and occurrences of its series in all. 0 lifts a quota.
 */
export interface Quotas {
  createsPerHour: number;
  series: number;
  occurrences: number;
}

export const DEFAULT_QUOTAS: Quotas = { createsPerHour: 100, series: 20, occurrences: 5000 };

/**
 * Bounds on what one CalDAV read makes the service produce, whoever asks: hrefs a multiget may
 * name, responses and bytes one answer may hold, and answers past `bigBytes` (streamed) that one
 * caller (an account, else an address) may be sent at once by one instance.
 */
export interface CaldavLimits {
  maxHrefs: number;
  maxResponses: number;
  maxBytes: number;
  bigBytes: number;
  bigPerCaller: number;
}

/**
 * What one calendar object resource a CalDAV client PUTs may hold, refused up front past it: its
 * changed occurrences (each is an event written in the PUT's transaction), and the lines kept as
 * written (alarms, attendees, X- properties; dav_objects.extra), in number and in bytes.
 */
export interface CaldavWriteLimits {
  maxOverrides: number;
  maxKeptLines: number;
  maxKeptBytes: number;
  /** Distinct venues, organizers and categories its VEVENTs name, each a row the PUT may create. */
  maxNames: number;
}

export function recurrenceLimits(env: NodeJS.ProcessEnv): RecurrenceLimits {
  return {
    horizonDays: positiveInteger(env, 'RECURRENCE_HORIZON_DAYS', DEFAULT_RECURRENCE.horizonDays),
    pastDays: nonNegativeInteger(env, 'RECURRENCE_PAST_DAYS', DEFAULT_RECURRENCE.pastDays),
    maxOccurrences: positiveInteger(env, 'RECURRENCE_MAX_OCCURRENCES', DEFAULT_RECURRENCE.maxOccurrences),
    draftHorizonDays: positiveInteger(env, 'RECURRENCE_DRAFT_HORIZON_DAYS', DEFAULT_RECURRENCE.draftHorizonDays),
    draftMaxOccurrences: positiveInteger(
      env,
      'RECURRENCE_DRAFT_MAX_OCCURRENCES',
      DEFAULT_RECURRENCE.draftMaxOccurrences,
    ),
    expandInstances: positiveInteger(env, 'RECURRENCE_EXPAND_MAX_INSTANCES', DEFAULT_RECURRENCE.expandInstances),
    expandSteps: positiveInteger(env, 'RECURRENCE_EXPAND_MAX_STEPS', DEFAULT_RECURRENCE.expandSteps),
    expandMs: positiveInteger(env, 'RECURRENCE_EXPAND_MAX_MS', DEFAULT_RECURRENCE.expandMs),
  };
}

export function quotas(env: NodeJS.ProcessEnv): Quotas {
  return {
    createsPerHour: nonNegativeInteger(env, 'QUOTA_CREATES_PER_HOUR', DEFAULT_QUOTAS.createsPerHour),
    series: nonNegativeInteger(env, 'QUOTA_SERIES', DEFAULT_QUOTAS.series),
    occurrences: nonNegativeInteger(env, 'QUOTA_OCCURRENCES', DEFAULT_QUOTAS.occurrences),
  };
}

export function mediaLimits(env: NodeJS.ProcessEnv): MediaLimits {
  return {
    maxBytes: positiveInteger(env, 'MEDIA_MAX_MB', 25) * 1024 * 1024,
    // A 50-megapixel photo, or 200 frames of 500 by 500: about 200 MB decoded at most.
    maxPixels: positiveInteger(env, 'MEDIA_MAX_PIXELS', 50_000_000),
    // WordPress's threshold for scaling down a big upload (its "-scaled" file).
    maxSide: nonNegativeInteger(env, 'MEDIA_MAX_SIDE', 2560),
  };
}

export function caldavLimits(env: NodeJS.ProcessEnv): CaldavLimits {
  return {
    maxHrefs: positiveInteger(env, 'CALDAV_MAX_HREFS', 1000),
    maxResponses: positiveInteger(env, 'CALDAV_MAX_RESPONSES', 50_000),
    maxBytes: positiveInteger(env, 'CALDAV_MAX_ANSWER_KB', 32 * 1024) * 1024,
    bigBytes: positiveInteger(env, 'CALDAV_BIG_ANSWER_KB', 256) * 1024,
    bigPerCaller: positiveInteger(env, 'CALDAV_BIG_ANSWERS_PER_CALLER', 2),
  };
}

export function caldavWriteLimits(env: NodeJS.ProcessEnv): CaldavWriteLimits {
  return {
    maxOverrides: positiveInteger(env, 'CALDAV_MAX_OVERRIDES', 100),
    maxKeptLines: positiveInteger(env, 'CALDAV_MAX_KEPT_LINES', 2000),
    maxKeptBytes: positiveInteger(env, 'CALDAV_MAX_KEPT_KB', 256) * 1024,
    maxNames: positiveInteger(env, 'CALDAV_MAX_NAMES', 300),
  };
}
