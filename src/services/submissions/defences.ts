// The defences of an open form (docs/decisions.md, "Public submissions"), each configured in
// config/submissions.ts: what trips one either refuses the submission (a limit of the day, a
// duplicate) or keeps it as suspected spam, apart from the queue, answered as any other so that
// nobody learns what trips them. Text is scanned in linear time, without regular expressions that
// can backtrack.
import { createHash } from 'node:crypto';
import type { SubmissionSettings } from '../../config/submissions.js';
import type { Driver } from '../../db/driver.js';
import { QuotaExceeded } from '../../domain/errors.js';

export type SpamReason = 'honeypot' | 'links' | 'blocked_word' | 'blocked_domain';

/** What a submission says, for the defences to read: every text it sends, and the addresses it names. */
export interface SubmittedText {
  texts: string[];
  /** Fields that hold one address each (web sites, e-mail addresses): their domains count, not as links. */
  addresses: string[];
  honeypot: string | undefined;
}

/** Where a token that names a place on the web starts: `http://`, `https://`, `www.`. */
const LINK_STARTS = ['http://', 'https://', 'www.'];

/** Characters that end a link in text or in HTML (an attribute's quote, a tag's bracket). */
const LINK_ENDS = new Set([
  ' ',
  '\t',
  '\n',
  '\r',
  '"',
  "'",
  '<',
  '>',
  '(',
  ')',
  '[',
  ']',
  '{',
  '}',
  '\\',
  '|',
  '^',
  '`',
]);

/** The links in `texts`, in order: every token that starts as a web address does, up to what ends it. */
export function linksIn(texts: string[]): string[] {
  const links: string[] = [];
  for (const text of texts) {
    const lower = text.toLowerCase();
    let at = 0;
    while (at < lower.length) {
      const start = nextLinkStart(lower, at);
      if (start < 0) break;
      let end = start;
      while (end < text.length && !LINK_ENDS.has(text[end])) end += 1;
      // A link ends before the punctuation that ends its sentence.
      while (end > start && '.,;:!?'.includes(text[end - 1])) end -= 1;
      links.push(text.slice(start, end));
      at = Math.max(end, start + 1);
    }
  }
  return links;
}

/** The first place from `from` where a link starts at a token's start, or -1. */
function nextLinkStart(lower: string, from: number): number {
  let best = -1;
  for (const prefix of LINK_STARTS) {
    let at = lower.indexOf(prefix, from);
    // `www.` inside a word (`awww.`) or a URL already found is no start.
    while (at > 0 && prefix === 'www.' && !LINK_ENDS.has(lower[at - 1]) && lower[at - 1] !== '=') {
      at = lower.indexOf(prefix, at + 1);
    }
    if (at >= 0 && (best < 0 || at < best)) best = at;
  }
  return best;
}

/** The host a link or an address names, lower case, or undefined. */
export function hostOf(value: string): string | undefined {
  const at = value.lastIndexOf('@');
  if (at >= 0 && !value.includes('/')) return value.slice(at + 1).toLowerCase() || undefined;
  try {
    return new URL(
      value.startsWith('www.') || value.startsWith('WWW.') ? `http://${value}` : value,
    ).hostname.toLowerCase();
  } catch {
    return undefined;
  }
}

/** Whether `host` is `domain` or below it. */
const under = (host: string, domain: string) => host === domain || host.endsWith(`.${domain}`);

/** Words of `text`, lower case, as one string with single spaces between them and around it. */
function wordsOf(text: string): string {
  return ` ${text
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter(Boolean)
    .join(' ')} `;
}

/** Why the defences suspect this submission of spam; empty when they do not. */
export function spamReasons(submitted: SubmittedText, links: string[], settings: SubmissionSettings): SpamReason[] {
  const reasons: SpamReason[] = [];
  if (submitted.honeypot) reasons.push('honeypot');
  if (links.length > settings.maxLinks) reasons.push('links');
  if (settings.blockedWords.length) {
    const words = wordsOf(submitted.texts.join(' '));
    if (settings.blockedWords.some((blocked) => words.includes(wordsOf(blocked)))) reasons.push('blocked_word');
  }
  if (settings.blockedDomains.length) {
    const hosts = [...links, ...submitted.addresses].map(hostOf).filter((host): host is string => Boolean(host));
    if (hosts.some((host) => settings.blockedDomains.some((domain) => under(host, domain)))) {
      reasons.push('blocked_domain');
    }
  }
  return reasons;
}

const sha256 = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');

/**
 * The key two submissions of one event share when sent on the same day (UTC): the title with its
 * case and spacing ignored, and the start. The unique index on it refuses the second.
 */
export function duplicateKey(title: string, startUtc: Date, today: Date): string {
  const name = wordsOf(title).trim();
  return sha256(`${name}\u0000${startUtc.toISOString()}\u0000${today.toISOString().slice(0, 10)}`);
}

/**
 * Counts one submission of the day for this client address and this e-mail address, or refuses it
 * (429 until the next day, UTC). Each count is a conditional upsert: submissions from one address
 * queue on its row, and only those that find room add one. Run last in the submission's
 * transaction, so that one refused for another reason counts for nothing.
 */
export async function chargeSubmission(
  run: Driver,
  keys: { address?: string; email: string },
  settings: SubmissionSettings,
): Promise<void> {
  const charges: ['address' | 'email', string, number][] = [
    ['email', keys.email.toLowerCase(), settings.perEmailPerDay],
  ];
  if (keys.address) charges.unshift(['address', keys.address, settings.perAddressPerDay]);
  for (const [kind, key, perDay] of charges) {
    const rows = await run(
      `INSERT INTO submission_requests AS r (kind, key_hash, day, requests)
      VALUES ($1::text, $2::text, current_date, 1)
      ON CONFLICT (kind, key_hash, day) DO UPDATE SET requests = r.requests + 1 WHERE r.requests < $3::int
      RETURNING requests`,
      [kind, sha256(key), perDay],
    );
    if (!rows.length) {
      const tomorrow = Math.ceil((Date.now() + 1) / 86_400_000) * 86_400_000;
      throw new QuotaExceeded('submissions', perDay, Math.max(1, Math.ceil((tomorrow - Date.now()) / 1000)));
    }
  }
}
