// Public submissions (src/services/submissions/; docs/configuration.md, "Public submissions"): who
// may suggest events, and each defence of the open form, so that a site can loosen one that costs
// its people too much or tighten one that spam gets through.
import { ConfigError, nonNegativeInteger, oneOf, positiveInteger } from './read.js';

export const SUBMISSION_MODES = ['off', 'accounts', 'anyone'] as const;

export interface SubmissionSettings {
  /** Off (the default), signed-in accounts only, or anyone. */
  mode: (typeof SUBMISSION_MODES)[number];
  /** The proof of work: the largest counter a solver may have to try (on average half of it); 0: none. */
  powCost: number;
  /** Submissions one client address may send a day, and one e-mail address (UTC days). */
  perAddressPerDay: number;
  perEmailPerDay: number;
  /** The longest description taken (a 400 past it), and the most links before it is suspected spam. */
  maxLength: number;
  maxLinks: number;
  /** Words (or phrases) and domains that make a submission suspected spam, lower case. */
  blockedWords: string[];
  blockedDomains: string[];
  /** Origins of other sites that may show the form in a frame; none: only this site. */
  frameAncestors: string[];
  /** Submissions an instance works on at once (services/submissions/admission.ts). */
  atOnce: number;
  /** How long submissions suspected of spam are kept (with their events) for editors to look at. */
  spamDays: number;
  /** The most bytes of an image sent with a submission; 0: submissions take no image. */
  imageMaxBytes: number;
}

export function submissionSettings(env: NodeJS.ProcessEnv): SubmissionSettings {
  return {
    mode: oneOf(env, 'SUBMISSIONS', SUBMISSION_MODES, 'off'),
    powCost: nonNegativeInteger(env, 'SUBMISSION_POW_COST', 200_000),
    perAddressPerDay: positiveInteger(env, 'SUBMISSIONS_PER_ADDRESS', 10),
    perEmailPerDay: positiveInteger(env, 'SUBMISSIONS_PER_EMAIL', 5),
    maxLength: positiveInteger(env, 'SUBMISSION_MAX_LENGTH', 5000),
    maxLinks: nonNegativeInteger(env, 'SUBMISSION_MAX_LINKS', 3),
    blockedWords: list(env.SUBMISSION_BLOCKED_WORDS),
    blockedDomains: list(env.SUBMISSION_BLOCKED_DOMAINS).map((domain) => domain.replace(/^\.+/, '')),
    frameAncestors: origins(env.SUBMISSION_FRAME_ANCESTORS),
    spamDays: positiveInteger(env, 'SUBMISSION_SPAM_DAYS', 30),
    atOnce: positiveInteger(env, 'SUBMISSIONS_AT_ONCE', 2),
    imageMaxBytes: nonNegativeInteger(env, 'SUBMISSION_IMAGE_MAX_MB', 5) * 1024 * 1024,
  };
}

/** A comma-separated list, trimmed, lower case, without empty entries. */
const list = (value: string | undefined) =>
  (value ?? '')
    .split(',')
    .map((entry) => entry.trim().toLowerCase())
    .filter(Boolean);

/** Origins (scheme, host, port) as a Content-Security-Policy's frame-ancestors takes them. */
function origins(value: string | undefined): string[] {
  return list(value).map((entry) => {
    let url: URL | undefined;
    try {
      url = new URL(entry);
    } catch {
      url = undefined;
    }
    if (!url || !/^https?:$/.test(url.protocol) || url.origin !== entry.replace(/\/$/, '')) {
      throw new ConfigError(
        `SUBMISSION_FRAME_ANCESTORS must be origins such as https://www.example.org, comma-separated; got "${entry}"`,
      );
    }
    return url.origin;
  });
}
