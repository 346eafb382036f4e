// Conditional requests (RFC 9110). Every successful GET carries a strong ETag computed from the
// bytes it sends, so `If-None-Match` gives 304 whenever the representation is unchanged, whoever
// changed what it embeds. Events, venues, organizers and terms put their version (the modification
// time) in front of it: `If-Match` on an update or delete names that version, and the write claims it
// atomically, so of two editors who read the same version only the first one writes.
import { createHash } from 'node:crypto';
import type { Precondition } from '../domain/posts.js';

export { versionOf } from '../domain/posts.js';

export function entityTag(body: string | Buffer, version?: string): string {
  const digest = createHash('sha256').update(body).digest('base64url').slice(0, 22);
  return `"${version ? `${version}-` : ''}${digest}"`;
}

/** `If-Match` / `If-None-Match`: `*`, or the listed entity tags (quoted, weak ones with `W/`). */
export function parseTags(header: string | string[] | undefined): '*' | string[] | undefined {
  if (header === undefined) return undefined;
  const text = [header].flat().join(',').trim();
  if (text === '*') return '*';
  return text.match(/(?:W\/)?"[^"]*"/g) ?? [];
}

/** If-None-Match uses the weak comparison: `W/` does not matter. */
export function noneMatch(header: string | string[] | undefined, etag: string): boolean {
  const tags = parseTags(header);
  if (tags === undefined) return true;
  if (tags === '*') return false;
  return !tags.some((tag) => tag.replace(/^W\//, '') === etag);
}

/** The versions named by If-Match's strong tags (weak tags never match If-Match). */
export function ifMatchPrecondition(header: string | string[] | undefined): Precondition | undefined {
  const tags = parseTags(header);
  if (tags === undefined) return undefined;
  if (tags === '*') return { versions: '*' };
  const strong = tags.filter((tag) => !tag.startsWith('W/'));
  const versions = strong
    .map((tag) => /^"([0-9a-z]{1,12})-/.exec(tag)?.[1])
    .filter((v): v is string => v !== undefined)
    .map((v) => new Date(parseInt(v, 36)))
    .filter((d) => !Number.isNaN(d.getTime()));
  return { versions };
}
